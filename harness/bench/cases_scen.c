/*
 * cases_scen.c - the scenario cases: the token store over a client's
 * life (`tokens/<R>`) and SOAP with Attachments read through the io axis
 * (`attachment/<size>` from a pipe, `attachment_file/<size>` from a file).
 * Keys go through the keys axis per message, as in cases_wss.c; alice is
 * the client, bob the service.  The table is in cases.c.
 *
 * tokens/<R>: one iteration is a fresh client making R requests.  Each
 * request: the client signs and encrypts the small message (the case's
 * dataset, quakes 2 KB) and stores a token -- the EncryptedKey's wrapped
 * key under its SHA-1 identifier, the EncryptedKeySHA1 a WSS 1.1 reply
 * names it by; the service receives it (decrypts, verifies) and answers
 * with that identifier; the client looks the token up, checks the key
 * material and marks the reply validated (wss_tokens_done).  The reply's
 * own sign and receive are not made: they would cost the same with either
 * store.  The time per request at R is the iteration's time divided by R
 * (the `requests` counter), the mean over requests 1..R: with `list` the
 * k-th lookup walks all k tokens (their expiry, then their references),
 * so the mean grows as (R+1)/2 tokens walked.
 *
 * tokens_lookup/<R>: the store's own work in request R, without the
 * crypto that hides it in tokens/<R>.  Setup leaves the store as R-1
 * request/reply cycles leave it (each token put and marked done: list
 * holds R-1 tokens, hash none); one iteration is request R's store work:
 * put its token (256 bytes of wrapped key, RSA-2048's), look it up as
 * the reply does and check the key material, mark it done.  So every
 * timed lookup sees R tokens under list, one under hash.  list's store
 * grows with each iteration, so the harness rebuilds it between
 * iterations, untimed (lab_case_info.reset); the run refuses a store in
 * any other state.  Identifiers are SHA-1s, as the client's are.
 *
 * attachment*: bob receives a message alice sent with the dataset's bytes
 * as its one attachment: read through the io reader, the multipart parsed,
 * the envelope decrypted and verified with the attachment's digest, the
 * result serialized.  The pipe's writer is a second thread, outside the
 * timed (per-thread CPU) cost.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "wss/attach.h"
#include "wss/io.h"
#include "wss/keys.h"
#include "wss/multipart.h"
#include "wss/tokens.h"
#include "wss/wss.h"

/* Timestamps made for the benchmark outlive any run. */
enum { BENCH_TTL = 86400 };

static const char att_id[] = "attachment-1@domlab";

typedef struct scen_ctx {
	const lab_case_data *d;
	lab_case_keys k;
	size_t requests;   /* tokens*: R */
	/* tokens_lookup: the store, the count setup left in it, the R
	 * tokens' identifiers and the key material they all carry */
	wss_token_store *store;
	size_t base;
	unsigned char (*ids)[WSS_SHA1_LEN];
	unsigned char wrapped[256];
	lab_buf msg;       /* attachment*: the multipart message */
	char path[64];     /* attachment_file: where msg is, or "" */
	size_t sink;
} scen_ctx;

static void opts(wss_opts *o)
{
	wss_opts_default(o);
	o->ttl = BENCH_TTL;
}

void lab_scen_teardown(void *ctx)
{
	scen_ctx *c = ctx;

	if (c == NULL)
		return;
	if (c->path[0] != '\0')
		unlink(c->path);
	lab_buf_free(&c->msg);
	wss_tokens_free(c->store);
	lab_free(c->ids);
	lab_free(c);
}

static int new_ctx(scen_ctx **out, const lab_case_data *d, lab_err *err)
{
	scen_ctx *c = lab_calloc(1, sizeof *c);

	*out = c;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	return lab_case_key_paths(d, &c->k, err);
}

/* Hands a finished context to the caller, or frees it on failure. */
static int finish(void **ctx, scen_ctx *c, int rc)
{
	if (rc != LAB_OK) {
		lab_scen_teardown(c);
		c = NULL;
	}
	*ctx = c;
	return rc;
}

/* ---- tokens ---- */

