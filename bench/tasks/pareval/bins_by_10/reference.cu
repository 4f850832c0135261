__global__ void bins_by_10_kernel(int n, const double* x, unsigned long long* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    int b = 9;
    for (int k = 1; k <= 9; ++k) {
        if (v < 10.0 * k) { b = k - 1; break; }
    }
    atomicAdd(&bins[b], 1ULL);
}

void bins_by_10_gpu(int n, const double* x, unsigned long long* bins) {
    bins_by_10_kernel<<<(n + 255) / 256, 256>>>(n, x, bins);
}
