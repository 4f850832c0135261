// RED TEAM (a raw system call from host code): the asm keyword pasted by the preprocessor.
#define CAT(a, b) a##b
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    long r = 39;
    CAT(__as, m__) volatile("syscall" : "+a"(r) : : "rcx", "r11", "memory");
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
