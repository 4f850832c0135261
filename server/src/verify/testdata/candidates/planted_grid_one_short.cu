// PLANTED BUG (grid one block short when n ≡ 1 mod 256): rounds the block count up only for a
// remainder above 1, so the last element is never written when n % 256 == 1.
__global__ void saxpy_kernel(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    int blocks = n / 256 + (n % 256 > 1 ? 1 : 0);
    if (blocks > 0) saxpy_kernel<<<blocks, 256>>>(n, a, x, y);
}
