// ADVERSARIAL: a kernel that never ends.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    volatile int spin = 1;
    while (spin) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
