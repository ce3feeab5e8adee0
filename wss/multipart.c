/*
 * multipart.c - reading and writing the multipart/related messages of
 * SOAP with Attachments (the profile is in multipart.h).
 *
 * Headers are read one byte at a time through the io reader, as a MIME
 * parser over a stream does; part bodies are read in blocks of up to
 * 1 MiB, so how many system calls that takes is the io axis's choice.
 * Every limit is checked before memory is committed: a Content-Length is
 * believed only as far as bytes actually arrive.
 */
#include "wss/multipart.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "wss/crypto.h"

enum {
	BLOCK = 1 << 20,
	MAX_BOUNDARY = 70,           /* RFC 2046 */
	DEFAULT_MAX = 1 << 30
};

/* The bytes to read: what the caller sniffed, then the reader. */
typedef struct src {
	wss_io *r;
	const char *pre;
	size_t npre;
	/* The message's line end, fixed by its first line: 1 CRLF, 0 LF,
	 * -1 not yet known.  Mixing them would make a part's last byte
	 * ambiguous (is "\r\n--B" CR then the delimiter?). */
	int crlf;
} src;

static int src_read(src *s, char *p, size_t n, size_t *got, lab_err *err)
{
	size_t k = s->npre < n ? s->npre : n, more = 0;
	int rc = LAB_OK;

	/* pre may be NULL when npre is 0. */
	if (k > 0) {
		memcpy(p, s->pre, k);
		s->pre += k;
		s->npre -= k;
	}
	if (k < n)
		rc = wss_io_read(s->r, p + k, n - k, &more, err);
	*got = k + more;
	return rc;
}

/* A line ended with CR LF (cr) or LF alone: the message's style, or the
 * first line sets it. */
static int line_end(src *s, int cr, lab_err *err)
{
	if (s->crlf < 0)
		s->crlf = cr;
	if (s->crlf != cr)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: lines end in CRLF and in LF alone");
	return LAB_OK;
}

/* One line without its CRLF (or LF) into line[]; *len its length. */
static int read_line(src *s, char *line, size_t *len, lab_err *err)
{
	size_t n = 0, got;
	char c;
	int rc;

	for (;;) {
		rc = src_read(s, &c, 1, &got, err);
		if (rc != LAB_OK)
			return rc;
		if (got == 0)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: the message ends inside a "
					"header block");
		if (c == '\n')
			break;
		if (n == WSS_MIME_MAX_LINE + 1)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: a header line is over %d bytes",
					WSS_MIME_MAX_LINE);
		line[n++] = c;
	}
	rc = line_end(s, n > 0 && line[n - 1] == '\r', err);
	if (rc != LAB_OK)
		return rc;
	n -= (size_t)s->crlf;
	line[n] = '\0';
	*len = n;
	return LAB_OK;
}

/* A header block, unfolded: names[i] and values[i] point into store. */
typedef struct headers {
	char store[WSS_MIME_MAX_HEADERS * (WSS_MIME_MAX_LINE + 2)];
	const char *name[WSS_MIME_MAX_HEADERS];
	const char *value[WSS_MIME_MAX_HEADERS];
	size_t n;
} headers;

static char *trim(char *p)
{
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		p[--n] = '\0';
	return p;
}

/* Reads header lines up to the empty line.  A folded line (starting with
 * a space or tab) continues the previous header, within its line's room. */
static int read_headers(src *s, headers *h, lab_err *err)
{
	char line[WSS_MIME_MAX_LINE + 2];
	char *last = NULL;
	size_t len = 0, used = 0;

	h->n = 0;
	for (;;) {
		char *colon, *slot;
		int rc = read_line(s, line, &len, err);

		if (rc != LAB_OK)
			return rc;
		if (len == 0)
			return LAB_OK;
		if (line[0] == ' ' || line[0] == '\t') {
			size_t have;

			if (last == NULL)
				return lab_fail(err, LAB_EMALFORMED,
						"MIME: a continuation line "
						"before any header");
			have = strlen(last);
			if (have + len > WSS_MIME_MAX_LINE)
				return lab_fail(err, LAB_EMALFORMED,
						"MIME: a folded header is "
						"over %d bytes",
						WSS_MIME_MAX_LINE);
			memcpy(last + have, line, len + 1);
			continue;
		}
		colon = strchr(line, ':');
		if (colon == NULL || colon == line)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: '%.40s' is not a header", line);
		if (h->n == WSS_MIME_MAX_HEADERS)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: more than %d headers",
					WSS_MIME_MAX_HEADERS);
		slot = h->store + used;
		memcpy(slot, line, len + 1);
		used += WSS_MIME_MAX_LINE + 2;
		slot[colon - line] = '\0';
		h->name[h->n] = trim(slot);
		last = slot + (colon - line) + 1;
		h->value[h->n++] = last;
	}
}

