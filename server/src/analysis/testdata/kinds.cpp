// One loop per kind, and the sequential loops a careless analysis would call parallel.
// Each loop's first line says what the analysis must conclude:
//   expect: kind=<kind> [hot=no] [region=yes|no] [reason="<substring of the reason>"]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

void vadd(int n, const float* a, const float* b, float* c) {
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];  // expect: kind=map region=yes
}

void scale_in_place(int n, double k, double* x) {
    for (int i = 0; i < n; i++) {  // expect: kind=map region=yes
        x[i] *= k;
    }
}

double sum(int n, const double* x) {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += x[i];  // expect: kind=reduction region=yes reason="`s`"
    return s;
}

long product(int n, const long* x) {
    long p = 1;
    for (int i = 0; i < n; ++i) p = p * x[i];  // expect: kind=reduction region=yes
    return p;
}

float maximum(int n, const float* x) {
    float m = x[0];
    for (int i = 1; i < n; ++i) m = std::max(m, x[i]);  // expect: kind=reduction region=yes reason="max"
    return m;
}

bool all_positive(int n, const int* x) {
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && x[i] > 0;  // expect: kind=reduction region=yes
    return ok;
}

void count_values(int n, int nbins, const int* data, int* bins) {
    for (int i = 0; i < n; ++i) bins[data[i]] += 1;  // expect: kind=histogram region=yes
}

void weighted_histogram(int n, const int* key, const float* w, float* hist) {
    for (int i = 0; i < n; ++i) hist[key[i]] += w[i];  // expect: kind=histogram region=yes reason="data-dependent positions"
}

void smooth(int n, const float* in, float* out) {
    for (int i = 1; i < n - 1; ++i) out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];  // expect: kind=stencil region=yes
}

void running_product(int n, const double* a, double* p) {
    for (int i = 1; i < n; ++i) p[i] = p[i - 1] * a[i];  // expect: kind=scan region=yes
}

void in_place_prefix(int n, int* a) {
    for (int i = 1; i < n; ++i) a[i] += a[i - 1];  // expect: kind=scan region=yes
}

void recurrence(int n, float* u, const float* f) {
    for (int i = 1; i < n; ++i) u[i] = 0.5f * u[i - 1] + f[i];  // expect: kind=sequential reason="iteration i reads u[i - 1], written by iteration i - 1"
}

void distance_two(int n, float* a) {
    for (int i = 2; i < n; ++i) a[i] = a[i - 2] + 1.0f;  // expect: kind=sequential reason="written by iteration i - 2"
}

void shift_left(int n, float* a) {
    for (int i = 0; i < n - 1; ++i) a[i] = a[i + 1];  // expect: kind=sequential reason="which iteration i + 1 overwrites"
}

void overlapping_writes(int n, float* a) {
    for (int i = 0; i < n - 1; ++i) {  // expect: kind=sequential reason="write the same element"
        a[i] = 1.0f;
        a[i + 1] = 2.0f;
    }
}

void scatter(int n, const int* idx, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[idx[i]] = x[i];  // expect: kind=sequential reason="data-dependent position"
}

void gather(int n, const int* idx, const float* x, float* y) {
    for (int i = 0; i < n; ++i) y[i] = x[idx[i]];  // expect: kind=map region=yes
}

void same_element(int n, const float* x, float* out) {
    for (int i = 0; i < n; ++i) out[0] = x[i];  // expect: kind=sequential reason="same element `out[0]`"
}

float carried_scalar(int n, const float* x, float* y) {
    float prev = 0.0f;
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="read in the next"
        y[i] = x[i] - prev;
        prev = x[i];
    }
    return prev;
}

void shared_temporary(int n, const float* x, float* y) {
    float t;
    for (int i = 0; i < n; ++i) {  // expect: kind=map region=yes
        t = x[i] * 2.0f;
        y[i] = t + 1.0f;
    }
}

int find_first(int n, const int* a, int key) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="`return`"
        if (a[i] == key) return i;
    }
    return -1;
}

void with_break(int n, float* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="`break`"
        if (a[i] < 0.0f) break;
        a[i] = std::sqrt(a[i]);
    }
}

void with_continue(int n, float* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=map region=yes
        if (a[i] < 0.0f) continue;
        a[i] = std::sqrt(a[i]);
    }
}

float helper(float x);

void unknown_call(int n, float* a) {
    for (int i = 0; i < n; ++i) a[i] = helper(a[i]);  // expect: kind=sequential reason="calls `helper`"
}

void prints(int n, const float* a) {
    for (int i = 0; i < n; ++i) std::cout << a[i] << '\n';  // expect: kind=sequential reason="I/O"
}

