// Nests: the outermost parallel loop carries the region; inner loops get their own verdicts.
#include <cmath>
#include <vector>

void matmul(int n, const float* A, const float* B, float* C) {
    for (int i = 0; i < n; ++i) {  // expect: kind=map region=yes
        for (int j = 0; j < n; ++j) {  // expect: kind=map region=no reason="each iteration j"
            float acc = 0.0f;
            for (int k = 0; k < n; ++k) acc += A[i * n + k] * B[k * n + j];  // expect: kind=reduction region=no
            C[i * n + j] = acc;
        }
    }
}

void row_sums(int rows, int cols, const double* a, double* s) {
    for (int r = 0; r < rows; ++r) {  // expect: kind=map region=yes
        const int base = r * cols;
        for (int c = 0; c < cols; ++c) s[r] += a[base + c];  // expect: kind=reduction region=no
    }
}

void lower_triangle(int n, float* m) {
    for (int i = 0; i < n; ++i)  // expect: kind=map region=yes
        for (int j = 0; j <= i; ++j) m[i * n + j] = 1.0f;  // expect: kind=map region=no
}

void jacobi(int n, int m, const float* in, float* out) {
    for (int i = 1; i < n - 1; ++i)  // expect: kind=stencil region=yes
        for (int j = 1; j < m - 1; ++j)  // expect: kind=stencil region=no
            out[i * m + j] = 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] + in[i * m + j - 1] + in[i * m + j + 1]);
}

void gauss_seidel(int n, int m, float* u) {
    for (int i = 1; i < n - 1; ++i)  // expect: kind=sequential
        for (int j = 1; j < m - 1; ++j)  // expect: kind=sequential
            u[i * m + j] = 0.25f * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
}

void diagonal_sum(int n, float* a) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential reason="two different iterations"
        for (int j = 0; j < n; ++j) a[i + j] += 1.0f;  // expect: kind=map
}

void transpose_in_place(int n, float* a) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential
        // Each j swaps its own pair (i, j) and (j, i): row i's columns past i never meet column
        // i's rows past i (Banerjee's test).
        for (int j = i + 1; j < n; ++j) {  // expect: kind=map
            float t = a[i * n + j];
            a[i * n + j] = a[j * n + i];
            a[j * n + i] = t;
        }
}

void time_steps(int steps, int n, float* u, const float* f) {
    for (int t = 0; t < steps; ++t)  // expect: kind=sequential reason="same element"
        for (int i = 0; i < n; ++i) u[i] = 0.5f * (u[i] + f[i]);  // expect: kind=map region=yes
}

void fill_grid(int n, int m) {
    std::vector<float> grid(n * m);
    for (int i = 0; i < n; ++i)  // expect: kind=map region=yes
        for (int j = 0; j < m; ++j) grid[i * m + j] = std::sin(0.1f * i) * std::cos(0.1f * j);  // expect: kind=map region=no
}
