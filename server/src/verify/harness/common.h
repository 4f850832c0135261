// Shared by the reference and the candidate harness: the plan reader, the seeded input generator and
// the output writer. Both programs must generate bit-identical inputs from the same (seed, dist).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <limits>
#include <type_traits>
#include <vector>

static inline uint64_t co_mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

struct CoRng {
    uint64_t s;
    uint64_t next() { s += 0x9e3779b97f4a7c15ULL; return co_mix(s); }
    // Uniform in [0, 1) with 53 bits.
    double unit() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); }
};

static CoRng co_rng(uint64_t seed, uint64_t stream) {
    return CoRng{co_mix(seed * 0x100000001b3ULL ^ (stream * 0x2545f4914f6cdd1dULL))};
}

static const double co_pow10[7] = {1e-3, 1e-2, 1e-1, 1.0, 1e1, 1e2, 1e3};

// dist 0: uniform in [-1, 1]; dist 1: both signs, magnitudes 1e-3..2e3 (table, not pow: identical
// everywhere and fast); dist 2: special values (below). Integers: dist 0 in [-100, 100], dist 1 in [-100000, 100000]; a spec's
// min/max (already evaluated) overrides either end.
template <class T>
static T co_value(CoRng& r, int dist, bool has_lo, double lo, bool has_hi, double hi) {
    if (std::is_floating_point<T>::value) {
        if (has_lo || has_hi) {
            double a = has_lo ? lo : (has_hi ? hi - 1.0 : -1.0);
            double b = has_hi ? hi : a + 1.0;
            return (T)(a + (b - a) * r.unit());
        }
        double u = r.unit() * 2.0 - 1.0;
        if (dist == 0) return (T)u;
        if (dist == 2) {
            // Special values, one in eight each: +0, -0, subnormals of T, large magnitudes (kept
            // where squares and sums stay finite in T); the rest as dist 0. Three draws, as dist 1.
            uint64_t bucket = r.next() % 8;
            double v = r.unit();
            T tiny = std::numeric_limits<T>::denorm_min();
            T large = (T)(sizeof(T) == 4 ? 1e6 : 1e12);
            switch (bucket) {
                case 0: return (T)0.0;
                case 1: return (T)-0.0;
                case 2: return (T)(u < 0 ? -1 : 1) * tiny * (T)(1 + (uint64_t)(v * 1000));
                case 3: return (T)(u < 0 ? -1 : 1) * large * (T)(1.0 + v);
                default: return (T)u;
            }
        }
        double mag = co_pow10[r.next() % 7] * (1.0 + r.unit());
        return (T)(u < 0 ? -mag : mag);
    }
    if (dist == 2 && !has_lo && !has_hi) {
        // Integers: zeros and ±1 often, else small values. One draw.
        uint64_t x = r.next();
        long long v = (x & 7) < 2 ? 0 : (x & 7) < 4 ? ((x >> 3) & 1 ? 1 : -1) : (long long)((x >> 3) % 201) - 100;
        if (std::is_unsigned<T>::value && v < 0) v = -v;
        return (T)v;
    }
    long long a = dist == 0 ? -100 : -100000, b = dist == 0 ? 100 : 100000;
    if (std::is_unsigned<T>::value && a < 0) a = 0;
    if (has_lo) a = (long long)lo;
    if (has_hi) b = (long long)hi;
    if (b < a) b = a;
    unsigned long long span = (unsigned long long)(b - a) + 1ULL;
    return (T)(a + (long long)(r.next() % span));
}

// How many draws from the stream one element takes (see co_value): fixed per fill, so a chunk of
// a fill can start at the stream position a sequential fill reaches there.
template <class T>
static long long co_draws(int dist, bool has_lo, bool has_hi) {
    if (std::is_floating_point<T>::value && !has_lo && !has_hi && dist != 0) return 3;
    return 1;
}

static CoRng co_skip(CoRng r, long long draws) {
    r.s += (uint64_t)draws * 0x9e3779b97f4a7c15ULL;
    return r;
}

// Elements per chunk when a fill of len elements is split over threads: all of it below 1M
// elements, else an equal share for each core, 16 at most.
static long long co_chunk(long long len) {
    unsigned hw = std::thread::hardware_concurrency();
    long long threads = len < (1LL << 20) ? 1 : std::min<long long>(hw == 0 ? 1 : hw, 16);
    return std::max(1LL, (len + threads - 1) / threads);
}

// Starts f on a new thread of pool, or runs it here where no thread can be made.
template <class F>
static void co_spawn(std::vector<std::thread>& pool, F f) {
    try {
        pool.emplace_back(f);
    } catch (...) {
        f();
    }
}

// Runs body(begin, end) over [0, len) in chunks of co_chunk(len), one thread each. A timed sample
// regenerates every input (hundreds of MB): one thread made that, not the GPU, the cost of
// verifying. The values do not depend on the number of threads.
template <class F>
static void co_chunked(long long len, F body) {
    long long chunk = co_chunk(len);
    std::vector<std::thread> pool;
    for (long long a = chunk; a < len; a += chunk) {
        long long b = std::min(len, a + chunk);
        co_spawn(pool, [=] { body(a, b); });
    }
    body(0LL, std::min(len, chunk));
    for (std::thread& t : pool) t.join();
}

