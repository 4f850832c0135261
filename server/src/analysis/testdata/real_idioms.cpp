// General C/C++ idioms that real code uses (issue #17): casts through macros and typedefs, bounds
// read from structs and accessors, private temporaries, argmax and flags, interleaved fields, row
// pointers, and the hazards that must stay sequential (any stream, a macro that hides a call).
#include <cmath>
#include <fstream>
#include <vector>

#define DATA_TYPE double
#define SCALE(x) ((x) * 2.0) /* doubles; a comment = is not code */
#define LOG_VALUE(x) log_value(x)
typedef float real_t;

struct Input { int lookups; int n; };
void log_value(double v);

void casts(int n, const double* x, DATA_TYPE* y) {
    for (int i = 0; i < n; i++)  // expect: kind=map region=yes
        y[i] = (DATA_TYPE)(x[i]) + real_t(2.0) + SCALE(x[i]) + FABS(x[i]);
}

void struct_bound(Input in, const int* key, int* out) {
    for (int i = 0; i < in.lookups; i++)  // expect: kind=map
        out[i] = key[i] + 1;
}

void pointer_bound(const int* dimX, const float* a, float* b) {
    for (int i = 0; i < *dimX; ++i)  // expect: kind=map
        b[i] = a[i] * 0.5f;
}

void blocked(int n, int block, const float* a, float* b) {
    for (int j = 0; j < n / block; ++j)  // expect: kind=map
        b[j] = a[j * block];
}

void lookahead(int n, const float* x, float* z) {
    for (int i = 0; i + 4 < n; i++)  // expect: kind=stencil region=yes
        z[i] = x[i + 4] - x[i];
}

float private_then_used(int n, const float* x, float* y) {
    float t = 0.0f;
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential reason="declare it inside the loop"
        t = x[i] * 2.0f;
        y[i] = t + 1.0f;
    }
    return t;
}

void conditional_temporary(int n, const float* x, float* y) {
    float t = 0.0f;
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential
        if (x[i] > 0) t = x[i];
        y[i] = t;
    }
}

void row_sums_private(int rows, int cols, const double* a, double* s) {
    double acc;
    for (int r = 0; r < rows; ++r) {  // expect: kind=map region=yes
        acc = 0.0;
        for (int c = 0; c < cols; ++c) acc += a[r * cols + c];  // expect: kind=reduction
        s[r] = acc;
    }
}

int argmax(int n, const float* a) {
    float best = a[0];
    int at = 0;
    for (int i = 1; i < n; ++i) {  // expect: kind=reduction region=yes
        if (a[i] > best) {
            best = a[i];
            at = i;
        }
    }
    return at;
}

float min_value(int n, const float* a) {
    float m = 1e30f;
    for (int i = 0; i < n; ++i)  // expect: kind=reduction
        if (m > a[i]) m = a[i];
    return m;
}

int any_negative(int n, const float* a) {
    int bad = 0;
    for (int i = 0; i < n; ++i)  // expect: kind=reduction region=yes
        if (a[i] < 0) bad = 1;
    return bad;
}

int last_negative(int n, const float* a) {
    int where = -1;
    for (int i = 0; i < n; ++i)  // expect: kind=sequential
        if (a[i] < 0) where = i;
    return where;
}

void interleaved(int n, const float* f, float* acc) {
    for (int i = 0; i < n; ++i) {  // expect: kind=map region=yes
        acc[3 * i] = f[i];
        acc[3 * i + 1] = 2.0f * f[i];
        acc[3 * i + 2] = 3.0f * f[i];
    }
}

void overlapping(int n, float* acc) {
    for (int i = 0; i < n; ++i) {  // expect: kind=sequential
        acc[2 * i] = 1.0f;
        acc[2 * i + 2] += 1.0f;
    }
}

void row_pointer(int rows, int cols, const float* in, float* out) {
    for (int r = 0; r < rows; ++r) {  // expect: kind=map region=yes
        const float* row = in + r * cols;
        float* dst = &out[r * cols];
        for (int c = 0; c < cols; ++c) dst[c] = row[c] * 2.0f;  // expect: kind=map
    }
}

void row_pointer_overlap(int rows, int cols, float* a) {
    for (int r = 1; r < rows; ++r) {  // expect: kind=sequential
        const float* prev = a + (r - 1) * cols;
        float* cur = a + r * cols;
        for (int c = 0; c < cols; ++c) cur[c] += prev[c];  // expect: kind=map
    }
}

