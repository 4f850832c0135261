// One thread per input element, 2-D grid: rows and columns each bounded on their own.
__global__ void transpose_kernel(int rows, int cols, const float* in, float* out) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(long long)c * rows + r] = in[(long long)r * cols + c];
}

void transpose_gpu(int rows, int cols, const float* in, float* out) {
    dim3 block(32, 8);
    dim3 grid((cols + 31) / 32, (rows + 7) / 8);
    if (rows > 0 && cols > 0) transpose_kernel<<<grid, block>>>(rows, cols, in, out);
}
