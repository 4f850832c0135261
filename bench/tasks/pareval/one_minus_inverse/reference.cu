__global__ void one_minus_inverse_kernel(int n, double* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0 - 1.0 / x[i];
}

void one_minus_inverse_gpu(int n, double* x) {
    one_minus_inverse_kernel<<<(n + 255) / 256, 256>>>(n, x);
}
