// RED TEAM (replaces a C library function for the whole program): the harness's input generator
// asks sysconf how many cores to use; a candidate defining it runs its own code there.
extern "C" long sysconf(int name) noexcept {
    (void)name;
    return 1;
}
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
