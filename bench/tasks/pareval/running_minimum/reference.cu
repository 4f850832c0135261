#define RUNNING_MINIMUM_THREADS 8192

__global__ void running_minimum_chunks(int n, int chunk, const float* x, float* mins) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= RUNNING_MINIMUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    float m = x[0];
    for (long i = lo; i < hi; ++i) m = fminf(m, x[i]);
    mins[t] = m;
}

__global__ void running_minimum_offsets(const float* x, float* mins) {
    float run = x[0];
    for (int t = 0; t < RUNNING_MINIMUM_THREADS; ++t) {
        float m = mins[t];
        mins[t] = run;
        run = fminf(run, m);
    }
}

__global__ void running_minimum_apply(int n, int chunk, float* x, const float* mins) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= RUNNING_MINIMUM_THREADS) return;
    long lo = (long)t * chunk, hi = min((long)n, lo + chunk);
    float run = mins[t];
    for (long i = lo; i < hi; ++i) {
        run = fminf(run, x[i]);
        x[i] = run;
    }
}

void running_minimum_gpu(int n, float* x) {
    int chunk = (n + RUNNING_MINIMUM_THREADS - 1) / RUNNING_MINIMUM_THREADS;
    float* mins;
    cudaMalloc(&mins, RUNNING_MINIMUM_THREADS * sizeof(float));
    running_minimum_chunks<<<RUNNING_MINIMUM_THREADS / 256, 256>>>(n, chunk, x, mins);
    running_minimum_offsets<<<1, 1>>>(x, mins);
    running_minimum_apply<<<RUNNING_MINIMUM_THREADS / 256, 256>>>(n, chunk, x, mins);
    cudaFree(mins);
}
