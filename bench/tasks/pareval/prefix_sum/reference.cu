// Three passes over chunks: each thread sums its chunk, one thread scans the chunk sums, each thread
// rescans its chunk from its offset.
#define PREFIX_SUM_THREADS 8192

__global__ void prefix_sum_chunks(int n, int chunk, const double* x, double* sums) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= PREFIX_SUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    double s = 0;
    for (long i = lo; i < hi; ++i) s += x[i];
    sums[t] = s;
}

__global__ void prefix_sum_offsets(double* sums) {
    double run = 0;
    for (int t = 0; t < PREFIX_SUM_THREADS; ++t) {
        double s = sums[t];
        sums[t] = run;
        run += s;
    }
}

__global__ void prefix_sum_apply(int n, int chunk, const double* x, const double* sums, double* output) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= PREFIX_SUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    double run = sums[t];
    for (long i = lo; i < hi; ++i) {
        run += x[i];
        output[i] = run;
    }
}

void prefix_sum_gpu(int n, const double* x, double* output) {
    int chunk = (n + PREFIX_SUM_THREADS - 1) / PREFIX_SUM_THREADS;
    double* sums;
    cudaMalloc(&sums, PREFIX_SUM_THREADS * sizeof(double));
    prefix_sum_chunks<<<PREFIX_SUM_THREADS / 256, 256>>>(n, chunk, x, sums);
    prefix_sum_offsets<<<1, 1>>>(sums);
    prefix_sum_apply<<<PREFIX_SUM_THREADS / 256, 256>>>(n, chunk, x, sums, output);
    cudaFree(sums);
}
