// `#pragma omp` is a hint, never a proof; syntax errors leave the rest of the file analysable.
void omp_map(int n, const float* x, float* y) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i];  // expect: kind=map region=yes reason="agrees"
}

void omp_wrong(int n, float* u) {
    #pragma omp parallel for
    for (int i = 1; i < n; ++i) u[i] = 0.5f * u[i - 1] + 1.0f;  // expect: kind=sequential reason="hint, not a proof"
}

void broken(int n, float* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="syntax error"
        a[i] = 1.0f +;
    }
}

void after_the_error(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[i] = x[i] + 1.0f;  // expect: kind=map region=yes
}
