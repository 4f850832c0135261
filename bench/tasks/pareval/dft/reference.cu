__global__ void dft_kernel(int n, const double* x, double* re, double* im) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    double sr = 0, si = 0;
    for (int j = 0; j < n; ++j) {
        double angle = -2.0 * M_PI * (double)((long)k * j % n) / n;
        sr += x[j] * cos(angle);
        si += x[j] * sin(angle);
    }
    re[k] = sr;
    im[k] = si;
}

void dft_gpu(int n, const double* x, double* re, double* im) {
    dft_kernel<<<(n + 127) / 128, 128>>>(n, x, re, im);
}
