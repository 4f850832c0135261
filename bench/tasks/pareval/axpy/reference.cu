__global__ void axpy_kernel(int n, double alpha, const double* x, const double* y, double* z) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = alpha * x[i] + y[i];
}

void axpy_gpu(int n, double alpha, const double* x, const double* y, double* z) {
    axpy_kernel<<<(n + 255) / 256, 256>>>(n, alpha, x, y, z);
}
