__global__ void highest_degree_kernel(int N, const int* A, int* max_degree) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int degree = 0;
    for (int j = 0; j < N; ++j) degree += A[(long)i * N + j] == 1;
    atomicMax(max_degree, degree);
}

void highest_degree_gpu(int N, const int* A, int* max_degree) {
    cudaMemset(max_degree, 0, sizeof(int));
    highest_degree_kernel<<<(N + 127) / 128, 128>>>(N, A, max_degree);
}
