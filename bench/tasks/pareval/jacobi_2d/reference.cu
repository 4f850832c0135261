__global__ void jacobi_2d_kernel(int N, const double* input, double* output) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= N) return;
    double up = i > 0 ? input[(long)(i - 1) * N + j] : 0.0;
    double down = i < N - 1 ? input[(long)(i + 1) * N + j] : 0.0;
    double left = j > 0 ? input[(long)i * N + j - 1] : 0.0;
    double right = j < N - 1 ? input[(long)i * N + j + 1] : 0.0;
    output[(long)i * N + j] = (up + down + left + right + input[(long)i * N + j]) / 5;
}

void jacobi_2d_gpu(int N, const double* input, double* output) {
    jacobi_2d_kernel<<<dim3((N + 255) / 256, N), 256>>>(N, input, output);
}
