__global__ void square_each_kernel(int n, int* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

void square_each_gpu(int n, int* x) {
    square_each_kernel<<<(n + 255) / 256, 256>>>(n, x);
}
