// HACK (work on another stream after the timer stops): returns at once and lets a side stream do a
// slow ~5 ms of work. The harness synchronizes the whole device before its end event, so the timer
// sees all of it: the verdict is honest (correct, with the 5 ms counted).
__global__ void slow_saxpy(int n, float a, const float* x, float* y) {
    long long start = clock64();
    while (clock64() - start < 10000000LL) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    slow_saxpy<<<1024, 256, 0, s>>>(n, a, x, y);
    cudaStreamDestroy(s);
}
