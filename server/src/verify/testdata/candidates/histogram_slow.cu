// Correct, one thread.
__global__ void histogram_kernel(int n, const int* data, int* bins) {
    for (int i = 0; i < n; ++i) bins[data[i]]++;
}

void histogram_gpu(int n, int nbins, const int* data, int* bins) {
    (void)nbins;
    histogram_kernel<<<1, 1>>>(n, data, bins);
}
