// Each thread summarizes a contiguous chunk (total, best prefix, best suffix, best inside); one thread
// combines the summaries in order.
#define MAXIMUM_SUBARRAY_THREADS 8192

struct MaximumSubarraySummary {
    long long total, prefix, suffix, best;
    int used;
};

__global__ void maximum_subarray_chunks(int n, const int* x, MaximumSubarraySummary* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= MAXIMUM_SUBARRAY_THREADS) return;
    long long lo = (long long)n * t / MAXIMUM_SUBARRAY_THREADS;
    long long hi = (long long)n * (t + 1) / MAXIMUM_SUBARRAY_THREADS;
    MaximumSubarraySummary s = {0, 0, 0, 0, 0};
    if (lo < hi) {
        long long sum = 0, pre = x[lo], cur = 0, b = x[lo];
        for (long long i = lo; i < hi; ++i) {
            sum += x[i];
            pre = max(pre, sum);
            cur = max((long long)x[i], cur + x[i]);
            b = max(b, cur);
        }
        long long suf = x[hi - 1], acc = 0;
        for (long long i = hi - 1; i >= lo; --i) {
            acc += x[i];
            suf = max(suf, acc);
        }
        s = {sum, pre, suf, b, 1};
    }
    out[t] = s;
}

__global__ void maximum_subarray_combine(const MaximumSubarraySummary* s, long long* result) {
    bool any = false;
    long long best = 0, suffix = 0;
    for (int t = 0; t < MAXIMUM_SUBARRAY_THREADS; ++t) {
        if (!s[t].used) continue;
        if (!any) {
            best = s[t].best;
            suffix = s[t].suffix;
            any = true;
            continue;
        }
        best = max(max(best, s[t].best), suffix + s[t].prefix);
        suffix = max(s[t].suffix, suffix + s[t].total);
    }
    *result = best;
}

void maximum_subarray_gpu(int n, const int* x, long long* result) {
    MaximumSubarraySummary* s;
    cudaMalloc(&s, MAXIMUM_SUBARRAY_THREADS * sizeof(MaximumSubarraySummary));
    maximum_subarray_chunks<<<MAXIMUM_SUBARRAY_THREADS / 256, 256>>>(n, x, s);
    maximum_subarray_combine<<<1, 1>>>(s, result);
    cudaFree(s);
}
