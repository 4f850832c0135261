// RED TEAM (a global object's destructor rewrites the verdict after main): writes to the
// channel's descriptor under a pasted name, so no `write(` is in the text.
#define CAT(a, b) a##b
extern "C" long CAT(wri, te)(int, const void*, unsigned long);
struct Rewriter {
    ~Rewriter() {
        auto w = &CAT(wri, te);
        w(3, "T 0 0.0001 0.0001 0.0001\nE\n", 27);
    }
};
static Rewriter rewriter;
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
}
