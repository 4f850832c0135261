// ADVERSARIAL: writes far outside its buffers on the device: an illegal address.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i + (1LL << 36)] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
