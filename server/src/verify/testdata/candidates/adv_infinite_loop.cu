// ADVERSARIAL: a kernel that never ends. The flag is a device global read through a volatile
// pointer, so the loop survives into the machine code: a spin on a local (even a `volatile` one)
// is folded to registers and then removed as a side-effect-free infinite loop, and such a
// candidate simply runs (ptxas 13.0 did exactly that).
__device__ int never_set = 0;

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    while (*(volatile int*)&never_set == 0) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
