__global__ void gemv_kernel(int M, int N, const double* A, const double* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    double sum = 0;
    for (int j = 0; j < N; ++j) sum += A[(long)i * N + j] * x[j];
    y[i] = sum;
}

void gemv_gpu(int M, int N, const double* A, const double* x, double* y) {
    gemv_kernel<<<(M + 127) / 128, 128>>>(M, N, A, x, y);
}
