/*
 * unbuffered.c - io=unbuffered: every byte is its own read(2), whatever
 * the caller asked for, which is what reading a stream byte by byte
 * without a buffer costs.
 */
#include "wss/io.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

const char wss__io_choice[] = "unbuffered";

struct wss_io {
	int fd;
};

int wss_io_open(int fd, wss_io **out, lab_err *err)
{
	*out = lab_malloc(sizeof **out);
	if (*out == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory for a reader");
	(*out)->fd = fd;
	return LAB_OK;
}

void wss_io_free(wss_io *r)
{
	lab_free(r);
}

int wss_io_read(wss_io *r, void *p, size_t n, size_t *got, lab_err *err)
{
	unsigned char *q = p;

	*got = 0;
	while (*got < n) {
		ssize_t k = read(r->fd, q + *got, 1);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return lab_fail(err, LAB_EIO, "cannot read: %s",
					strerror(errno));
		if (k == 0)
			break;
		(*got)++;
	}
	return LAB_OK;
}
