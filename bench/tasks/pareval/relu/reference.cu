__global__ void relu_kernel(int n, double* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0) x[i] = 0;
}

void relu_gpu(int n, double* x) {
    relu_kernel<<<(n + 255) / 256, 256>>>(n, x);
}
