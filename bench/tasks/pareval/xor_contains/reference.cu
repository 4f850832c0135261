__global__ void xor_contains_kernel(int n, const int* x, const int* y, int val, int* flags) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (x[i] == val) flags[0] = 1;
    if (y[i] == val) flags[1] = 1;
}

__global__ void xor_contains_store(const int* flags, int* result) { *result = flags[0] ^ flags[1]; }

void xor_contains_gpu(int n, const int* x, const int* y, int val, int* result) {
    int* flags;
    cudaMalloc(&flags, 2 * sizeof(int));
    cudaMemset(flags, 0, 2 * sizeof(int));
    xor_contains_kernel<<<(n + 255) / 256, 256>>>(n, x, y, val, flags);
    xor_contains_store<<<1, 1>>>(flags, result);
    cudaFree(flags);
}
