__global__ void gemm_kernel(int M, int K, int N, const double* A, const double* B, double* C) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= N || i >= M) return;
    double sum = 0;
    for (int k = 0; k < K; ++k) sum += A[(long)i * K + k] * B[(long)k * N + j];
    C[(long)i * N + j] = sum;
}

void gemm_gpu(int M, int K, int N, const double* A, const double* B, double* C) {
    dim3 grid((N + 127) / 128, M);
    gemm_kernel<<<grid, 128>>>(M, K, N, A, B, C);
}
