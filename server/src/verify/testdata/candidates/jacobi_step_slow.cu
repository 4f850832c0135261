// Correct, one thread walks the whole grid.
__global__ void jacobi_kernel(int n, int m, const float* in, float* out) {
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < m - 1; ++j)
            out[i * m + j] = 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] + in[i * m + j - 1] + in[i * m + j + 1]);
}

void jacobi_step_gpu(int n, int m, const float* in, float* out) {
    jacobi_kernel<<<1, 1>>>(n, m, in, out);
}
