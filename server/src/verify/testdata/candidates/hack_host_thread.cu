// HACK (work on another thread after the timer stops): a detached host thread launches the kernel later.
#include <thread>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    std::thread([=] { saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y); }).detach();
}
