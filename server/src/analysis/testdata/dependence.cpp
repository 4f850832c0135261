// Dependence, purity and kind mechanisms of issue #17's recall round: for each, a loop the
// analysis must call parallel (with its kind) and the near-miss that must stay sequential.

#define NEIGHBOURS(a) (a[i - 1] + a[i + 1])
#define TWICE_NEIGHBOURS(a) (NEIGHBOURS(a) * 2.0)
#define SQUARE(x) ((x) * (x))

// Reads of an iteration's own block are a gather (map); neighbours of other iterations are a
// stencil.
void own_components(int n, const double* f, double* v) {
    for (int i = 0; i < n; i++) {  // expect: kind=map
        v[3 * i] = f[3 * i] + f[3 * i + 1] + f[3 * i + 2];
    }
}

void other_blocks(int n, const double* f, double* v) {
    for (int i = 1; i < n - 1; i++) {  // expect: kind=stencil
        v[3 * i] = f[3 * i - 3] + f[3 * i + 3];
    }
}

void own_rows(int n, const double (*p)[3], double* out) {
    for (int i = 0; i < n; i++) {  // expect: kind=map
        out[i] = p[i][0] * p[i][0] + p[i][1] * p[i][1] + p[i][2] * p[i][2];
    }
}

// A second counter the header advances is a function of the tested one, in either direction.
void two_counters(int base, const int* count, double* p, const double* f, double dt) {
    for (int off = 64 * base, k = 0; k < count[base]; k++, off++) {  // expect: kind=map
        p[off] += dt * f[off];
    }
}

void reversed_copy(int n, double* a) {
    for (int i = n - 1, j = 0; i >= 0; i--, j++) {  // expect: kind=sequential
        a[j] = a[i];
    }
}

void counter_changed_in_body(int n, double* a) {
    for (int k = 0, off = 0; k < n; k++, off++) {  // expect: kind=sequential
        off += k;
        a[off] = 1.0;
    }
}

// A pure macro is read as its expansion: the neighbours it reads make a stencil, or a carried
// dependence when the loop writes the array it reads.
void macro_stencil(int n, const double* w, double* v) {
    for (int i = 1; i < n - 1; i++)  // expect: kind=stencil
        v[i] = TWICE_NEIGHBOURS(w) + SQUARE(w[i]);
}

void macro_in_place(int n, double* u) {
    for (int i = 1; i < n - 1; i++)  // expect: kind=sequential reason="iteration i reads u[i - 1], written by iteration i - 1"
        u[i] = NEIGHBOURS(u);
}

// A temporary of an inner loop that the enclosing loop assigns afresh at the top of its body
// before any other use is private; one the enclosing loop reads first is carried.
void temporary_killed_by_outer(int np, int n, const double* x, double* q, double seed,
                               double* out) {
    double t, acc = 0.0, u;
    for (int k = 0; k < np; k++) {  // expect: kind=sequential
        t = seed * k;
        acc = acc * 0.5 + t;
        if (k > 2) {
            u = 1.0;
        }
        u = t;
        for (int i = 1; i < n; i++) {  // expect: kind=map
            u = x[i];
            q[i] = u;
        }
        for (int i = 1; i < n; i++) {  // expect: kind=map
            t = x[i] * 2.0;
            q[k * n + i] = t * t;
        }
    }
    *out = acc;
}

void temporary_read_by_outer(int np, int n, const double* x, double* q) {
    double t = 0.0;
    for (int k = 0; k < np; k++) {  // expect: kind=sequential
        q[k * n] = t;
        for (int i = 1; i < n; i++) {  // expect: kind=sequential
            t = x[i] * 2.0;
            q[k * n + i] = t * t;
        }
    }
}

// `m = MIN(m, x)` through a macro whose body picks the smaller argument, on a scalar or on a
// field of a fixed element, is a min reduction; two operators on one element are not.
#define PICK_MIN(a, b) ((a < b) ? a : b)
#define PICK_MAX(a, b) ((a > b) ? a : b)
#define FIRST_OF(a, b) ((a < b) ? b : b)
struct Range { double lo; double hi; };

void extremes(int n, int c, const double* d, Range* r, double* out) {
    double m = d[0];
    for (int i = 0; i < n; i++)  // expect: kind=reduction
        m = PICK_MAX(m, d[i]);
    for (int i = 0; i < n; i++) {  // expect: kind=reduction
        r[c].lo = PICK_MIN(r[c].lo, d[i]);
        r[c].hi = PICK_MAX(r[c].hi, d[i]);
    }
    for (int i = 0; i < n; i++)  // expect: kind=sequential
        m = FIRST_OF(m, d[i]);
    for (int i = 0; i < n; i++) {  // expect: kind=sequential
        r[c].lo = PICK_MIN(r[c].lo, d[i]);
        r[c].lo += d[i];
    }
    *out = m;
}

// A halo filled from its mirror image: written and read positions move in opposite directions
// and never meet in two different iterations; one whose mirror overlaps the halo does.
void mirror_halo(int j, int x, int h, int depth, double* buf) {
    for (int k = 0; k < depth; k++) {  // expect: kind=map
        int base = j * x;
        buf[base + (h - k - 1)] = buf[base + (h + k)];
    }
}

void mirror_overlap(int x, int h, int depth, double* buf) {
    for (int k = 0; k < depth; k++)  // expect: kind=sequential
        buf[h - k + 4] = buf[h + k];
}
