/* The CPU reference for benchmarks/dram_mixes.py: STREAM-style read (sum), write (fill) and
 * copy loops over float32, OpenMP threads, vectorized by the compiler.  Built by the benchmark
 * at run time (cc -O3 -march=native -fopenmp); not part of the package.
 *
 *   dram_mixes_ref N_STREAM N_COPY SECONDS
 *
 * Each loop runs again and again for SECONDS; the best time of each is reported, with the
 * bytes the program asks for (the read N_STREAM x 4, the fill N_STREAM x 4, the copy
 * 2 x N_COPY x 4), as one JSON line.  Every result is checked: the sum exactly (multiples of
 * 1/4, float32 sums of 4096 of them, double across), every filled and copied element.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

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

    double best[3] = {1e30, 1e30, 1e30};
    int trials[3] = {0, 0, 0}, ok = 1;
    for (int k = 0; k < 3; ++k) {
        double start = omp_get_wtime();
        do {
            double t0 = omp_get_wtime();
            double s = 0.0;
            if (k == 0) s = sum(a, n);
            else if (k == 1) fill(w, n, 1.5f + trials[1] % 2);
            else copy(a, c, m);
            double t = omp_get_wtime() - t0;
            if (t < best[k]) best[k] = t;
            if (k == 0 && s != want) ok = 0;
            trials[k]++;
        } while (omp_get_wtime() - start < window);
    }
    for (size_t i = 0; i < n; ++i) ok &= (w[i] == 1.5f + (trials[1] - 1) % 2);
    for (size_t i = 0; i < m; ++i) ok &= (c[i] == a[i]);
    printf("{\"read_gbps\": %.6g, \"write_gbps\": %.6g, \"copy_gbps\": %.6g, "
           "\"trials\": [%d, %d, %d], \"threads\": %d, \"verified\": %s}\n",
           4.0 * n / best[0] / 1e9, 4.0 * n / best[1] / 1e9, 8.0 * m / best[2] / 1e9,
           trials[0], trials[1], trials[2], omp_get_max_threads(), ok ? "true" : "false");
    free(a); free(w); free(c);
    return ok ? 0 : 1;
}
