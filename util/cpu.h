/*
 * cpu.h - which x86 vector extensions this process's code paths use:
 * those the CPU has (CPUID, as libgcc caches it), unless the environment
 * holds DOMLAB_SIMD=sse2, which keeps every path to SSE2 (the x86-64
 * baseline) so that a test run on a machine with AVX2 covers the paths
 * a machine without it takes (`make test` runs test-libdomlab both ways).
 * Not for: choices made at build time (each file's #if on the compiler's
 * target), or other architectures, where nothing is reported.
 */
#ifndef UTIL_CPU_H
#define UTIL_CPU_H

enum { LAB_CPU_SSSE3 = 1, LAB_CPU_AVX2 = 2 };

/* Whether the paths that need `feature` (one LAB_CPU_*) may run. */
int lab_cpu_has(int feature);

#endif