/* The client's side of one request: sends and keeps the token. */
static int client_send(const scen_ctx *c, wss_token_store *store,
		       lab_buf *wire, lab_err *err)
{
	wss_key_paths paths = {c->k.key, c->k.cert, c->k.peer_cert, NULL};
	unsigned char id[WSS_SHA1_LEN];
	lab_buf wrapped = LAB_BUF_INIT;
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_keyset ks;
	wss_opts o;
	int rc;

	opts(&o);
	rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(c->d->bytes, c->d->len, NULL, &doc, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
	if (rc == LAB_OK)
		rc = wss_msg_key_token(doc, &wrapped, id, err);
	if (rc == LAB_OK)
		rc = wss_tokens_put(store, id, (unsigned char *)wrapped.data,
				    wrapped.len, err);
	if (rc == LAB_OK) {
		wire->len = 0;
		rc = dom_serialize(dom_doc_node(doc), wire, err);
	}
	dom_doc_free(doc);
	wss_keys_release(handle);
	lab_buf_free(&wrapped);
	return rc;
}

/* The service's side: receives the request and names the key its reply
 * is under (id) with the key material it unwrapped with (wrapped). */
static int service_receive(const scen_ctx *c, const lab_buf *wire,
			   lab_buf *wrapped, unsigned char id[WSS_SHA1_LEN],
			   lab_err *err)
{
	wss_key_paths paths = {c->k.peer_key, NULL, NULL, c->k.cert};
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_keyset ks;
	wss_opts o;
	int rc;

	opts(&o);
	rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(wire->data, wire->len, NULL, &doc, err);
	if (rc == LAB_OK) {
		wrapped->len = 0;
		rc = wss_msg_key_token(doc, wrapped, id, err);
	}
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, ks.key, ks.trust, &o, err);
	dom_doc_free(doc);
	wss_keys_release(handle);
	return rc;
}

/* One request and its reply, from the client's store's point of view. */
static int request(const scen_ctx *c, wss_token_store *store, lab_err *err)
{
	lab_buf wire = LAB_BUF_INIT, wrapped = LAB_BUF_INIT;
	unsigned char id[WSS_SHA1_LEN];
	const unsigned char *key;
	size_t key_len = 0;
	int rc;

	rc = client_send(c, store, &wire, err);
	if (rc == LAB_OK)
		rc = service_receive(c, &wire, &wrapped, id, err);
	if (rc != LAB_OK)
		goto out;
	key = wss_tokens_get(store, id, &key_len);
	if (key == NULL || key_len != wrapped.len ||
	    memcmp(key, wrapped.data, key_len) != 0) {
		rc = lab_fail(err, LAB_ESECURITY,
			      "the reply names a token the client does not "
			      "hold");
		goto out;
	}
	wss_tokens_done(store, id);
out:
	lab_buf_free(&wire);
	lab_buf_free(&wrapped);
	return rc;
}

/* A context for a tokens case: the dataset's name is R. */
static int new_tokens_ctx(scen_ctx **out, const lab_case_data *d,
			  lab_err *err)
{
	char *end;
	int rc = new_ctx(out, d, err);

	if (rc != LAB_OK)
		return rc;
	(*out)->requests = strtoul(d->name, &end, 10);
	if (*end != '\0' || (*out)->requests == 0)
		return lab_fail(err, LAB_EUSAGE,
				"tokens: dataset '%s' is not a request count",
				d->name);
	return LAB_OK;
}

int lab_scen_setup_tokens(void **ctx, const lab_case_data *d, lab_err *err)
{
	scen_ctx *c;
	int rc = new_tokens_ctx(&c, d, err);

	return finish(ctx, c, rc);
}

int lab_scen_run_tokens(void *ctx, lab_err *err)
{
	scen_ctx *c = ctx;
	wss_token_store *store = NULL;
	size_t i;
	int rc = wss_tokens_new(&store, err);

	for (i = 0; rc == LAB_OK && i < c->requests; i++)
		rc = request(c, store, err);
	if (rc == LAB_OK)
		c->sink += wss_tokens_count(store) + wss_tokens_expired(store);
	wss_tokens_free(store);
	return rc;
}

int lab_scen_tokens_info(void *ctx, lab_case_info *out, lab_err *err)
{
	const scen_ctx *c = ctx;

	(void)err;
	out->requests = c->requests;
	return LAB_OK;
}

/* ---- tokens_lookup ---- */

/* A fresh store as requests 1..R-1 leave it: each token put, its reply
 * validated.  Nothing is looked up: that leaves the store as it is. */
