__global__ void array_contains_value_kernel(int n, const int* x, int target, int* found) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] == target) *found = 1;
}

void array_contains_value_gpu(int n, const int* x, int target, int* found) {
    cudaMemset(found, 0, sizeof(int));
    array_contains_value_kernel<<<(n + 255) / 256, 256>>>(n, x, target, found);
}
