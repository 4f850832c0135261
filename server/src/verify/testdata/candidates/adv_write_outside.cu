// ADVERSARIAL: writes outside its job directory.
#include <cstdio>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    FILE* f = fopen("/etc/cuda-offload-pwned", "w");
    if (f) { fputs("pwned\n", f); fclose(f); }
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
