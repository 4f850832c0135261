__global__ void count_quadrants_kernel(int n, const double* px, const double* py, unsigned long long* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = px[i], y = py[i];
    int b = 3;
    if (x > 0 && y > 0) b = 0;
    else if (x < 0 && y > 0) b = 1;
    else if (x < 0 && y < 0) b = 2;
    atomicAdd(&bins[b], 1ULL);
}

void count_quadrants_gpu(int n, const double* px, const double* py, unsigned long long* bins) {
    count_quadrants_kernel<<<(n + 255) / 256, 256>>>(n, px, py, bins);
}
