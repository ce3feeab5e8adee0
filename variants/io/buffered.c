/*
 * buffered.c - io=buffered: reads 64 KiB at a time and serves small reads
 * from that buffer; a read larger than the buffer goes straight into the
 * caller's memory after what is buffered.
 */
#include "wss/io.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

const char wss__io_choice[] = "buffered";

enum { BUF_SIZE = 1 << 16 };

struct wss_io {
	int fd;
	size_t pos, len;   /* unread bytes: buf[pos..len) */
	unsigned char buf[BUF_SIZE];
};

int wss_io_open(int fd, wss_io **out, lab_err *err)
{
	*out = lab_malloc(sizeof **out);
	if (*out == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory for a reader");
	(*out)->fd = fd;
	(*out)->pos = (*out)->len = 0;
	return LAB_OK;
}

void wss_io_free(wss_io *r)
{
	lab_free(r);
}

/* One read(2) of up to n bytes into p; *k 0 at the end. */
static int fill(int fd, unsigned char *p, size_t n, size_t *k, lab_err *err)
{
	for (;;) {
		ssize_t got = read(fd, p, n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return lab_fail(err, LAB_EIO, "cannot read: %s",
					strerror(errno));
		*k = (size_t)got;
		return LAB_OK;
	}
}

int wss_io_read(wss_io *r, void *p, size_t n, size_t *got, lab_err *err)
{
	unsigned char *q = p;
	int rc = LAB_OK;

	*got = 0;
	while (*got < n) {
		size_t avail = r->len - r->pos, k;

		if (avail > 0) {
			k = avail < n - *got ? avail : n - *got;
			memcpy(q + *got, r->buf + r->pos, k);
			r->pos += k;
			*got += k;
			continue;
		}
		if (n - *got >= BUF_SIZE) {
			rc = fill(r->fd, q + *got, n - *got, &k, err);
			if (rc != LAB_OK || k == 0)
				break;
			*got += k;
			continue;
		}
		rc = fill(r->fd, r->buf, BUF_SIZE, &k, err);
		if (rc != LAB_OK || k == 0)
			break;
		r->pos = 0;
		r->len = k;
	}
	return rc;
}
