__global__ void reduce_average_kernel(int n, const double* x, double* sum) {
    __shared__ double s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(sum, s[0]);
}

__global__ void reduce_average_divide(int n, double* result) { *result = *result / n; }

void reduce_average_gpu(int n, const double* x, double* result) {
    cudaMemset(result, 0, sizeof(double));
    reduce_average_kernel<<<(n + 255) / 256, 256>>>(n, x, result);
    reduce_average_divide<<<1, 1>>>(n, result);
}
