/*
 * common.h - what both examples share: reading a whole file and writing
 * bytes out, with the library's error type, so each example shows only
 * its calls into domlab.  Header-only to keep the examples two files each.
 * Not for: anything beyond these examples; the library has no file I/O API.
 */
#ifndef EXAMPLES_COMMON_H
#define EXAMPLES_COMMON_H

#include <stdio.h>

#include "util/buf.h"
#include "util/err.h"

/* Appends the whole of path ("-": standard input) to out. */
static int example_read(const char *path, lab_buf *out, lab_err *err)
{
	FILE *f = path[0] == '-' && path[1] == '\0' ? stdin : fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int rc = LAB_OK;

	if (f == NULL)
		return lab_fail(err, LAB_EIO, "cannot open %s", path);
	while (rc == LAB_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (lab_buf_put(out, chunk, n) != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && ferror(f))
		rc = lab_fail(err, LAB_EIO, "cannot read %s", path);
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Writes p[0..n) to path ("-": standard output). */
static int example_write(const char *path, const char *p, size_t n,
			 lab_err *err)
{
	FILE *f = path[0] == '-' && path[1] == '\0' ? stdout : fopen(path, "wb");
	int ok;

	if (f == NULL)
		return lab_fail(err, LAB_EIO, "cannot create %s", path);
	ok = fwrite(p, 1, n, f) == n;
	ok = (f == stdout ? fflush(f) : fclose(f)) == 0 && ok;
	return ok ? LAB_OK : lab_fail(err, LAB_EIO, "cannot write %s", path);
}

#endif
