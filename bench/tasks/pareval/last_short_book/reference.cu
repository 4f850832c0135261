__global__ void last_short_book_kernel(int n, const int* pages, long long* index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && pages[i] < 100) atomicMax(index, (long long)i);
}

void last_short_book_gpu(int n, const int* pages, long long* index) {
    cudaMemset(index, 0, sizeof(long long));
    last_short_book_kernel<<<(n + 255) / 256, 256>>>(n, pages, index);
}
