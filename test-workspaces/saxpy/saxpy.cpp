// y = a*x + y over large vectors: the simplest loop worth offloading.
#include <cstdio>
#include <cstdlib>
#include <vector>

void saxpy(int n, float a, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {
        y[i] = a * x[i] + y[i];
    }
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : (1 << 24);
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * (i % 1000);
        y[i] = 1.0f;
    }
    saxpy(n, 2.0f, x.data(), y.data());
    double checksum = 0;
    for (int i = 0; i < n; ++i) checksum += y[i];
    std::printf("checksum %.3f\n", checksum);
    return 0;
}
