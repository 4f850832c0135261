__global__ void smallest_odd_number_init(const int* x, int* result) { *result = x[0]; }

__global__ void smallest_odd_number_kernel(int n, const int* x, int* result) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < n && x[i] % 2 == 1) atomicMin(result, x[i]);
}

void smallest_odd_number_gpu(int n, const int* x, int* result) {
    smallest_odd_number_init<<<1, 1>>>(x, result);
    smallest_odd_number_kernel<<<(n + 255) / 256, 256>>>(n, x, result);
}
