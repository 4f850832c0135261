__global__ void cells_xor_kernel(int N, const int* input, int* output) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y;
    if (i >= N) return;
    int count = 0;
    if (i > 0 && input[i - 1 + (long)j * N] == 1) ++count;
    if (i < N - 1 && input[i + 1 + (long)j * N] == 1) ++count;
    if (j > 0 && input[i + (long)(j - 1) * N] == 1) ++count;
    if (j < N - 1 && input[i + (long)(j + 1) * N] == 1) ++count;
    output[i + (long)j * N] = count == 1 ? 1 : 0;
}

void cells_xor_gpu(int N, const int* input, int* output) {
    cells_xor_kernel<<<dim3((N + 255) / 256, N), 256>>>(N, input, output);
}
