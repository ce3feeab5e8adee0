/*
 * eof.c - read=eof: the body ends at the end of the stream, as Axis 1
 * read it (wss/read.h).  poll() for the peer's half-close (POLLRDHUP),
 * a hang-up, or readable bytes, never reading them, bounded by the read
 * timeout as Java's SO_TIMEOUT bounded a blocked read.
 */
#include "wss/read.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

const char wss__read_choice[] = "eof";

int wss_read_body_end(int fd, unsigned timeout_ms, wss_read_end *how,
		      lab_err *err)
{
	struct pollfd p = {fd, POLLIN | POLLRDHUP, 0};
	int n;

	do
		n = poll(&p, 1, (int)timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return lab_fail(err, LAB_EIO, "cannot wait on the connection: %s",
				strerror(errno));
	if (n == 0)
		*how = WSS_READ_TIMEOUT;
	else if (p.revents & (POLLRDHUP | POLLHUP | POLLERR))
		*how = WSS_READ_EOF;
	else
		*how = WSS_READ_MORE;
	return LAB_OK;
}
