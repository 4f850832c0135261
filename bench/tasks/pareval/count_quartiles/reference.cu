__global__ void count_quartiles_kernel(int n, const double* x, unsigned long long* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double f = x[i] - floor(x[i]);
    int b = f < 0.25 ? 0 : f < 0.5 ? 1 : f < 0.75 ? 2 : 3;
    atomicAdd(&bins[b], 1ULL);
}

void count_quartiles_gpu(int n, const double* x, unsigned long long* bins) {
    count_quartiles_kernel<<<(n + 255) / 256, 256>>>(n, x, bins);
}
