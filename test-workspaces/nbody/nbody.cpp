// All-pairs gravitational forces: an O(n^2) nest (map over bodies, reduction over partners) and a
// position update map.
#include <cmath>
#include <cstdio>
#include <vector>

void compute_forces(int n, const float* px, const float* py, const float* pz, const float* mass,
                    float* fx, float* fy, float* fz) {
    const float soft = 1e-3f;
    for (int i = 0; i < n; ++i) {
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = px[j] - px[i];
            float dy = py[j] - py[i];
            float dz = pz[j] - pz[i];
            float r2 = dx * dx + dy * dy + dz * dz + soft;
            float inv = 1.0f / std::sqrt(r2 * r2 * r2);
            ax += mass[j] * dx * inv;
            ay += mass[j] * dy * inv;
            az += mass[j] * dz * inv;
        }
        fx[i] = ax;
        fy[i] = ay;
        fz[i] = az;
    }
}

void integrate(int n, float dt, const float* fx, const float* fy, const float* fz, float* vx, float* vy,
               float* vz, float* px, float* py, float* pz) {
    for (int i = 0; i < n; ++i) {
        vx[i] += dt * fx[i];
        vy[i] += dt * fy[i];
        vz[i] += dt * fz[i];
        px[i] += dt * vx[i];
        py[i] += dt * vy[i];
        pz[i] += dt * vz[i];
    }
}

int main() {
    const int n = 16384;
    std::vector<float> px(n), py(n), pz(n), vx(n), vy(n), vz(n), fx(n), fy(n), fz(n), mass(n, 1.0f);
    for (int i = 0; i < n; ++i) {
        px[i] = std::cos(0.1f * i);
        py[i] = std::sin(0.1f * i);
        pz[i] = 0.001f * i;
    }
    for (int step = 0; step < 10; ++step) {
        compute_forces(n, px.data(), py.data(), pz.data(), mass.data(), fx.data(), fy.data(), fz.data());
        integrate(n, 0.01f, fx.data(), fy.data(), fz.data(), vx.data(), vy.data(), vz.data(), px.data(),
                  py.data(), pz.data());
    }
    std::printf("p0 = (%f, %f, %f)\n", px[0], py[0], pz[0]);
    return 0;
}