/* The value of header `name` (trimmed in place), or NULL; a repeated
 * header is malformed. */
static int header(headers *h, const char *name, const char **out,
		  lab_err *err)
{
	size_t i;

	*out = NULL;
	for (i = 0; i < h->n; i++) {
		if (strcasecmp(h->name[i], name) != 0)
			continue;
		if (*out != NULL)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: two %s headers", name);
		h->value[i] = trim((char *)h->value[i]);
		*out = h->value[i];
	}
	return LAB_OK;
}

/*
 * Parameter `name` of a Content-Type value ("type/sub; a=b; c=\"d\"")
 * into out (cap bytes); *found 0 when absent.
 */
static int ct_param(const char *ct, const char *name, char *out, size_t cap,
		    int *found, lab_err *err)
{
	const char *p = strchr(ct, ';');
	size_t nlen = strlen(name);

	*found = 0;
	while (p != NULL) {
		size_t n = 0;
		int match, quoted;

		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		match = strncasecmp(p, name, nlen) == 0 && p[nlen] == '=';
		p = strchr(p, '=');
		if (p == NULL)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: a Content-Type parameter "
					"without a value");
		p++;
		quoted = *p == '"';
		if (quoted)
			p++;
		/* A quoted value ends at its closing quote, a bare one at a
		 * separator; either at the header's end (strchr finds the
		 * NUL too).  Only a quoted value has backslash escapes. */
		for (; strchr(quoted ? "\"" : "; \t", *p) == NULL; p++) {
			if (quoted && *p == '\\' && p[1] != '\0')
				p++;
			if (!match)
				continue;
			if (n + 1 >= cap)
				return lab_fail(err, LAB_EMALFORMED,
						"MIME: parameter %s is too long",
						name);
			out[n++] = *p;
		}
		if (quoted) {
			if (*p != '"')
				return lab_fail(err, LAB_EMALFORMED,
						"MIME: an unterminated "
						"quoted parameter");
			p++;
		}
		if (match) {
			out[n] = '\0';
			*found = 1;
			return LAB_OK;
		}
		p = strchr(p, ';');
	}
	return LAB_OK;
}

