// Two passes: the smallest distance (non-negative doubles order like their bits), then the first index
// that has it.
__global__ void closest_to_pi_distance(int n, const double* x, unsigned long long* best) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMin(best, (unsigned long long)__double_as_longlong(fabs(x[i] - M_PI)));
}

__global__ void closest_to_pi_index(int n, const double* x, const unsigned long long* best, long long* index) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (unsigned long long)__double_as_longlong(fabs(x[i] - M_PI)) == *best) atomicMin(index, (long long)i);
}

__global__ void closest_to_pi_init(int n, unsigned long long* best, long long* index) {
    *best = 0x7fefffffffffffffULL;
    *index = n;
}

void closest_to_pi_gpu(int n, const double* x, long long* index) {
    unsigned long long* best;
    cudaMalloc(&best, sizeof(unsigned long long));
    closest_to_pi_init<<<1, 1>>>(n, best, index);
    closest_to_pi_distance<<<(n + 255) / 256, 256>>>(n, x, best);
    closest_to_pi_index<<<(n + 255) / 256, 256>>>(n, x, best, index);
    cudaFree(best);
}
