/*
 * cpu.c - util/cpu.h: the features found once per process.
 * Not for: anything but the x86 features the code has paths for.
 */
#include "util/cpu.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A per-process cache, filled once (pthread_once), read-only after. */
static int features;
static pthread_once_t features_once = PTHREAD_ONCE_INIT;

static void find_features(void)
{
	const char *cap = getenv("DOMLAB_SIMD");

	if (cap != NULL && strcmp(cap, "sse2") == 0)
		return;
#if defined(__x86_64__) || defined(__i386__)
	features = (__builtin_cpu_supports("ssse3") ? LAB_CPU_SSSE3 : 0) |
		   (__builtin_cpu_supports("avx2") ? LAB_CPU_AVX2 : 0);
#endif
}

int lab_cpu_has(int feature)
{
	/* pthread_once fails only when misused; features would stay 0,
	 * the SSE2 paths, which every x86-64 CPU runs. */
	(void)pthread_once(&features_once, find_features);
	return (features & feature) != 0;
}