void write_file(int n, const float* a, std::ofstream& file) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential reason="stream"
        file << a[i];
}

void read_file(int n, float* a, std::ifstream& file) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential reason="stream"
        file >> a[i];
}

void macro_hides_call(int n, const double* a) {
    for (int i = 0; i < n; ++i)  // expect: kind=sequential reason="LOG_VALUE"
        LOG_VALUE(a[i]);
}

void char_classes(int n, const char* s, char* t) {
    for (int i = 0; i < n; ++i)  // expect: kind=map
        t[i] = tolower(s[i]);
}

void scatter_by_key(const std::vector<int>& keys, float* out) {
    for (int k : keys)  // expect: kind=sequential reason="data-dependent position"
        out[k] = 1.0f;
}

void count_keys(const std::vector<int>& keys, int* count) {
    for (int k : keys)  // expect: kind=histogram
        count[k] += 1;
}

// Globals a loop uses are passed to the outlined function as parameters; a name declared in
// both branches of an `#if` (a fixed array or a heap pointer) is a flat array either way.
static int g_count;
static double g_scale;
static double g_total;
#if defined(FIXED_STORAGE)
static double g_values[4096];
#else
static double (*g_values) = 0;
#endif

void scale_globals() {
    for (int i = 0; i < g_count; i++)  // expect: kind=map region=yes
        g_values[i] = g_values[i] * g_scale;
}

void sum_into_global(int n, const double* x) {
    for (int i = 0; i < n; i++)  // expect: kind=reduction region=yes
        g_total += x[i];
}

// A region carries the macros its macros name (the bound needs `BLOCK` and `BLOCK_LOG` too).
#define BLOCK_LOG 10
#define BLOCK (1 << BLOCK_LOG)
#define PADDED ((2 * BLOCK) + 1)

void fill_padded(double* x) {
    for (int i = 0; i < PADDED; i++)  // expect: kind=map region=yes
        x[i] = -1.0;
}

// Methods of a class the file defines, judged by their bodies: one that only reads its fields
// may be called from a parallel loop (a bound, a value), one that writes a field or reads a
// global may not; a range-for may walk an object a read-only method returns when its
// begin/end only read (its elements are values, so subscripts through them are data).
int g_calls;

class Csr {
    class Row {
        const int* first_;
        const int* last_;
      public:
        Row(const int* first, const int* last) : first_(first), last_(last) {}
        typedef const int* iterator;
        iterator begin() const { return first_; }
        iterator end() const { return last_; }
    };
    int n_;
    const int* offsets_;
    const int* cols_;
    int hits_;
  public:
    int rows() const { return n_; }
    int degree(int r) const { return offsets_[r + 1] - offsets_[r]; }
    Row row(int r) const { return Row(cols_ + offsets_[r], cols_ + offsets_[r + 1]); }
    int counted(int r) { hits_++; return offsets_[r]; }
    int logged(int r) const { return offsets_[r] + g_calls; }
};

void degrees(const Csr& g, float* out) {
    for (int r = 0; r < g.rows(); r++)  // expect: kind=map
        out[r] = 1.0f / g.degree(r);
}

void counted_degrees(Csr& g, int* out) {
    for (int r = 0; r < g.rows(); r++)  // expect: kind=sequential reason="counted"
        out[r] = g.counted(r);
}

void logged_degrees(const Csr& g, int* out) {
    for (int r = 0; r < g.rows(); r++)  // expect: kind=sequential reason="logged"
        out[r] = g.logged(r);
}

void pull_sums(const Csr& g, const float* x, float* y) {
    for (int r = 0; r < g.rows(); r++) {  // expect: kind=map
        float s = 0.0f;
        for (int c : g.row(r))  // expect: kind=reduction
            s += x[c];
        y[r] = s;
    }
}

void push_sums(const Csr& g, const float* x, float* y) {
    for (int r = 0; r < g.rows(); r++)  // expect: kind=histogram
        for (int c : g.row(r))  // expect: kind=histogram
            y[c] += x[r];
}

void mark_neighbours(const Csr& g, int r, int* seen) {
    for (int c : g.row(r))  // expect: kind=sequential reason="data-dependent position"
        seen[c] = r;
}

