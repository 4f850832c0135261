__global__ void sum_of_min_of_pairs_kernel(int n, const double* x, const double* y, double* sum) {
    __shared__ double s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? fmin(x[i], y[i]) : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(sum, s[0]);
}

void sum_of_min_of_pairs_gpu(int n, const double* x, const double* y, double* result) {
    cudaMemset(result, 0, sizeof(double));
    sum_of_min_of_pairs_kernel<<<(n + 255) / 256, 256>>>(n, x, y, result);
}
