// RED TEAM (writes a fake verdict to a file descriptor): dprintf is not a name the text check
// bans.
extern "C" int dprintf(int, const char*, ...);
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    dprintf(3, "T 0 0.001 0.001 0.001\n");
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
