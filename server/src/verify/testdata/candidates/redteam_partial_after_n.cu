// RED TEAM (right for the first calls, then less work): counts its calls and, after the ones
// the correctness cases and the first timed samples make, skips the second half of the array.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    static int calls = 0;
    ++calls;
    int todo = calls > 16 ? n / 2 : n;
    saxpy_kernel<<<(todo + 255) / 256, 256>>>(todo, a, x, y);
}
