/*
 * multipart.c - fuzz target: the SOAP with Attachments reader
 * (wss/multipart.c) on arbitrary bytes, read through the variant's io
 * choice from a memory file.  Whatever it accepts is written back with
 * wss_multipart_write and read again, and must give the same parts.
 * Not for: the signature over the parts (tests/test_multipart.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wss/io.h"
#include "wss/multipart.h"

/* Reads data[0..n) through the io axis; first byte as a sniffed prefix
 * when `sniffed`, as the command line does. */
static int read_bytes(int fd, const uint8_t *data, size_t n, int sniffed,
		      wss_multipart *m)
{
	wss_io *r = NULL;
	lab_err err;
	size_t off = sniffed && n > 0 ? 1 : 0;
	int rc;

	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, n, 0) != (ssize_t)n ||
	    lseek(fd, (off_t)off, SEEK_SET) != (off_t)off)
		abort();
	rc = wss_io_open(fd, &r, &err);
	if (rc == LAB_OK)
		rc = wss_multipart_read(r, (const char *)data, off, 1 << 20, m,
					&err);
	wss_io_free(r);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	wss_multipart m, again;
	wss_part atts[WSS_MIME_MAX_PARTS];
	lab_buf out = LAB_BUF_INIT;
	lab_err err;
	size_t i, k = 0;

	if (fd < 0 && (fd = memfd_create("multipart", 0)) < 0)
		abort();
	if (read_bytes(fd, data, size, size > 0 && (data[0] & 1), &m) !=
	    LAB_OK)
		return 0;
	for (i = 0; i < m.n; i++)
		if (i != m.root)
			atts[k++] = m.parts[i];
	if (wss_multipart_write(m.parts[m.root].id, m.parts[m.root].body.data,
				m.parts[m.root].body.len, atts, k, &out,
				&err) == LAB_OK) {
		const wss_part *orig[WSS_MIME_MAX_PARTS];

		if (read_bytes(fd, (const uint8_t *)out.data, out.len, 0,
			       &again) != LAB_OK ||
		    again.n != m.n)
			abort();
		/* The writer puts the root first, then the rest in order. */
		orig[0] = &m.parts[m.root];
		for (i = 0, k = 1; i < m.n; i++)
			if (i != m.root)
				orig[k++] = &m.parts[i];
		for (i = 0; i < m.n; i++)
			if (again.root != 0 ||
			    strcmp(again.parts[i].id, orig[i]->id) != 0 ||
			    again.parts[i].body.len != orig[i]->body.len ||
			    (orig[i]->body.len > 0 &&
			     memcmp(again.parts[i].body.data,
				    orig[i]->body.data,
				    orig[i]->body.len) != 0))
				abort();
		wss_multipart_free(&again);
	}
	lab_buf_free(&out);
	wss_multipart_free(&m);
	return 0;
}
