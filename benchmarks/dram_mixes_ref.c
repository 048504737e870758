/* The CPU reference for benchmarks/dram_mixes.py: STREAM-style read (sum), write (fill) and
 * copy loops over float32, OpenMP threads, vectorized by the compiler.  Built by the benchmark
 * at run time (cc -O3 -march=native -fopenmp); not part of the package.
 *
 *   dram_mixes_ref N_STREAM N_COPY SECONDS
 *
 * Each loop runs again and again for SECONDS; the best and the median time of each are
 * reported, with the bytes the program asks for (the read N_STREAM x 4, the fill N_STREAM x 4,
 * the copy 2 x N_COPY x 4), as one JSON line.  Every result is checked: the sum exactly
 * (multiples of 1/4, float32 sums of 4096 of them, double across), every filled and copied
 * element.
 *
 * The fill and the copy compile to ordinary vector stores (vmovups, no memcpy/memset call), as
 * Lab 1's Numba kernels do: each line written is first read into the cache (write-allocate).
 * A second fill and copy with streaming stores (_mm256_stream_ps / _mm_stream_ps, which skip
 * that read) run beside them where the compiler offers SSE2 or AVX, reported as
 * write_nt_gbps and copy_nt_gbps (null elsewhere): what memcpy-style code could reach, not the
 * target Lab 1's kernels are held to.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#define HAVE_NT 1
#else
#define HAVE_NT 0
#endif

#define TASK 4096

static float value(size_t e) { return (float)(((e * 40503u) & 65535u) >> 13) * 0.25f; }

static double sum(const float* a, size_t n) {
    double s = 0.0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (size_t t = 0; t < n / TASK; ++t) {
        float part = 0.0f;
#pragma omp simd reduction(+ : part)
        for (size_t j = 0; j < TASK; ++j) part += a[t * TASK + j];
        s += part;
    }
    return s;
}

static void fill(float* a, size_t n, float v) {
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; ++i) a[i] = v;
}

static void copy(const float* a, float* b, size_t n) {
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
}

#if defined(__AVX__)
#define NT_LANES 8
#define NT_STORE(p, v) _mm256_stream_ps((p), (v))
#define NT_LOAD(p) _mm256_load_ps(p)
#define NT_SET(x) _mm256_set1_ps(x)
typedef __m256 ntvec;
#elif defined(__SSE2__)
#define NT_LANES 4
#define NT_STORE(p, v) _mm_stream_ps((p), (v))
#define NT_LOAD(p) _mm_load_ps(p)
#define NT_SET(x) _mm_set1_ps(x)
typedef __m128 ntvec;
#endif

/* Streaming stores go straight to memory without reading the line first; the buffers are
 * 64-byte aligned, so every vector is too; a tail shorter than a vector is stored plainly. */
static void fill_nt(float* a, size_t n, float v) {
#if HAVE_NT
    size_t nv = n / NT_LANES;
    ntvec x = NT_SET(v);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < nv; ++i) NT_STORE(a + i * NT_LANES, x);
    for (size_t i = nv * NT_LANES; i < n; ++i) a[i] = v;
    _mm_sfence();
#else
    (void)a; (void)n; (void)v;
#endif
}

static void copy_nt(const float* a, float* b, size_t n) {
#if HAVE_NT
    size_t nv = n / NT_LANES;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < nv; ++i) NT_STORE(b + i * NT_LANES, NT_LOAD(a + i * NT_LANES));
    for (size_t i = nv * NT_LANES; i < n; ++i) b[i] = a[i];
    _mm_sfence();
#else
    (void)a; (void)b; (void)n;
#endif
}

#define MAX_TRIALS 100000

static int by_value(const void* x, const void* y) {
    double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

static double median(double* t, int n) {
    qsort(t, n, sizeof(double), by_value);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s N_STREAM N_COPY SECONDS\n", argv[0]);
        return 2;
    }
    size_t n = strtoull(argv[1], 0, 10), m = strtoull(argv[2], 0, 10);
    double window = atof(argv[3]);
    if (n % TASK || m > n || window <= 0) {
        fprintf(stderr, "N_STREAM must be a multiple of %d, N_COPY at most N_STREAM, SECONDS > 0\n", TASK);
        return 2;
    }
    float* a = aligned_alloc(64, n * sizeof(float));
    float* w = aligned_alloc(64, n * sizeof(float));
    float* c = aligned_alloc(64, m * sizeof(float));
    if (!a || !w || !c) return 3;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) { a[i] = value(i); w[i] = -1.0f; }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < m; ++i) c[i] = -1.0f;
    double want = 0.0;
    for (size_t i = 0; i < n; ++i) want += value(i);

    /* 0 sum, 1 fill, 2 copy, 3 streaming fill, 4 streaming copy */
    enum { KINDS = 5 };
    int kinds = HAVE_NT ? KINDS : 3;
    double best[KINDS], mid[KINDS];
    int trials[KINDS] = {0}, ok = 1;
    double* times = malloc(MAX_TRIALS * sizeof(double));
    if (!times) return 3;
    for (int k = 0; k < kinds; ++k) {
        best[k] = 1e30;
        double start = omp_get_wtime();
        do {
            double t0 = omp_get_wtime();
            double s = 0.0;
            if (k == 0) s = sum(a, n);
            else if (k == 1) fill(w, n, 1.5f + trials[1] % 2);
            else if (k == 2) copy(a, c, m);
            else if (k == 3) fill_nt(w, n, 3.5f + trials[3] % 2);
            else copy_nt(a, c, m);
            double t = omp_get_wtime() - t0;
            if (t < best[k]) best[k] = t;
            if (trials[k] < MAX_TRIALS) times[trials[k]] = t;
            if (k == 0 && s != want) ok = 0;
            trials[k]++;
        } while (omp_get_wtime() - start < window);
        mid[k] = median(times, trials[k] < MAX_TRIALS ? trials[k] : MAX_TRIALS);
        /* each fill and copy is checked before the next kind overwrites its buffer */
        if (k == 1 || k == 3) {
            float v = k == 1 ? 1.5f + (trials[1] - 1) % 2 : 3.5f + (trials[3] - 1) % 2;
            for (size_t i = 0; i < n; ++i) ok &= (w[i] == v);
        }
        if (k == 2 || k == 4) {
            for (size_t i = 0; i < m; ++i) ok &= (c[i] == a[i]);
#pragma omp parallel for schedule(static)
            for (size_t i = 0; i < m; ++i) c[i] = -1.0f;
        }
    }
    double bytes[KINDS] = {4.0 * n, 4.0 * n, 8.0 * m, 4.0 * n, 8.0 * m};
    const char* names[KINDS] = {"read", "write", "copy", "write_nt", "copy_nt"};
    printf("{");
    for (int k = 0; k < KINDS; ++k) {
        if (k < kinds)
            printf("\"%s_gbps\": %.6g, \"%s_median_gbps\": %.6g, ", names[k], bytes[k] / best[k] / 1e9,
                   names[k], bytes[k] / mid[k] / 1e9);
        else
            printf("\"%s_gbps\": null, \"%s_median_gbps\": null, ", names[k], names[k]);
    }
    printf("\"trials\": [%d, %d, %d, %d, %d], \"threads\": %d, \"verified\": %s}\n", trials[0], trials[1],
           trials[2], trials[3], trials[4], omp_get_max_threads(), ok ? "true" : "false");
    free(times);
    free(a); free(w); free(c);
    return ok ? 0 : 1;
}
