// PLANTED BUG (right only for even sizes): two elements per thread, n/2 threads, no odd tail.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n / 2) {
        y[2 * i] = a * x[2 * i] + y[2 * i];
        y[2 * i + 1] = a * x[2 * i + 1] + y[2 * i + 1];
    }
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    int half = n / 2;
    if (half > 0) saxpy_kernel<<<(half + 255) / 256, 256>>>(n, a, x, y);
}
