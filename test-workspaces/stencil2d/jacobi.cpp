// Jacobi relaxation on an n x m grid: a 5-point stencil inside a sequential time loop.
#include <cmath>
#include <cstdio>
#include <vector>

void jacobi_step(int n, int m, const float* in, float* out) {
    for (int i = 1; i < n - 1; ++i) {
        for (int j = 1; j < m - 1; ++j) {
            out[i * m + j] = 0.25f * (in[(i - 1) * m + j] + in[(i + 1) * m + j] +
                                      in[i * m + j - 1] + in[i * m + j + 1]);
        }
    }
}

float max_change(int n, int m, const float* a, const float* b) {
    float worst = 0.0f;
    for (int k = 0; k < n * m; ++k) {
        worst = std::fmax(worst, std::fabs(a[k] - b[k]));
    }
    return worst;
}

int main() {
    const int n = 2048, m = 2048;
    std::vector<float> u(n * m, 0.0f), v(n * m, 0.0f);
    for (int j = 0; j < m; ++j) u[j] = v[j] = 1.0f;  // hot top edge
    int iter = 0;
    float change = 1.0f;
    while (change > 1e-3f && iter < 500) {  // runs until convergence: not offloadable as a whole
        jacobi_step(n, m, u.data(), v.data());
        change = max_change(n, m, u.data(), v.data());
        u.swap(v);
        ++iter;
    }
    std::printf("%d iterations, change %g\n", iter, change);
    return 0;
}