// Regions must compile on their own: a function-like macro that names the caller's variable
// makes that variable a parameter too; a fixed 2-D local array travels flat, from its first element.
#define AT(i) (weights[(i)] * 2.0f)

void weighted(int n, const float* weights, const float* x, float* y) {
    for (int i = 0; i < n; i++)  // expect: kind=map region=yes
        y[i] = x[i] * weights[i] + AT(i);
}

void opaque_rows(unsigned char* dst) {
    unsigned char block[256][4];
    for (int i = 0; i < 256; ++i)  // expect: kind=map region=yes
        block[i][3] = 255;
    dst[0] = block[0][0];
}

// Helpers of a single-header library live behind its implementation guard.
#ifdef MYLIB_IMPLEMENTATION
static int mylib_average(int a, int b) { return (2 * a + b) / 3; }
#endif

void blend(int n, const int* a, const int* b, int* out) {
    for (int i = 0; i < n; i++)  // expect: kind=map region=yes
        out[i] = mylib_average(a[i], b[i]);
}

// A temporary declared before the loop, assigned and then used inside one branch: private to
// each iteration, whichever branch it takes; read before the branch assigns it, it is carried.
void limited(int n, const double* a, const double* b, double* out) {
    double g, g2;
    for (int i = 0; i < n; i++) {  // expect: kind=map region=yes
        if (a[i] > 0.0) {
            out[i] = 0.0;
        } else {
            g = fmin(a[i], b[i]);
            g2 = g * g;
            out[i] = 2.0 * g2;
        }
    }
}

void limited_carried(int n, const double* a, double* out) {
    double g = 0.0;
    for (int i = 0; i < n; i++) {  // expect: kind=sequential
        if (a[i] > 0.0) {
            out[i] = g;
        } else {
            g = a[i];
            out[i] = g;
        }
    }
}

void upwind(int n, const int* flag, const double* a, double* out) {
    int from;
    for (int i = 1; i < n; i++) {  // expect: kind=stencil region=yes
        if (flag[i] > 0) {
            from = i - 1;
        } else {
            from = i;
        }
        out[i] = a[i] * 0.5 + a[i - 1] * 0.25 + (double)from;
    }
}

void upwind_partial(int n, const int* flag, double* out) {
    int from = 0;
    for (int i = 1; i < n; i++) {  // expect: kind=sequential
        if (flag[i] > 0) {
            from = i - 1;
        }
        out[i] = (double)from;
    }
}

// A temporary shared by two loops in a row: the second assigns it before any use, so the
// first loop's last value is dead and each loop may privatise it.
void two_passes(int n, const double* a, double* b, double* c) {
    double t;
    for (int i = 0; i < n; i++) {  // expect: kind=map region=yes
        t = a[i] * 2.0;
        b[i] = t + 1.0;
    }
    for (int i = 0; i < n; i++) {  // expect: kind=map region=yes
        t = b[i] * 0.5;
        c[i] = t - 1.0;
    }
}

double two_passes_live(int n, const double* a, double* b) {
    double t = 0.0;
    for (int i = 0; i < n; i++) {  // expect: kind=sequential
        t = a[i] * 2.0;
        b[i] = t + 1.0;
    }
    return t;
}

// Structs in regions (issue #17, outliner): the fields a loop uses through a struct pointer or
// reference are parameters of their own (pointer fields included); an array of plain-data structs
// is filled field by field; the fields of a member function's class are parameters too.
struct Grid2 { int nx; int ny; double* u; double* v; double h; };

void grid_axpy(Grid2* g, const Grid2& c, double s) {
    for (int i = 0; i < g->nx * g->ny; ++i)  // expect: kind=map region=yes
        g->v[i] = s * g->u[i] + c.h;
}

struct Sample { float pos[3]; float mass; int id; };

void sample_weights(int n, const Sample* p, float* w) {
    for (int i = 0; i < n; ++i)  // expect: kind=map region=yes
        w[i] = p[i].mass * (p[i].pos[0] + p[i].pos[1] + p[i].pos[2]);
}

struct Link { Link* next; int value; };

void link_values(int n, const Link* links, int* out) {
    for (int i = 0; i < n; ++i)  // expect: kind=map region=no
        out[i] = links[i].value;
}

class Signal {
  public:
    int len;
    float* data;
    float gain;
    void amplify();
};

void Signal::amplify() {
    for (int i = 0; i < len; ++i)  // expect: kind=map region=yes
        data[i] = data[i] * gain;
}
