#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>

struct sort_non_zero_is_nonzero {
    __host__ __device__ bool operator()(int v) const { return v != 0; }
};

void sort_non_zero_gpu(int n, int* x) {
    int *values, *positions;
    cudaMalloc(&values, (size_t)n * sizeof(int));
    cudaMalloc(&positions, (size_t)n * sizeof(int));
    thrust::device_ptr<int> px(x), pv(values), pp(positions);
    int m = (int)(thrust::copy_if(px, px + n, pv, sort_non_zero_is_nonzero()) - pv);
    thrust::copy_if(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), px, pp,
                    sort_non_zero_is_nonzero());
    thrust::sort(pv, pv + m);
    thrust::scatter(pv, pv + m, pp, px);
    cudaFree(values);
    cudaFree(positions);
}
