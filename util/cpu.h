/*
 * cpu.h - which x86 vector extensions this process's code paths use:
 * those the CPU has (CPUID, as libgcc caches it), unless the environment
 * holds DOMLAB_SIMD=sse2, which keeps every path to SSE2 (the x86-64
 * baseline) so that a test run on a machine with AVX2 covers the paths
 * a machine without it takes (`make test` runs test-libdomlab both ways).
 * LAB_X86_VECTORS says at build time whether this compiler may build
 * those paths at all (x86-64, with GCC's or clang's target attribute and
 * intrinsics); a file with such a path tests it, then lab_cpu_has.
 * Not for: other architectures, where nothing is reported.
 */
#ifndef UTIL_CPU_H
#define UTIL_CPU_H

#if defined(__x86_64__) && defined(__SSE2__) && \
    (defined(__GNUC__) || defined(__clang__))
#define LAB_X86_VECTORS 1
#include <immintrin.h>
/* a < b, bytewise and signed, in AVX2's terms (it has only >). */
#define LAB_LT32(a, b) _mm256_cmpgt_epi8((b), (a))
#else
#define LAB_X86_VECTORS 0
#endif

enum { LAB_CPU_SSSE3 = 1, LAB_CPU_AVX2 = 2 };

/* Whether the paths that need `feature` (one LAB_CPU_*) may run. */
int lab_cpu_has(int feature);

#endif
