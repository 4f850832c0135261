// CUDA files parse with tree-sitter-cuda: kernels are already on the GPU, host loops are analysed.
__global__ void add_kernel(int n, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {  // expect: kind=sequential hot=no reason="already runs on the GPU"
        y[i] += x[i];
    }
}

void host_init(int n, float* x) {
    for (int i = 0; i < n; ++i) x[i] = 1.0f;  // expect: kind=map region=yes
}

int main() {
    const int n = 1 << 20;
    float *x, *y;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    add_kernel<<<256, 256>>>(n, x, y);
    return 0;
}
