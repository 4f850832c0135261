#include <thrust/device_ptr.h>
#include <thrust/sort.h>

void kth_smallest_gpu(int n, const int* x, int k, int* result) {
    int* y;
    cudaMalloc(&y, (size_t)n * sizeof(int));
    cudaMemcpy(y, x, (size_t)n * sizeof(int), cudaMemcpyDeviceToDevice);
    thrust::device_ptr<int> p(y);
    thrust::sort(p, p + n);
    cudaMemcpy(result, y + (k - 1), sizeof(int), cudaMemcpyDeviceToDevice);
    cudaFree(y);
}
