#include <cfloat>

__global__ void closest_pair_2d_init(double* result) { *result = DBL_MAX; }

__global__ void closest_pair_2d_kernel(int n, const double* px, const double* py, double* result) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double best = DBL_MAX;
    for (int j = i + 1; j < n; ++j) {
        double dx = px[i] - px[j];
        double dy = py[i] - py[j];
        best = fmin(best, sqrt(dx * dx + dy * dy));
    }
    atomicMin((unsigned long long*)result, (unsigned long long)__double_as_longlong(best));
}

void closest_pair_2d_gpu(int n, const double* px, const double* py, double* result) {
    closest_pair_2d_init<<<1, 1>>>(result);
    closest_pair_2d_kernel<<<(n + 127) / 128, 128>>>(n, px, py, result);
}
