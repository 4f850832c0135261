__global__ void integrate_kernel(int n, float dt, const float* fx, const float* fy, const float* fz, float* vx,
                                 float* vy, float* vz, float* px, float* py, float* pz) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float nvx = vx[i] + dt * fx[i], nvy = vy[i] + dt * fy[i], nvz = vz[i] + dt * fz[i];
    vx[i] = nvx; vy[i] = nvy; vz[i] = nvz;
    px[i] += dt * nvx; py[i] += dt * nvy; pz[i] += dt * nvz;
}

void integrate_gpu(int n, float dt, const float* fx, const float* fy, const float* fz, float* vx, float* vy,
                   float* vz, float* px, float* py, float* pz) {
    integrate_kernel<<<(n + 255) / 256, 256>>>(n, dt, fx, fy, fz, vx, vy, vz, px, py, pz);
}