static int fill(void *ctx, lab_err *err)
{
	scen_ctx *c = ctx;
	size_t i;
	int rc;

	wss_tokens_free(c->store);
	c->store = NULL;
	rc = wss_tokens_new(&c->store, err);
	for (i = 0; rc == LAB_OK && i + 1 < c->requests; i++) {
		rc = wss_tokens_put(c->store, c->ids[i], c->wrapped,
				    sizeof c->wrapped, err);
		if (rc == LAB_OK)
			wss_tokens_done(c->store, c->ids[i]);
	}
	if (rc == LAB_OK)
		c->base = wss_tokens_count(c->store);
	return rc;
}

int lab_scen_setup_lookup(void **ctx, const lab_case_data *d, lab_err *err)
{
	scen_ctx *c;
	size_t i;
	int rc = new_tokens_ctx(&c, d, err);

	if (rc == LAB_OK) {
		c->ids = lab_malloc(c->requests * sizeof *c->ids);
		if (c->ids == NULL)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	}
	for (i = 0; rc == LAB_OK && i < c->requests; i++)
		if (wss_sha1(&i, sizeof i, c->ids[i]) != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "digest failed");
	for (i = 0; rc == LAB_OK && i < sizeof c->wrapped; i++)
		c->wrapped[i] = (unsigned char)(i * 37 + 11);
	if (rc == LAB_OK)
		rc = fill(c, err);
	return finish(ctx, c, rc);
}

int lab_scen_run_lookup(void *ctx, lab_err *err)
{
	scen_ctx *c = ctx;
	const unsigned char *id = c->ids[c->requests - 1], *key;
	size_t key_len = 0;
	int rc;

	if (wss_tokens_count(c->store) != c->base)
		return lab_fail(err, LAB_EUSAGE,
				"tokens_lookup: the store holds %zu tokens, not "
				"the %zu of %zu requests: it was not reset",
				wss_tokens_count(c->store), c->base,
				c->requests - 1);
	rc = wss_tokens_put(c->store, id, c->wrapped, sizeof c->wrapped, err);
	if (rc != LAB_OK)
		return rc;
	key = wss_tokens_get(c->store, id, &key_len);
	if (key == NULL || key_len != sizeof c->wrapped ||
	    memcmp(key, c->wrapped, key_len) != 0)
		return lab_fail(err, LAB_ESECURITY,
				"the reply names a token the client does not "
				"hold");
	wss_tokens_done(c->store, id);
	c->sink += wss_tokens_count(c->store) + wss_tokens_expired(c->store);
	return LAB_OK;
}

/* A store the run leaves bigger (list never forgets) is refilled
 * between runs; one that comes back to its count (hash) needs nothing. */
int lab_scen_lookup_info(void *ctx, lab_case_info *out, lab_err *err)
{
	const scen_ctx *c = ctx;

	(void)err;
	out->reset = wss_tokens_count(c->store) != c->base ? fill : NULL;
	return LAB_OK;
}

/* ---- attachments ---- */

/* alice's message: quakes 2 KB sent with the dataset as attachment. */
static int make_message(scen_ctx *c, lab_err *err)
{
	wss_key_paths paths = {c->k.key, c->k.cert, c->k.peer_cert, NULL};
	lab_gen_opts g = {LAB_GEN_QUAKES, 2048, 0, 0, 0};
	wss_attachment a = {att_id, (const unsigned char *)c->d->bytes,
			    c->d->len};
	lab_buf env = LAB_BUF_INIT, xml = LAB_BUF_INIT;
	wss_part part;
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_keyset ks;
	wss_opts o;
	int rc;

	opts(&o);
	o.att = &a;
	o.natt = 1;
	rc = lab_gen(&g, &env, err);
	if (rc == LAB_OK)
		rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(env.data, env.len, NULL, &doc, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &xml, err);
	memset(&part, 0, sizeof part);
	part.id = (char *)att_id;
	part.body.data = (char *)c->d->bytes;
	part.body.len = c->d->len;
	if (rc == LAB_OK)
		rc = wss_multipart_write("soap-envelope@domlab", xml.data,
					 xml.len, &part, 1, &c->msg, err);
	dom_doc_free(doc);
	wss_keys_release(handle);
	lab_buf_free(&env);
	lab_buf_free(&xml);
	return rc;
}

