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

// Pair forces from a neighbour list: every touch of `f` adds into it (`-=` is adding the
// negation), some at positions read from data, so the updates commute: a histogram. A plain read
// of `f`, or a second operator, breaks that.
void pair_forces(int n, const int* list, int per, const double* x, double* f) {
    for (int i = 0; i < n; i++) {  // expect: kind=histogram
        const int* neigh = &list[i * per];
        for (int k = 0; k < per; k++) {  // expect: kind=histogram
            int j = neigh[k];
            double d = x[i] - x[j];
            f[i] += d;
            f[j] -= d;
        }
    }
    for (int i = 0; i < n; i++) {  // expect: kind=sequential reason="cannot compare with the write"
        int j = list[i];
        f[i] += f[j];
        f[j] -= 1.0;
    }
    for (int i = 0; i < n; i++) {  // expect: kind=sequential
        int j = list[i];
        f[i] += x[i];
        f[j] *= 2.0;
    }
}

// A local pointer into a member array the loop does not change reads that array; one into a
// member array the loop writes may alias its writes.
struct Neighbours { int* ids; int per; };
void through_member(int n, const Neighbours& nb, const double* x, double* out) {
    for (int i = 0; i < n; i++) {  // expect: kind=map
        const int* ids = &nb.ids[i * nb.per];
        double s = 0.0;
        for (int k = 0; k < nb.per; k++) s += x[ids[k]];  // expect: kind=reduction
        out[i] = s;
    }
}
void through_written_member(int n, Neighbours& nb, double* out) {
    for (int i = 0; i < n; i++) {  // expect: kind=sequential reason="through the local pointer `ids`"
        int* ids = &nb.ids[i * nb.per];
        out[i] = ids[1];
        nb.ids[i] = 0;
    }
}

// A local of an array typedef is an array of the iteration's own.
typedef double vec3[3];
void own_vector(int n, const double* a, double* out) {
    for (int i = 0; i < n; i++) {  // expect: kind=map
        vec3 d;
        for (int m = 0; m < 3; m++) d[m] = a[3 * i + m];  // expect: kind=map hot=no
        out[i] = d[0] + d[1] + d[2];
    }
}

// A temporary declared before the loop is private when the next mention after the loop is a
// `for` that assigns it afresh; not when that `for` reads it first.
void count_rows(int n, const int* col, int* rows, int m) {
    int i, j;
    for (i = 0; i < n; i++) {  // expect: kind=histogram
        j = col[i] + 1;
        rows[j] = rows[j] + 1;
    }
    for (j = 1; j < m; j++)  // expect: kind=scan
        rows[j] = rows[j] + rows[j - 1];
}
void count_rows_on(int n, const int* col, int* rows, int m) {
    int i, j;
    for (i = 0; i < n; i++) {  // expect: kind=sequential reason="`j` is declared outside the loop"
        j = col[i] + 1;
        rows[j] = rows[j] + 1;
    }
    for (j = j + 1; j < m; j++)  // expect: kind=scan
        rows[j] = rows[j] + rows[j - 1];
}

// `a[j] = a[j] + a[j-1]` is `a[j] += a[j-1]`, a prefix scan; adding the next element, which a
// later iteration changes, is no scan.
void prefix_in_place(int m, int* rows) {
    for (int j = 1; j < m; j++)  // expect: kind=scan
        rows[j] = rows[j] + rows[j - 1];
    for (int j = 0; j < m - 1; j++)  // expect: kind=sequential
        rows[j] = rows[j] + rows[j + 1];
    for (int j = 1; j < m; j++)  // expect: kind=sequential
        rows[j] = rows[j] - rows[j - 1];
}

// A local pointer through a cast reads its array in other units: fine where the loop never
// writes that array, refused where it does.
void channel_sums(const void* block, int* mu) {
    for (int ch = 0; ch < 3; ch++) {  // expect: kind=map hot=no
        const unsigned char* bp = ((const unsigned char*)block) + ch;
        int muv = bp[0];
        for (int i = 4; i < 64; i += 4) muv += bp[i];  // expect: kind=reduction
        mu[ch] = muv;
    }
}
void channel_shift(unsigned char* block, int n) {
    for (int ch = 0; ch < n; ch++) {  // expect: kind=sequential reason="through the local pointer `bp`"
        const unsigned char* bp = ((const unsigned char*)block) + ch;
        block[ch + 1] = bp[0];
    }
}

// A fixed element accumulated from other elements of its array that the counter never reaches
// is a reduction; one the counter can reach (`i` from `m`) is not.
void fold_tail(int m, int top, int* counts) {
    for (int i = m + 1; i <= top; i++)  // expect: kind=reduction
        counts[m] += counts[i];
    for (int i = m; i <= top; i++)  // expect: kind=sequential
        counts[m] += counts[i];
    for (int i = 0; i < m; i++)  // expect: kind=sequential
        counts[m] += counts[i + 1];
}

// `assert` checks and stops the program when the check fails: no side effect a parallel run
// could reorder. What the check itself changes still counts.
void checked(int n, const int* box, double* out, int* seen) {
    for (int i = 0; i < n; i++) {  // expect: kind=map
        assert(box[i] >= 0);
        out[i] = 2.0 * box[i];
    }
    for (int i = 0; i < n; i++) {  // expect: kind=sequential reason="every iteration writes the same element `seen[0]`"
        assert((seen[0] = i) >= 0);
        out[i] = seen[0];
    }
}

// A helper whose body has preprocessor branches is pure when every branch is; the name an
// `#ifdef` tests is no variable of it.
static int lerp13(int a, int b) {
#ifdef LERP_ROUNDING_BIAS
    return a + ((b - a) * 0x55 + 128) / 256;
#else
    return (2 * a + b) / 3;
#endif
}
static int hits = 0;
static int lerp_counted(int a, int b) {
#ifdef LERP_COUNT
    hits = hits + 1;
#endif
    return (2 * a + b) / 3;
}
void lerp_all(int n, const int* a, const int* b, int* out) {
    for (int i = 0; i < n; i++)  // expect: kind=map
        out[i] = lerp13(a[i], b[i]);
    for (int i = 0; i < n; i++)  // expect: kind=sequential reason="lerp_counted"
        out[i] = lerp_counted(a[i], b[i]);
}

// Banerjee's test: a halo copy reads rows the loop never writes, whichever iterations meet.
void mirror_rows(int x, int y, int h, int depth, double* buf) {
    for (int j = 0; j < depth; ++j)  // expect: kind=map
        for (int k = h; k < x - h; ++k)  // expect: kind=map
            buf[k + (y - h + j) * x] = buf[k + (y - h - 1 - j) * x];
}
// An offset only the subscript names may be negative: no proof.
void shift_by(int n, int off, float* a) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential
        a[i + n + off] = a[i];
}
// A counter that starts below zero: the signs the proof needs are not known.
void around_zero(int n, int r, float* a) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential
        for (int k = -r; k <= r; ++k)  // expect: kind=sequential
            a[i * k + n] = a[i];
}