// std::sort's result, faster: the chunks of co_chunked sorted on threads, then merged pairwise
// (generated values that compare equal are identical, so the order of ties cannot differ).
template <class T>
static void co_sort(T* p, long long len) {
    co_chunked(len, [p](long long a, long long b) { std::sort(p + a, p + b); });
    const long long chunk = co_chunk(len);
    std::vector<long long> cuts;
    for (long long a = 0; a < len; a += chunk) cuts.push_back(a);
    cuts.push_back(len);
    while (cuts.size() > 2) {
        std::vector<long long> next{0};
        std::vector<std::thread> merges;
        for (size_t i = 0; i + 2 < cuts.size(); i += 2) {
            T* a = p + cuts[i]; T* m = p + cuts[i + 1]; T* e = p + cuts[i + 2];
            co_spawn(merges, [a, m, e] { std::inplace_merge(a, m, e); });
            next.push_back(cuts[i + 2]);
        }
        if (next.back() != len) next.push_back(len);
        for (std::thread& t : merges) t.join();
        cuts.swap(next);
    }
}

template <class T>
static void co_fill(T* p, long long len, CoRng r, int dist, bool has_lo, double lo, bool has_hi,
                    double hi, bool sorted, bool perm) {
    if (perm) {
        for (long long i = 0; i < len; ++i) p[i] = (T)i;
        for (long long i = len - 1; i > 0; --i) {
            long long j = (long long)(r.next() % (unsigned long long)(i + 1));
            T t = p[i]; p[i] = p[j]; p[j] = t;
        }
        return;
    }
    long long draws = co_draws<T>(dist, has_lo, has_hi);
    co_chunked(len, [=](long long a, long long b) {
        CoRng rr = co_skip(r, a * draws);
        for (long long i = a; i < b; ++i) p[i] = co_value<T>(rr, dist, has_lo, lo, has_hi, hi);
    });
    if (sorted) co_sort(p, len);
}

// Outputs start as seeded garbage: an untouched element never matches by luck, and both programs
// start from the same garbage so elements the loop does not write compare equal.
template <class T>
static void co_garbage(T* p, long long len, CoRng r) {
    co_chunked(len, [=](long long a, long long b) {
        CoRng rr = co_skip(r, a);
        for (long long i = a; i < b; ++i) {
            if (std::is_floating_point<T>::value) p[i] = (T)(-7777.0 - 1000.0 * rr.unit());
            else p[i] = (T)(rr.next() | 1ULL);
        }
    });
}

static long long co_ext(long long e) { return e < 1 ? 1 : e; }

// Floats travel as float64, integers as int64 (little endian, no header).
template <class T>
static bool co_write(const std::string& path, const T* p, long long len) {
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    const long long chunk = 1 << 16;
    if (std::is_floating_point<T>::value) {
        std::vector<double> buf(chunk);
        for (long long i = 0; i < len; i += chunk) {
            long long m = std::min(chunk, len - i);
            for (long long k = 0; k < m; ++k) buf[k] = (double)p[i + k];
            std::fwrite(buf.data(), sizeof(double), (size_t)m, f);
        }
    } else {
        std::vector<long long> buf(chunk);
        for (long long i = 0; i < len; i += chunk) {
            long long m = std::min(chunk, len - i);
            for (long long k = 0; k < m; ++k) buf[k] = (long long)p[i + k];
            std::fwrite(buf.data(), sizeof(long long), (size_t)m, f);
        }
    }
    // A short write (a full disk) must fail the reference, not leave a truncated answer.
    bool ok = !std::ferror(f);
    return std::fclose(f) == 0 && ok;
}

struct CoItem {
    std::string kind, tag;
    unsigned long long seed = 0;
    int dist = 0, warmups = 0, min_samples = 0, max_samples = 0, reps = 0;
    double budget_s = 0, budget_ms = 0;
    std::vector<long long> sizes;
};

// plan.txt, one item a line:
//   case <tag> <seed> <dist> <k> <s1..sk>
//   timed <seed> <warmups> <min> <max> <budget_s> <k> <s1..sk>
//   serial <seed> <dist> <reps> <budget_ms> <k> <s1..sk>
static std::vector<CoItem> co_read_plan(const char* path) {
    std::vector<CoItem> items;
    FILE* f = std::fopen(path, "r");
    if (!f) { std::fprintf(stderr, "PLAN cannot open %s\n", path); std::exit(12); }
    char word[64];
    while (std::fscanf(f, "%63s", word) == 1) {
        CoItem it;
        it.kind = word;
        int k = 0, ok = 1;
        if (it.kind == "case") {
            char tag[64];
            ok = std::fscanf(f, "%63s %llu %d %d", tag, &it.seed, &it.dist, &k) == 4;
            it.tag = tag;
        } else if (it.kind == "timed") {
            ok = std::fscanf(f, "%llu %d %d %d %lf %d", &it.seed, &it.warmups, &it.min_samples,
                             &it.max_samples, &it.budget_s, &k) == 6;
        } else if (it.kind == "serial") {
            ok = std::fscanf(f, "%llu %d %d %lf %d", &it.seed, &it.dist, &it.reps, &it.budget_ms, &k) == 5;
        } else {
            ok = 0;
        }
        for (int i = 0; ok && i < k; ++i) { long long v; ok = std::fscanf(f, "%lld", &v) == 1; it.sizes.push_back(v); }
        if (!ok) { std::fprintf(stderr, "PLAN malformed item %s\n", word); std::exit(12); }
        items.push_back(it);
    }
    std::fclose(f);
    return items;
}

static double co_ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
