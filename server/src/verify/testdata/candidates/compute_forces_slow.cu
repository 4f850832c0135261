// Correct, one thread for all bodies.
__global__ void forces_kernel(int n, const float* px, const float* py, const float* pz, const float* mass,
                              float* fx, float* fy, float* fz) {
    for (int i = 0; i < n; ++i) {
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
            float r2 = dx * dx + dy * dy + dz * dz + 1e-3f;
            float inv = 1.0f / sqrtf(r2 * r2 * r2);
            ax += mass[j] * dx * inv;
            ay += mass[j] * dy * inv;
            az += mass[j] * dz * inv;
        }
        fx[i] = ax; fy[i] = ay; fz[i] = az;
    }
}

void compute_forces_gpu(int n, const float* px, const float* py, const float* pz, const float* mass,
                        float* fx, float* fy, float* fz) {
    forces_kernel<<<1, 1>>>(n, px, py, pz, mass, fx, fy, fz);
}
