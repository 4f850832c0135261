// RED TEAM (host-visible memory to compute on the host): managed memory under a pasted name.
#define CAT(a, b) a##b
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    float* staging = nullptr;
    CAT(cudaMalloc, Managed)((void**)&staging, sizeof(float) * (n > 0 ? n : 1), 1);
    saxpy_kernel<<<(n + 255) / 256, 256>>>(n, a, x, y);
    cudaFree(staging);
}
