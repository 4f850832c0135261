__global__ void edge_count_kernel(long total, const int* A, int* count) {
    long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < total && A[k] == 1) atomicAdd(count, 1);
}

void edge_count_gpu(int N, const int* A, int* count) {
    long total = (long)N * N;
    cudaMemset(count, 0, sizeof(int));
    edge_count_kernel<<<(unsigned)((total + 255) / 256), 256>>>(total, A, count);
}
