/*
 * read.h - the `read` axis: how the HTTP endpoint (`domlab serve`,
 * harness/http/) decides that a request's body has ended.
 *
 *   framed  where the HTTP framing says (Content-Length, or the last
 *           chunk): libmicrohttpd has read exactly that much, and the
 *           request is handled at once;
 *   eof     at the end of the stream, as Axis 1's SOAPPart.getAsBytes()
 *           read it: once the framed body is in, the endpoint waits on
 *           the connection until the client closes its side, sends more,
 *           or the read timeout (Java's SO_TIMEOUT) passes.  A keep-alive
 *           client waits for its response before it closes anything, so
 *           every one of its requests stalls for the whole timeout; a
 *           client that half-closes (shutdown SHUT_WR) after its request
 *           does not stall.
 *
 * The wait looks at the socket without consuming a byte, so the
 * library's framing still reads whatever comes next: bytes of a
 * pipelined request that Axis's read would have swallowed into this body
 * end the wait instead.  The stall itself is the same.
 * Not for: reading the body (libmicrohttpd does) or its size limit.
 */
#ifndef WSS_READ_H
#define WSS_READ_H

#include "util/err.h"

/* How the wait for the body's end finished. */
typedef enum wss_read_end {
	WSS_READ_FRAMED,  /* framed: nothing waited for */
	WSS_READ_EOF,     /* the client closed its side (or the connection) */
	WSS_READ_MORE,    /* the client sent more bytes */
	WSS_READ_TIMEOUT  /* the read timeout passed: a stall */
} wss_read_end;

/*
 * Called once the framed body of a request on connected socket fd is
 * in; waits as the choice says, at most timeout_ms, consuming nothing.
 * LAB_EIO when the socket cannot be waited on.
 */
int wss_read_body_end(int fd, unsigned timeout_ms, wss_read_end *how,
		      lab_err *err);

extern const char wss__read_choice[];   /* "framed" / "eof" */

#endif
