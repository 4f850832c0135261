__global__ void negate_odds_halve_evens_kernel(int n, int* x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    x[i] = v % 2 == 0 ? v / 2 : -v;
}

void negate_odds_halve_evens_gpu(int n, int* x) {
    negate_odds_halve_evens_kernel<<<(n + 255) / 256, 256>>>(n, x);
}
