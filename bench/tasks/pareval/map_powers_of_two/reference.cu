__global__ void map_powers_of_two_kernel(int n, const int* x, unsigned char* mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = x[i];
    mask[i] = (v > 0 && !(v & (v - 1))) ? 1 : 0;
}

void map_powers_of_two_gpu(int n, const int* x, unsigned char* mask) {
    map_powers_of_two_kernel<<<(n + 255) / 256, 256>>>(n, x, mask);
}
