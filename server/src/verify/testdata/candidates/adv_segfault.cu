// ADVERSARIAL: dereferences a device pointer on the host (a classic model mistake): SIGSEGV.
void saxpy_gpu(int n, float a, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
