__global__ void pixel_histogram_kernel(int n, const int* image, unsigned long long* bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[image[i]], 1ULL);
}

void pixel_histogram_gpu(int n, const int* image, unsigned long long* bins) {
    pixel_histogram_kernel<<<(n + 255) / 256, 256>>>(n, image, bins);
}
