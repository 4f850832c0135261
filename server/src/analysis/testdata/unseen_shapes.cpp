// Shapes from real code: CSR, data-dependent inner loops, containers, file-level constants.
#include <cmath>
#include <vector>

const int NX = 512;

void spmv(int rows, const int* rowptr, const int* col, const double* val, const double* x, double* y) {
    for (int r = 0; r < rows; ++r) {  // expect: kind=map region=yes reason="each iteration r"
        double s = 0.0;
        for (int j = rowptr[r]; j < rowptr[r + 1]; ++j) s += val[j] * x[col[j]];  // expect: kind=reduction region=no
        y[r] = s;
    }
}

void relu(std::vector<float>& v) {
    for (std::size_t i = 0; i < v.size(); i++)  // expect: kind=map region=yes
        if (v[i] < 0) v[i] = 0;
}

void mandel(int w, int h, int maxit, int* out) {
    for (int py = 0; py < h; ++py)  // expect: kind=map region=yes
        for (int px = 0; px < w; ++px) {  // expect: kind=map region=no
            float x0 = px * 3.5f / w - 2.5f, y0 = py * 2.0f / h - 1.0f;
            float x = 0, y = 0;
            int it = 0;
            while (x * x + y * y < 4 && it < maxit) {  // expect: kind=sequential reason="data-dependent exit"
                float xt = x * x - y * y + x0;
                y = 2 * x * y + y0;
                x = xt;
                ++it;
            }
            out[py * w + px] = it;
        }
}

void fib(int n, long* f) {
    for (int i = 2; i < n; ++i) f[i] = f[i - 1] + f[i - 2];  // expect: kind=sequential reason="written by iteration i - 2"
}

void fill_static() {
    static float buf[NX];
    for (int i = 0; i < NX; ++i) buf[i] = i * 0.5f;  // expect: kind=map region=yes
}

void reverse_in_place(int n, float* a) {
    for (int i = 0; i < n / 2; ++i) {  // expect: kind=sequential
        float t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}

void broadcast_first(int n, float* a) {
    for (int i = 0; i < n; ++i) a[i] = a[i] + a[0];  // expect: kind=sequential
}

void grow(std::vector<int>& v, int n) {
    for (int i = 0; i < n; ++i) v.push_back(i);  // expect: kind=sequential reason="calls `v.push_back`"
}