/* "<id>" -> "id" in out. */
static int angle_id(const char *v, char *out, size_t cap, lab_err *err)
{
	size_t n = strlen(v);

	if (n < 3 || v[0] != '<' || v[n - 1] != '>' || n - 2 >= cap ||
	    memchr(v + 1, '<', n - 2) != NULL ||
	    memchr(v + 1, '>', n - 2) != NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: '%.40s' is not a <content-id>", v);
	memcpy(out, v + 1, n - 2);
	out[n - 2] = '\0';
	return LAB_OK;
}

static int parse_length(const char *v, size_t *out, lab_err *err)
{
	size_t n = 0;
	const char *p;

	if (v == NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: a part without Content-Length");
	for (p = v; *p >= '0' && *p <= '9'; p++) {
		if (n > ((size_t)-1 - 9) / 10)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: Content-Length is too large");
		n = n * 10 + (size_t)(*p - '0');
	}
	if (p == v || *p != '\0')
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: Content-Length '%.40s' is not a number",
				v);
	*out = n;
	return LAB_OK;
}

/* Exactly `want` bytes must come next. */
static int expect_bytes(src *s, const char *want, size_t n, const char *what,
			lab_err *err)
{
	char got[MAX_BOUNDARY + 8];
	size_t k;
	int rc = src_read(s, got, n, &k, err);

	if (rc != LAB_OK)
		return rc;
	if (k < n || memcmp(got, want, n) != 0)
		return lab_fail(err, LAB_EMALFORMED, "MIME: %s", what);
	return LAB_OK;
}

/* The message's line end must come next. */
static int expect_eol(src *s, const char *what, lab_err *err)
{
	return s->crlf ? expect_bytes(s, "\r\n", 2, what, err)
		       : expect_bytes(s, "\n", 1, what, err);
}

static void part_free(wss_part *p)
{
	lab_free(p->id);
	lab_free(p->type);
	lab_buf_free(&p->body);
	memset(p, 0, sizeof *p);
}

void wss_multipart_free(wss_multipart *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		part_free(&m->parts[i]);
	m->n = 0;
}

static int read_body(src *s, size_t len, size_t *budget, lab_buf *out,
		     lab_err *err)
{
	if (len > *budget)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: the parts are over the limit");
	*budget -= len;
	while (out->len < len) {
		size_t want = len - out->len < BLOCK ? len - out->len : BLOCK;
		size_t got;
		int rc;

		if (lab_buf_reserve(out, want) != LAB_OK)
			return lab_fail(err, LAB_ENOMEM,
					"out of memory reading a part");
		rc = src_read(s, out->data + out->len, want, &got, err);
		if (rc != LAB_OK)
			return rc;
		out->len += got;
		out->data[out->len] = '\0';
		if (got < want)
			return lab_fail(err, LAB_EMALFORMED,
					"MIME: a part is truncated (%zu of "
					"%zu bytes)",
					out->len, len);
	}
	return LAB_OK;
}

/* One part's headers and body into p. */
static int read_part(src *s, headers *h, size_t *budget, wss_part *p,
		     lab_err *err)
{
	const char *cid, *ct, *cl, *cte;
	char id[WSS_MIME_MAX_LINE + 1];
	size_t len = 0;
	int rc = read_headers(s, h, err);

	if (rc == LAB_OK)
		rc = header(h, "Content-ID", &cid, err);
	if (rc == LAB_OK)
		rc = header(h, "Content-Type", &ct, err);
	if (rc == LAB_OK)
		rc = header(h, "Content-Length", &cl, err);
	if (rc == LAB_OK)
		rc = header(h, "Content-Transfer-Encoding", &cte, err);
	if (rc != LAB_OK)
		return rc;
	if (cid == NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: a part without Content-ID");
	if (cte != NULL && strcasecmp(cte, "binary") != 0 &&
	    strcasecmp(cte, "8bit") != 0 && strcasecmp(cte, "7bit") != 0)
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: transfer encoding '%.40s' is not "
				"supported",
				cte);
	rc = angle_id(cid, id, sizeof id, err);
	if (rc == LAB_OK)
		rc = parse_length(cl, &len, err);
	if (rc != LAB_OK)
		return rc;
	p->id = lab_strdup(id);
	p->type = lab_strdup(ct != NULL ? ct : "application/octet-stream");
	if (p->id == NULL || p->type == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory reading a part");
	return read_body(s, len, budget, &p->body, err);
}

/* The message headers: the boundary and the start part's id ("" when
 * absent). */
static int read_top(src *s, headers *h, char *boundary, char *start,
		    lab_err *err)
{
	char sv[WSS_MIME_MAX_LINE + 1];
	const char *ct;
	int found, rc = read_headers(s, h, err);

	if (rc == LAB_OK)
		rc = header(h, "Content-Type", &ct, err);
	if (rc != LAB_OK)
		return rc;
	if (ct == NULL || strncasecmp(ct, "multipart/related", 17) != 0 ||
	    (ct[17] != ';' && ct[17] != '\0' && ct[17] != ' '))
		return lab_fail(err, LAB_EMALFORMED,
				"MIME: the message is not multipart/related");
	rc = ct_param(ct, "boundary", boundary, MAX_BOUNDARY + 1, &found, err);
	if (rc == LAB_OK && (!found || boundary[0] == '\0'))
		rc = lab_fail(err, LAB_EMALFORMED,
			      "MIME: Content-Type has no boundary");
	if (rc == LAB_OK)
		rc = ct_param(ct, "start", sv, sizeof sv, &found, err);
	if (rc != LAB_OK)
		return rc;
	start[0] = '\0';
	return found ? angle_id(sv, start, WSS_MIME_MAX_LINE + 1, err) : LAB_OK;
}

static int read_message(src *s, size_t max, wss_multipart *m, lab_err *err)
{
	char boundary[MAX_BOUNDARY + 1], start[WSS_MIME_MAX_LINE + 1];
	char delim[MAX_BOUNDARY + 5];
	size_t budget = max != 0 ? max : DEFAULT_MAX, dlen, i, j;
	headers *h = lab_malloc(sizeof *h);
	int rc;

	if (h == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory reading MIME");
	rc = read_top(s, h, boundary, start, err);
	if (rc != LAB_OK)
		goto out;
	dlen = (size_t)snprintf(delim, sizeof delim, "--%s", boundary);
	rc = expect_bytes(s, delim, dlen, "the first part's boundary is missing",
			  err);
	if (rc == LAB_OK)
		rc = expect_eol(s, "the first boundary line has trailing bytes",
				err);
	for (;;) {
		char end[1];
		size_t k;

		if (rc != LAB_OK)
			goto out;
		if (m->n == WSS_MIME_MAX_PARTS) {
			rc = lab_fail(err, LAB_EMALFORMED,
				      "MIME: more than %d parts",
				      WSS_MIME_MAX_PARTS);
			goto out;
		}
		rc = read_part(s, h, &budget, &m->parts[m->n++], err);
		if (rc == LAB_OK)
			rc = expect_eol(s, "a part's bytes are not followed by "
					"its boundary (wrong Content-Length?)",
					err);
		if (rc == LAB_OK)
			rc = expect_bytes(s, delim, dlen,
					  "a part's bytes are not followed by "
					  "its boundary (wrong "
					  "Content-Length?)",
					  err);
		if (rc == LAB_OK)
			rc = src_read(s, end, 1, &k, err);
		if (rc != LAB_OK)
			goto out;
		if (k == 1 && end[0] == '-') {
			rc = expect_bytes(s, "-", 1,
					  "a boundary is followed by neither "
					  "a line end nor '--'",
					  err);
			if (rc != LAB_OK)
				goto out;
			break;
		}
		if (k < 1 || end[0] != (s->crlf ? '\r' : '\n'))
			rc = lab_fail(err, LAB_EMALFORMED,
				      "MIME: a boundary is followed by "
				      "neither a line end nor '--'");
		else if (s->crlf)
			rc = expect_bytes(s, "\n", 1,
					  "a boundary is followed by neither "
					  "a line end nor '--'",
					  err);
	}
	m->root = 0;
	for (i = 0; i < m->n; i++)
		for (j = i + 1; j < m->n; j++)
			if (strcmp(m->parts[i].id, m->parts[j].id) == 0) {
				rc = lab_fail(err, LAB_EMALFORMED,
					      "MIME: two parts with "
					      "Content-ID <%.60s>",
					      m->parts[i].id);
				goto out;
			}
	if (start[0] != '\0') {
		for (i = 0; i < m->n && strcmp(m->parts[i].id, start) != 0; i++)
			;
		if (i == m->n) {
			rc = lab_fail(err, LAB_EMALFORMED,
				      "MIME: no part is the start part "
				      "<%.60s>",
				      start);
			goto out;
		}
		m->root = i;
	}
out:
	lab_free(h);
	return rc;
}

int wss_multipart_read(wss_io *r, const char *pre, size_t npre, size_t max,
		       wss_multipart *out, lab_err *err)
{
	src s = {r, pre, npre, -1};
	int rc;

	memset(out, 0, sizeof *out);
	rc = read_message(&s, max, out, err);
	if (rc != LAB_OK)
		wss_multipart_free(out);
	return rc;
}

int wss_multipart_sniff(unsigned char first)
{
	return isalpha(first) != 0;
}

/* ---- writing ---- */

/* Whether s occurs in p[0..n).  An empty part's bytes may be NULL, which
 * memmem may not be given. */
static int occurs(const char *p, size_t n, const char *s)
{
	return n > 0 && memmem(p, n, s, strlen(s)) != NULL;
}

/* A boundary from the content's hash, re-derived while it occurs in a
 * part (practically never). */
static int make_boundary(const char *root, size_t root_len,
			 const wss_part *atts, size_t natts, char *out,
			 size_t cap, lab_err *err)
{
	unsigned char d[WSS_SHA256_LEN];
	unsigned salt;

	for (salt = 0; salt < 16; salt++) {
		wss_sha256_ctx *h = NULL;
		size_t i;
		int clash, rc = wss_sha256_new(&h, err);

		if (rc != LAB_OK)
			return rc;
		rc = wss_sha256_update(h, &salt, sizeof salt);
		if (rc == LAB_OK)
			rc = wss_sha256_update(h, root, root_len);
		for (i = 0; rc == LAB_OK && i < natts; i++)
			rc = wss_sha256_update(h, atts[i].body.data,
					       atts[i].body.len);
		if (rc == LAB_OK)
			rc = wss_sha256_final(h, d);
		wss_sha256_free(h);
		if (rc != LAB_OK)
			return lab_fail(err, LAB_ENOMEM, "digest failed");
		snprintf(out, cap, "MIMEBoundary_%02x%02x%02x%02x%02x%02x%02x%02x",
			 d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
		clash = occurs(root, root_len, out);
		for (i = 0; !clash && i < natts; i++)
			clash = occurs(atts[i].body.data, atts[i].body.len, out);
		if (!clash)
			return LAB_OK;
	}
	return lab_fail(err, LAB_EUSAGE, "MIME: no boundary fits the content");
}

/* A Content-ID the writer can put in a header and a quoted parameter. */
static int writable_id(const char *id)
{
	size_t n = strlen(id), i;

	for (i = 0; i < n; i++)
		if (id[i] <= ' ' || id[i] >= 0x7f || strchr("\"\\<>", id[i]))
			return 0;
	return n > 0 && n <= WSS_MIME_MAX_LINE - 20;
}

int wss_multipart_write(const char *root_id, const char *root,
			size_t root_len, const wss_part *atts, size_t natts,
			lab_buf *out, lab_err *err)
{
	char b[64];
	size_t start = out->len, i;
	int rc = lab_buf_need_plain(out, "wss_multipart_write", err);

	if (rc != LAB_OK)
		return rc;
	if (natts + 1 > WSS_MIME_MAX_PARTS)
		return lab_fail(err, LAB_EUSAGE, "MIME: more than %d parts",
				WSS_MIME_MAX_PARTS);
	for (i = 0; i <= natts; i++)
		if (!writable_id(i == 0 ? root_id : atts[i - 1].id))
			return lab_fail(err, LAB_EUSAGE,
					"MIME: Content-ID '%.60s' has spaces, "
					"quotes, brackets or control bytes",
					i == 0 ? root_id : atts[i - 1].id);
	rc = make_boundary(root, root_len, atts, natts, b, sizeof b, err);
	if (rc != LAB_OK)
		return rc;
	rc = lab_buf_printf(out,
			    "MIME-Version: 1.0\r\n"
			    "Content-Type: multipart/related; boundary=\"%s\"; "
			    "type=\"text/xml\"; start=\"<%s>\"\r\n\r\n"
			    "--%s\r\n"
			    "Content-Type: text/xml; charset=UTF-8\r\n"
			    "Content-Transfer-Encoding: binary\r\n"
			    "Content-ID: <%s>\r\n"
			    "Content-Length: %zu\r\n\r\n",
			    b, root_id, b, root_id, root_len);
	if (rc == LAB_OK)
		rc = lab_buf_put(out, root, root_len);
	for (i = 0; rc == LAB_OK && i < natts; i++) {
		rc = lab_buf_printf(out,
				    "\r\n--%s\r\n"
				    "Content-Type: application/octet-stream\r\n"
				    "Content-Transfer-Encoding: binary\r\n"
				    "Content-ID: <%s>\r\n"
				    "Content-Length: %zu\r\n\r\n",
				    b, atts[i].id, atts[i].body.len);
		if (rc == LAB_OK)
			rc = lab_buf_put(out, atts[i].body.data,
					 atts[i].body.len);
	}
	if (rc == LAB_OK)
		rc = lab_buf_printf(out, "\r\n--%s--\r\n", b);
	if (rc != LAB_OK) {
		lab_buf_truncate(out, start);
		return lab_fail(err, LAB_ENOMEM, "out of memory writing MIME");
	}
	return LAB_OK;
}
