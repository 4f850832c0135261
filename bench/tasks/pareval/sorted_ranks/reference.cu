#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/sort.h>

void sorted_ranks_gpu(int n, const float* x, unsigned long long* ranks) {
    float* sorted;
    cudaMalloc(&sorted, (size_t)n * sizeof(float));
    cudaMemcpy(sorted, x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice);
    thrust::device_ptr<float> s(sorted);
    thrust::device_ptr<const float> v(x);
    thrust::device_ptr<unsigned long long> r(ranks);
    thrust::sort(s, s + n);
    thrust::lower_bound(s, s + n, v, v + n, r);
    cudaFree(sorted);
}
