// RED TEAM (work on a host thread after the timer): C11 threads, declared by hand.
struct Args { int n; float a; const float* x; float* y; };
extern "C" int thrd_create(unsigned long*, int (*)(void*), void*);
static int later(void* p) { (void)p; return 0; }
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    static Args args;
    args = Args{n, a, x, y};
    unsigned long t;
    thrd_create(&t, later, &args);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
