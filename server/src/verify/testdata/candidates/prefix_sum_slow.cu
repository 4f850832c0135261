// Correct, one thread.
__global__ void scan_kernel(int n, const int* in, long long* out) {
    long long s = 0;
    for (int i = 0; i < n; ++i) { s += in[i]; out[i] = s; }
}

void prefix_sum_gpu(int n, const int* in, long long* out) {
    scan_kernel<<<1, 1>>>(n, in, out);
}
