/*
 * memhooks.c - process-wide memory set-up for `domlab-bench bench`: libxml2 and
 * OpenSSL allocate through util/alloc.h, so the trees libxml2 builds
 * (build=built, the reference cases) and the crypto objects show in the
 * same counters as ours, and glibc keeps freed memory instead of
 * returning it to the kernel.
 *
 * Not for: the other commands, which measure nothing and keep glibc's and
 * libxml2's defaults.
 */
#include <malloc.h>

#include <libxml/xmlmemory.h>
#include <openssl/crypto.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"

/* OpenSSL's allocator signatures carry the caller's file and line. */
static void *ossl_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return lab_malloc(n);
}

static void *ossl_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	return lab_realloc(p, n);
}

static void ossl_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	lab_free(p);
}

int lab_bench_mem_setup(int *malloc_tuned, lab_err *err)
{
	/* Without these, glibc gives freed heap back to the kernel and
	 * serves big blocks with fresh mmaps, so every iteration would pay
	 * the first-touch page faults a long-running service pays once.
	 * Sanitizer runtimes refuse them; such runs check, not measure. */
	*malloc_tuned =
		mallopt(M_TRIM_THRESHOLD, (int)LAB_BENCH_TRIM_THRESHOLD) == 1 &&
		mallopt(M_MMAP_THRESHOLD, (int)LAB_BENCH_MMAP_THRESHOLD) == 1;
	/* Before any other libxml2 call: blocks it allocated with another
	 * allocator would be freed through ours and skew the counters. */
	if (xmlMemSetup(lab_free, lab_malloc, lab_realloc, lab_strdup) != 0)
		return lab_fail(err, LAB_EUSAGE,
				"libxml2 refused the allocator hooks");
	/* Likewise before OpenSSL's first allocation, or it refuses. */
	if (CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free) != 1)
		return lab_fail(err, LAB_EUSAGE,
				"OpenSSL refused the allocator hooks");
	return LAB_OK;
}
