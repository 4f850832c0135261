// One thread per element, grid-stride: the plain port.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        y[i] = a * x[i] + y[i];
    }
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    int blocks = (n + 255) / 256;
    if (blocks > 65535 * 16) blocks = 65535 * 16;
    saxpy_kernel<<<blocks, 256>>>(n, a, x, y);
}
