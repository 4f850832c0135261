// One thread per body, positions of all partners staged through shared memory in tiles.
#define TILE 256

__global__ void forces_kernel(int n, const float* px, const float* py, const float* pz, const float* mass,
                              float* fx, float* fy, float* fz) {
    __shared__ float sx[TILE], sy[TILE], sz[TILE], sm[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = i < n ? px[i] : 0.0f, yi = i < n ? py[i] : 0.0f, zi = i < n ? pz[i] : 0.0f;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    const float soft = 1e-3f;
    for (int base = 0; base < n; base += TILE) {
        int j = base + threadIdx.x;
        sx[threadIdx.x] = j < n ? px[j] : 0.0f;
        sy[threadIdx.x] = j < n ? py[j] : 0.0f;
        sz[threadIdx.x] = j < n ? pz[j] : 0.0f;
        sm[threadIdx.x] = j < n ? mass[j] : 0.0f;
        __syncthreads();
        int m = n - base < TILE ? n - base : TILE;
        for (int k = 0; k < m; ++k) {
            float dx = sx[k] - xi, dy = sy[k] - yi, dz = sz[k] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + soft;
            float inv = 1.0f / sqrtf(r2 * r2 * r2);
            ax += sm[k] * dx * inv;
            ay += sm[k] * dy * inv;
            az += sm[k] * dz * inv;
        }
        __syncthreads();
    }
    if (i < n) { fx[i] = ax; fy[i] = ay; fz[i] = az; }
}

void compute_forces_gpu(int n, const float* px, const float* py, const float* pz, const float* mass,
                        float* fx, float* fy, float* fz) {
    forces_kernel<<<(n + TILE - 1) / TILE, TILE>>>(n, px, py, pz, mass, fx, fy, fz);
}
