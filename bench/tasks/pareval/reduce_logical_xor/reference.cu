__global__ void reduce_logical_xor_kernel(int n, const unsigned char* x, unsigned int* acc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i]) atomicXor(acc, 1u);
}

__global__ void reduce_logical_xor_store(const unsigned int* acc, unsigned char* result) {
    *result = (unsigned char)(*acc & 1u);
}

void reduce_logical_xor_gpu(int n, const unsigned char* x, unsigned char* result) {
    unsigned int* acc;
    cudaMalloc(&acc, sizeof(unsigned int));
    cudaMemset(acc, 0, sizeof(unsigned int));
    reduce_logical_xor_kernel<<<(n + 255) / 256, 256>>>(n, x, acc);
    reduce_logical_xor_store<<<1, 1>>>(acc, result);
    cudaFree(acc);
}
