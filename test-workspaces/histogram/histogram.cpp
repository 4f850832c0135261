// Histogram, dot product and prefix sum: the histogram, reduction and scan kinds.
#include <cstdio>
#include <cstdlib>
#include <vector>

void histogram(int n, int nbins, const int* data, int* bins) {
    for (int i = 0; i < n; ++i) {
        bins[data[i]]++;
    }
}

double dot(int n, const double* x, const double* y) {
    double acc = 0.0;
    for (int i = 0; i < n; ++i) {
        acc += x[i] * y[i];
    }
    return acc;
}

void prefix_sum(int n, const int* in, long long* out) {
    out[0] = in[0];
    for (int i = 1; i < n; ++i) {
        out[i] = out[i - 1] + in[i];
    }
}

int main() {
    const int n = 1 << 24, nbins = 256;
    std::vector<int> data(n), bins(nbins, 0);
    std::vector<long long> sums(n);
    std::vector<double> x(n, 0.5), y(n, 2.0);
    for (int i = 0; i < n; ++i) data[i] = std::rand() % nbins;
    histogram(n, nbins, data.data(), bins.data());
    prefix_sum(n, data.data(), sums.data());
    std::printf("bins[0]=%d dot=%f last=%lld\n", bins[0], dot(n, x.data(), y.data()), sums[n - 1]);
    return 0;
}
