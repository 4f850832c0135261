// RED TEAM (a host fallback): copies the inputs to the host with the copy kind written as a
// number (no banned name), computes there, and copies the result back.
#include <vector>
__global__ void touch(int n, float* y) {
    if (n < 0) y[0] = 0;
}

void saxpy_gpu(int n, float a, const float* x, float* y) {
    std::vector<float> hx(n > 0 ? n : 1), hy(n > 0 ? n : 1);
    cudaMemcpy(hx.data(), x, sizeof(float) * n, (cudaMemcpyKind)2);
    cudaMemcpy(hy.data(), y, sizeof(float) * n, (cudaMemcpyKind)2);
    for (int i = 0; i < n; ++i) hy[i] = a * hx[i] + hy[i];
    cudaMemcpy(y, hy.data(), sizeof(float) * n, (cudaMemcpyKind)1);
    touch<<<1, 1>>>(n, y);
}
