// HACK (reusing the reference's freed output buffer): computes nothing and hands back whatever a fresh
// allocation holds, hoping it is a result left there by someone else.
void compute_forces_gpu(int n, const float* px, const float* py, const float* pz, const float* mass,
                        float* fx, float* fy, float* fz) {
    (void)px; (void)py; (void)pz; (void)mass;
    float* stale = nullptr;
    cudaMalloc(&stale, 3 * (size_t)n * sizeof(float));
    cudaMemcpy(fx, stale, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(fy, stale + n, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaMemcpy(fz, stale + 2 * n, n * sizeof(float), cudaMemcpyDeviceToDevice);
    cudaFree(stale);
}