void allocates(int n, float** rows) {
    for (int i = 0; i < n; ++i) rows[i] = new float[16];  // expect: kind=sequential reason="allocates"
}

void accumulate_through_pointer(int n, const float* a, float* out) {
    for (int i = 0; i < n; ++i) *out += a[i];  // expect: kind=reduction region=yes reason="`*out`"
}

void through_local_pointer(int n, const int* idx, float* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="writes through"
        float* q = a + idx[i];
        *q = 1.0f;
    }
}

void through_reference(int n, float* a) {
    for (int i = 1; i < n; ++i) {  // expect: kind=sequential reason="local reference `prev`"
        float& prev = a[i - 1];
        a[i] = prev * 0.5f;
    }
}

void private_buffer(int n, const float* x, float* y) {
    for (int i = 0; i < n; ++i) {  // expect: kind=map region=yes
        float tmp[2];
        tmp[0] = x[i];
        tmp[1] = 2.0f * x[i];
        y[i] = tmp[0] + tmp[1];
    }
}

void tiny(float* w) {
    for (int k = 0; k < 3; ++k) w[k] = 0.0f;  // expect: kind=map hot=no region=no reason="not hot"
}

void empty_body(int n) {
    for (int i = 0; i < n; ++i) {  // expect: kind=map hot=no region=no
    }
}

void counter_changed(int n, float* a) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="changes the loop counter"
        a[i] = 0.0f;
        i += a[i] > 0.0f;
    }
}

void pointer_walk(float* begin, float* end) {
    for (float* p = begin; p != end; ++p) *p = 0.0f;  // expect: kind=sequential
}

void countdown(int n, const float* b, float* a) {
    for (int i = n - 1; i >= 0; --i) a[i] = 2.0f * b[i];  // expect: kind=map region=yes
}

void strided(int n, float* a) {
    for (int i = 0; i < n; i += 2) a[i] = 0.5f * a[i + 1];  // expect: kind=sequential
}

int convergence(double x) {
    int steps = 0;
    double r = x;
    while (std::fabs(r * r - x) > 1e-9) {  // expect: kind=sequential reason="data-dependent exit"
        r = 0.5 * (r + x / r);
        ++steps;
    }
    return steps;
}

void do_loop(int n, float* a) {
    int i = 0;
    do {  // expect: kind=sequential
        a[i] = 0.0f;
        ++i;
    } while (i < n);
}

int smallest_odd(int n, const int* x) {
    int smallest = x[0];
    for (int i = 1; i < n; ++i) {  // expect: kind=reduction region=yes
        if (x[i] % 2 == 1 && x[i] < smallest) smallest = x[i];
    }
    return smallest;
}

float largest_where(int n, const float* x, const int* keep) {
    float best = -1.0f;
    for (int i = 0; i < n; ++i) {  // expect: kind=reduction region=yes
        if (keep[i] != 0 && best < x[i]) {
            best = x[i];
        }
    }
    return best;
}

float capped_max(int n, const float* x) {
    float m = 0.0f;
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential
        if (m < 10.0f && m < x[i]) m = x[i];
    }
    return m;
}

long long closest(int n, const double* x, double target) {
    double best = 1e300;
    long long at = -1;
    for (int i = 0; i < n; ++i) {  // expect: kind=reduction region=yes
        double d = x[i] > target ? x[i] - target : target - x[i];
        if (d < best) {
            best = d;
            at = i;
        }
    }
    return at;
}

int last_max(int n, const int* x) {
    int m = x[0];
    int k = 0;
    for (int i = 1; i < n; ++i) {  // expect: kind=reduction region=yes
        if (x[i] >= m) { m = x[i]; k = i; }
    }
    return k;
}

// A masked key stays inside the fixed table it counts into; a mask wider than the table does not.
unsigned radix_counts(const unsigned* keys, int n) {
    unsigned hist[256 * 2] = {0};
    for (int i = 0; i < n; ++i) {  // expect: kind=histogram region=yes
        unsigned k = keys[i];
        hist[k & 0xFF]++;
        hist[256 + ((k >> 8) & 0xFF)]++;
    }
    return hist[0] + hist[256];
}

unsigned too_wide(const unsigned* keys, int n) {
    unsigned hist[256] = {0};
    for (int i = 0; i < n; ++i) hist[keys[i] & 0x1FF]++;  // expect: kind=histogram region=no
    return hist[0];
}

// NX comes from a header this file does not show: a size the call site passes by name.
void fill_unseen(double* x) {
    for (int i = 0; i < NX + 1; i++) x[i] = 1.0;  // expect: kind=map region=yes
}
