// PLANTED BUG (square only): uses `rows` for both dimensions, right whenever rows == cols.
__global__ void transpose_kernel(int rows, int cols, const float* in, float* out) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < rows) out[(long long)c * rows + r] = in[(long long)r * rows + c];
}

void transpose_gpu(int rows, int cols, const float* in, float* out) {
    dim3 block(32, 8);
    dim3 grid((rows + 31) / 32, (rows + 7) / 8);
    if (rows > 0 && cols > 0) transpose_kernel<<<grid, block>>>(rows, cols, in, out);
}
