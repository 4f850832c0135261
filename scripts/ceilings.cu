// The roofline ceilings of a GPU: streaming bandwidth (copy and saxpy, best of 10 over 1 GiB arrays) and FP32 FMA
// throughput (8 independent chains per thread). Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 scripts/ceilings.cu -o /tmp/ceilings && /tmp/ceilings
#include <cstdio>
#include <cuda_runtime.h>
__global__ void copyk(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void saxpyk(const float4* __restrict__ x, float4* __restrict__ y, size_t n, float a) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 p = x[i], q = y[i]; q.x += a * p.x; q.y += a * p.y; q.z += a * p.z; q.w += a * p.w; y[i] = q; }
}
__global__ void fmak(float* out, int iters, float s) {
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int u = 0; u < 16; ++u) { a0 = fmaf(a0, s, 1.f); a1 = fmaf(a1, s, 1.f); a2 = fmaf(a2, s, 1.f); a3 = fmaf(a3, s, 1.f);
      a4 = fmaf(a4, s, 1.f); a5 = fmaf(a5, s, 1.f); a6 = fmaf(a6, s, 1.f); a7 = fmaf(a7, s, 1.f); }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  size_t n = (size_t)1 << 28; // floats: 1 GiB per array
  float4 *a, *b; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4); cudaMemset(a, 0, n * 4); cudaMemset(b, 0, n * 4);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  int blocks = p.multiProcessorCount * 8; float best_copy = 1e9, best_saxpy = 1e9, best_fma = 1e9, ms;
  for (int r = 0; r < 10; ++r) {
    cudaEventRecord(e0); copyk<<<blocks, 512>>>(a, b, n / 4); cudaEventRecord(e1); cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1); if (ms < best_copy) best_copy = ms;
    cudaEventRecord(e0); saxpyk<<<blocks, 512>>>(a, b, n / 4, 0.5f); cudaEventRecord(e1); cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1); if (ms < best_saxpy) best_saxpy = ms;
  }
  float* out; int fb = p.multiProcessorCount * 16, ft = 256, iters = 4096; cudaMalloc(&out, fb * ft * 4);
  for (int r = 0; r < 5; ++r) {
    cudaEventRecord(e0); fmak<<<fb, ft>>>(out, iters, 0.999f); cudaEventRecord(e1); cudaEventSynchronize(e1);
    cudaEventElapsedTime(&ms, e0, e1); if (ms < best_fma) best_fma = ms;
  }
  double copy_bps = 2.0 * n * 4 / (best_copy * 1e-3), saxpy_bps = 3.0 * n * 4 / (best_saxpy * 1e-3);
  double flops = 2.0 * fb * ft * (double)iters * 16 * 8 / (best_fma * 1e-3);
  printf("{\"gpu\": \"%s\", \"sms\": %d, \"copy_bytes_per_s\": %.4e, \"saxpy_bytes_per_s\": %.4e, \"fp32_fma_flops_per_s\": %.4e, \"error\": \"%s\"}\n",
         p.name, p.multiProcessorCount, copy_bps, saxpy_bps, flops, cudaGetErrorString(cudaGetLastError()));
}
