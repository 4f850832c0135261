// RED TEAM (host work enqueued in the stream): cudaLaunchHostFunc runs a host function on the
// runtime's own thread.
static void host_part(void* p) { (void)p; }
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    cudaLaunchHostFunc(0, host_part, nullptr);
}
