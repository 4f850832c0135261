// Macros, templates, lambdas and range-for loops.
#include <algorithm>
#include <cmath>
#include <vector>

#define N 4096
#define SMALL 4
#define SQ(x) ((x) * (x))
#define BUMP(x) ((x)++)

void squares(float* out, const float* in) {
    for (int i = 0; i < N; ++i) out[i] = SQ(in[i]);  // expect: kind=map region=yes
}

void four(float* out) {
    for (int i = 0; i < SMALL; ++i) out[i] = 1.0f;  // expect: kind=map hot=no
}

void bumps(int n, int* a) {
    for (int i = 0; i < n; ++i) BUMP(a[i]);  // expect: kind=sequential reason="calls `BUMP`"
}

template <typename T>
void axpy(int n, T a, const T* x, T* y) {
    for (int i = 0; i < n; ++i) y[i] += a * x[i];  // expect: kind=map region=no reason="each iteration i"
}

template <typename T>
T total(const std::vector<T>& v) {
    T s = T();
    for (const auto& x : v) s += x;  // expect: kind=reduction region=no
    return s;
}

void scale(std::vector<float>& v, float k) {
    for (auto& x : v) x *= k;  // expect: kind=map region=yes reason="own element of `v`"
}

float largest(const std::vector<float>& v) {
    float m = -1e30f;
    for (std::size_t i = 0; i < v.size(); ++i) m = std::max(m, v[i]);  // expect: kind=reduction region=yes
    return m;
}

void apply_lambda(int n, float* a) {
    auto twice = [](float x) { return 2.0f * x; };
    for (int i = 0; i < n; ++i) a[i] = twice(a[i]);  // expect: kind=sequential reason="calls `twice`"
}

void loop_in_lambda(int n, float* a) {
    auto fill = [&]() {
        for (int i = 0; i < n; ++i) a[i] = 1.0f;  // expect: kind=map region=no reason="each iteration i"
    };
    fill();
}

void for_each_call(std::vector<float>& v) {
    std::for_each(v.begin(), v.end(), [](float& x) { x = 0.0f; });
    for (int i = 0; i < 10; ++i) v[i] = 1.0f;  // expect: kind=map hot=no
}

struct Particle {
    float x, v;
};

void move(int n, Particle* p, float dt) {
    for (int i = 0; i < n; ++i) p[i].x += dt * p[i].v;  // expect: kind=map region=yes
}

static inline float sq(float x) { return x * x; }

float norm2(float x, float y) {
    float s = sq(x) + sq(y);
    return std::sqrt(s);
}

int counter = 0;

int next_id(int x) {
    counter += x;
    return counter;
}

void with_pure_helpers(int n, const float* x, const float* y, float* r) {
    for (int i = 0; i < n; ++i) r[i] = norm2(x[i], y[i]);  // expect: kind=map region=yes
}

void with_impure_helper(int n, int* ids) {
    for (int i = 0; i < n; ++i) ids[i] = next_id(i);  // expect: kind=sequential reason="calls `next_id`"
}

void static_local(int n, int* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="`calls`"
        static int calls = 0;
        calls++;
        a[i] = calls;
    }
}
