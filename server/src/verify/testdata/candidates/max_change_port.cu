// max_change of test-workspaces/stencil2d (loop at line 17): the port generator's kernel (`cuda-offload offload jacobi.cpp --line 18 --strategy port`), kept for check-build and scripts/e2e-workspaces.
// Starting kernel written by cuda-offload's port generator (not a model): block reduction with warp shuffles and one atomic per block (max of `worst`).
#include <cuda/std/limits>
template <typename T> __host__ __device__ inline const T& port_max(const T& a, const T& b) { return (a < b) ? b : a; }
template <typename T> __host__ __device__ inline const T& port_min(const T& a, const T& b) { return (b < a) ? b : a; }
template <typename T> __host__ __device__ inline void port_swap(T& a, T& b) { T t = a; a = b; b = t; }

template <typename T> __device__ __forceinline__ T port_shfl_down(T v, int offset) {
    if constexpr (sizeof(T) < 4) {
        return (T)__shfl_down_sync(0xffffffffu, (int)v, offset);
    } else {
        return __shfl_down_sync(0xffffffffu, v, offset);
    }
}

template <typename T, typename Op> __device__ T port_block_reduce(T v, T identity, Op op) {
    __shared__ T port_warps[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, port_shfl_down(v, offset));
    __syncthreads();
    if (lane == 0) port_warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? port_warps[lane] : identity;
        for (int offset = 16; offset > 0; offset /= 2) v = op(v, port_shfl_down(v, offset));
    }
    return v;
}

__global__ void max_change_loop17_port_kernel(int n, int m, const float* a, const float* b, float* worst) {
    float port_acc_worst = -cuda::std::numeric_limits<float>::infinity();
    const long long port_trips = ((long long)(n * m) > (long long)(0) ? ((long long)(n * m) - (long long)(0) + 0) / 1 : 0LL);
    for (long long port_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; port_t < port_trips; port_t += (long long)gridDim.x * blockDim.x) {
        int k = (int)((0) + port_t * (1LL));
        {
        (port_acc_worst) = std::fmax((port_acc_worst), std::fabs(a[k] - b[k]));
    }
    }
    port_acc_worst = port_block_reduce<float>(port_acc_worst, -cuda::std::numeric_limits<float>::infinity(), [](const float& a, const float& b) -> float { return (a < b) ? b : a; });
    if (threadIdx.x == 0) {
            unsigned int* port_w = reinterpret_cast<unsigned int*>(worst);
            unsigned int port_old = *port_w, port_seen;
            do {
                port_seen = port_old;
                float port_cur, port_next;
                memcpy(&port_cur, &port_seen, sizeof port_cur);
                port_next = (port_cur < port_acc_worst) ? port_acc_worst : port_cur;
                unsigned int port_bits;
                memcpy(&port_bits, &port_next, sizeof port_bits);
                port_old = atomicCAS(port_w, port_seen, port_bits);
            } while (port_old != port_seen);
    }
}

void max_change_loop17_gpu(int n, int m, const float* a, const float* b, float* worst) {
    const long long port_trips = ((long long)(n * m) > (long long)(0) ? ((long long)(n * m) - (long long)(0) + 0) / 1 : 0LL);
    if (port_trips <= 0) return;
    long long port_blocks = (port_trips + 255) / 256;
    if (port_blocks > 1056) port_blocks = 1056;
    max_change_loop17_port_kernel<<<(unsigned)port_blocks, 256>>>(n, m, a, b, worst);
}
