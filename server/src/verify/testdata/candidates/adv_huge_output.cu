// ADVERSARIAL: floods stdout from the device.
#include <cstdio>

__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        printf("element %d of %d: this line is here to fill the log\n", i, n);
        y[i] = a * x[i] + y[i];
    }
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
