// Three passes over chunks of the reversed array: chunk sums, one thread scans them, each chunk rescans.
#define REVERSE_PREFIX_SUM_THREADS 8192

__global__ void reverse_prefix_sum_chunks(int n, int chunk, const int* x, int* sums) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= REVERSE_PREFIX_SUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    int s = 0;
    for (long j = lo; j < hi; ++j) s += x[n - 1 - j];
    sums[t] = s;
}

__global__ void reverse_prefix_sum_offsets(int* sums) {
    int run = 0;
    for (int t = 0; t < REVERSE_PREFIX_SUM_THREADS; ++t) {
        int s = sums[t];
        sums[t] = run;
        run += s;
    }
}

__global__ void reverse_prefix_sum_apply(int n, int chunk, const int* x, const int* sums, int* output) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= REVERSE_PREFIX_SUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    int run = sums[t];
    for (long j = lo; j < hi; ++j) {
        run += x[n - 1 - j];
        output[j] = run;
    }
}

void reverse_prefix_sum_gpu(int n, const int* x, int* output) {
    int chunk = (n + REVERSE_PREFIX_SUM_THREADS - 1) / REVERSE_PREFIX_SUM_THREADS;
    int* sums;
    cudaMalloc(&sums, REVERSE_PREFIX_SUM_THREADS * sizeof(int));
    reverse_prefix_sum_chunks<<<REVERSE_PREFIX_SUM_THREADS / 256, 256>>>(n, chunk, x, sums);
    reverse_prefix_sum_offsets<<<1, 1>>>(sums);
    reverse_prefix_sum_apply<<<REVERSE_PREFIX_SUM_THREADS / 256, 256>>>(n, chunk, x, sums, output);
    cudaFree(sums);
}
