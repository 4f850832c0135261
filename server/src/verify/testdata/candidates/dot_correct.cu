// Block reduction in shared memory, one double atomicAdd per block into *acc.
__global__ void dot_kernel(int n, const double* x, const double* y, double* acc) {
    __shared__ double part[256];
    double s = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += x[i] * y[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(acc, part[0]);
}

void dot_gpu(int n, const double* x, const double* y, double* acc) {
    int blocks = (n + 255) / 256;
    if (blocks > 132 * 8) blocks = 132 * 8;
    dot_kernel<<<blocks, 256>>>(n, x, y, acc);
}
