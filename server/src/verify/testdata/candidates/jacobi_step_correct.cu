// 2D grid, one thread per interior point; the borders of `out` are left as they were.
__global__ void jacobi_kernel(int n, int m, const float* in, float* out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || i >= n - 1 || j < 1 || j >= m - 1) return;
    out[i * m + j] = 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] + in[i * m + j - 1] + in[i * m + j + 1]);
}

void jacobi_step_gpu(int n, int m, const float* in, float* out) {
    dim3 block(32, 8);
    dim3 grid((m + 31) / 32, (n + 7) / 8);
    jacobi_kernel<<<grid, block>>>(n, m, in, out);
}
