/*
 * multipart.h - SOAP with Attachments framing: a multipart/related MIME
 * message whose root part is the envelope and whose other parts are
 * binary attachments, read through the io axis (wss/io.h) and written to
 * memory.
 *
 * The profile read here is the one written here: CRLF line ends (a bare
 * LF is accepted), the message headers carry Content-Type
 * multipart/related with a boundary (and optionally start and type);
 * every part carries Content-ID and Content-Length, and binary, 8bit or
 * 7bit transfer encoding (base64 or quoted-printable parts are refused).
 * The parts are framed by their Content-Length and the delimiter must
 * follow each part exactly there.  Anything else is LAB_EMALFORMED.
 * Not for: deciding what is signed (wss/attach.c) or the envelope's XML.
 */
#ifndef WSS_MULTIPART_H
#define WSS_MULTIPART_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"
#include "wss/io.h"

enum {
	WSS_MIME_MAX_PARTS = 16,   /* the root and up to 15 attachments */
	WSS_MIME_MAX_LINE = 998,   /* RFC 5322's line limit */
	WSS_MIME_MAX_HEADERS = 32  /* per header block */
};

typedef struct wss_part {
	char *id;      /* the Content-ID without its angle brackets */
	char *type;    /* the Content-Type as given */
	lab_buf body;  /* the part's bytes */
} wss_part;

typedef struct wss_multipart {
	wss_part parts[WSS_MIME_MAX_PARTS];
	size_t n;
	size_t root;   /* the start part, or the first when start is absent */
} wss_multipart;

/*
 * Reads one message: the `npre` bytes at `pre` (what the caller already
 * took from the input to sniff it), then r.  `max` bounds the bytes of
 * all parts together (0: 1 GiB).  On failure *out holds nothing.
 */
int wss_multipart_read(wss_io *r, const char *pre, size_t npre, size_t max,
		       wss_multipart *out, lab_err *err);

void wss_multipart_free(wss_multipart *m);

/* 1 when the input's first byte can start MIME headers (a header name),
 * 0 when it could start an XML document. */
int wss_multipart_sniff(unsigned char first);

/*
 * Appends a message to out: the root part (text/xml, Content-ID root_id)
 * holding `root`, then the attachments (application/octet-stream), each
 * with its Content-ID and Content-Length.  The boundary is derived from
 * the content and checked not to occur in it.  Content-IDs must be
 * printable ASCII without spaces, quotes, backslashes or angle brackets
 * (LAB_EUSAGE otherwise).  A failure leaves out as it was, so out has no
 * writer (LAB_EUSAGE).
 */
int wss_multipart_write(const char *root_id, const char *root,
			size_t root_len, const wss_part *atts, size_t natts,
			lab_buf *out, lab_err *err);

#endif