/* bob's side, reading the message from fd. */
static int receive_fd(scen_ctx *c, int fd, lab_err *err)
{
	wss_key_paths paths = {c->k.peer_key, NULL, NULL, c->k.cert};
	wss_attachment att[WSS_MIME_MAX_PARTS];
	lab_buf out = LAB_BUF_INIT;
	wss_multipart mp;
	wss_io *r = NULL;
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_keyset ks;
	wss_opts o;
	size_t i, k = 0;
	int rc = wss_io_open(fd, &r, err);

	memset(&mp, 0, sizeof mp);
	opts(&o);
	if (rc == LAB_OK)
		rc = wss_multipart_read(r, NULL, 0, 0, &mp, err);
	if (rc != LAB_OK)
		goto out;
	for (i = 0; i < mp.n; i++)
		if (i != mp.root)
			att[k++] = (wss_attachment){
				mp.parts[i].id,
				(const unsigned char *)mp.parts[i].body.data,
				mp.parts[i].body.len};
	o.att = att;
	o.natt = k;
	rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(mp.parts[mp.root].body.data,
			       mp.parts[mp.root].body.len, NULL, &doc, err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(doc, ks.key, ks.trust, &o, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &out, err);
	c->sink += out.len;
out:
	dom_doc_free(doc);
	wss_keys_release(handle);
	wss_multipart_free(&mp);
	wss_io_free(r);
	lab_buf_free(&out);
	return rc;
}

int lab_scen_setup_attach(void **ctx, const lab_case_data *d, lab_err *err)
{
	scen_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc == LAB_OK)
		rc = make_message(c, err);
	return finish(ctx, c, rc);
}

int lab_scen_setup_attach_file(void **ctx, const lab_case_data *d,
			       lab_err *err)
{
	scen_ctx *c;
	const char *dir = getenv("TMPDIR");
	size_t off = 0;
	int fd, rc = lab_scen_setup_attach(ctx, d, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	snprintf(c->path, sizeof c->path, "%s/domlab-att-XXXXXX",
		 dir != NULL && strlen(dir) < 40 ? dir : "/tmp");
	fd = mkstemp(c->path);
	if (fd < 0) {
		c->path[0] = '\0';
		rc = lab_fail(err, LAB_EIO, "cannot create a temporary file: %s",
			      strerror(errno));
	}
	while (rc == LAB_OK && off < c->msg.len) {
		ssize_t n = write(fd, c->msg.data + off, c->msg.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = lab_fail(err, LAB_EIO, "cannot write %s: %s",
				      c->path, strerror(errno));
		else
			off += (size_t)n;
	}
	if (fd >= 0 && close(fd) != 0 && rc == LAB_OK)
		rc = lab_fail(err, LAB_EIO, "cannot write %s", c->path);
	return finish(ctx, c, rc);
}

int lab_scen_run_attach_file(void *ctx, lab_err *err)
{
	scen_ctx *c = ctx;
	int fd = open(c->path, O_RDONLY), rc;

	if (fd < 0)
		return lab_fail(err, LAB_EIO, "cannot open %s: %s", c->path,
				strerror(errno));
	rc = receive_fd(c, fd, err);
	close(fd);
	return rc;
}

typedef struct pipe_writer {
	int fd;
	const lab_buf *msg;
} pipe_writer;

/* Writes the message into the pipe and closes it.  SIGPIPE is blocked in
 * this thread, so a reader that stops early ends the write with EPIPE
 * instead of the process. */
static void *write_pipe(void *arg)
{
	pipe_writer *w = arg;
	size_t off = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (off < w->msg->len) {
		ssize_t n = write(w->fd, w->msg->data + off, w->msg->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(w->fd);
	return NULL;
}

int lab_scen_run_attach_pipe(void *ctx, lab_err *err)
{
	scen_ctx *c = ctx;
	pipe_writer w;
	pthread_t t;
	int fds[2], rc;

	if (pipe(fds) != 0)
		return lab_fail(err, LAB_EIO, "pipe: %s", strerror(errno));
	w.fd = fds[1];
	w.msg = &c->msg;
	if (pthread_create(&t, NULL, write_pipe, &w) != 0) {
		close(fds[0]);
		close(fds[1]);
		return lab_fail(err, LAB_EIO, "cannot start the pipe's writer");
	}
	rc = receive_fd(c, fds[0], err);
	close(fds[0]);
	pthread_join(t, NULL);
	return rc;
}
