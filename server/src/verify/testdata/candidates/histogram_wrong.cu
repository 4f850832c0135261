// A data race: plain increments lose updates when threads hit the same bin.
__global__ void histogram_kernel(int n, const int* data, int* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) bins[data[i]] += 1;
}

void histogram_gpu(int n, int nbins, const int* data, int* bins) {
    (void)nbins;
    histogram_kernel<<<(n + 255) / 256, 256>>>(n, data, bins);
}
