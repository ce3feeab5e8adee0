/*
 * stages.c - the stage runs and setups both implementations share
 * (harness/bench/stages.h): which party's keys each stage takes (alice
 * signs and sends, bob verifies and receives; the keys are
 * tests/make-keys.sh's), the options every message gets, and the runs
 * the case table names.
 * Not for: the stages themselves (each lab_stage_impl).
 */
#include "harness/bench/stages.h"

#include <string.h>

#include "harness/bench/envelope.h"
#include "util/alloc.h"
#include "util/timeline.h"
#include "wss/hop.h"

/* Timestamps made for the benchmark outlive any run. */
enum { BENCH_TTL = 86400 };

int lab_stage_message(const lab_stage_impl *impl, const lab_case_keys *k,
		      lab_stage stage, lab_layout layout, time_t now,
		      const char *bytes, size_t len, struct lab_timeline *tl,
		      lab_buf *out, lab_err *err)
{
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	wss_opts o;

	wss_opts_default(&o);
	o.ttl = BENCH_TTL;
	/* Encrypt then sign is the one layout where receive may take CBC
	 * (SECURITY.md, decryption oracles): it does, as --allow-cbc. */
	if (layout == LAB_LAYOUT_ENCRYPT_SIGN) {
		o.layout = WSS_ENCRYPT_SIGN;
		o.allow_cbc = 1;
	}
	o.encrypt_signature = layout == LAB_LAYOUT_ENCRYPT_SIGNATURE;
	if (layout == LAB_LAYOUT_ENCRYPTED_HEADER)
		o.encrypt_header = LAB_HEADER_BLOCK;
	o.threads = layout == LAB_LAYOUT_PIPELINED ? 2 : 1;
	o.timeline = tl;
	if (now != 0)
		o.now = now;
	if (stage == LAB_STAGE_SIGN_HEADERS || stage == LAB_STAGE_FORWARD)
		o.to = LAB_HOP_TO;
	o.headers_only = stage == LAB_STAGE_SIGN_HEADERS;
	if (stage == LAB_STAGE_SIGN || stage == LAB_STAGE_SEND ||
	    stage == LAB_STAGE_ENCRYPT || stage == LAB_STAGE_SIGN_HEADERS) {
		paths.key = k->key;
		paths.cert = k->cert;
		paths.peer_cert = k->peer_cert;
	} else {
		paths.key = k->peer_key;
		paths.trust = k->cert;
	}
	return impl->message(stage, bytes, len, &paths, &o, out, err);
}

/* lab_stage_message with c's keys at the current time. */
static int one_message(const lab_stage_ctx *c, lab_stage stage,
		       const char *bytes, size_t len, lab_buf *out,
		       lab_err *err)
{
	return lab_stage_message(c->impl, &c->k, stage, c->layout, 0, bytes,
				 len, c->timeline, out, err);
}

void lab_stage_teardown(void *ctx)
{
	lab_stage_ctx *c = ctx;

	if (c == NULL)
		return;
	if (c->doc != NULL)
		c->impl->free_doc(c->doc);
	lab_buf_free(&c->msg);
	lab_timeline_free(c->timeline);
	lab_free(c);
}

int lab_stage_info(void *ctx, lab_case_info *out, lab_err *err)
{
	const lab_stage_ctx *c = ctx;

	(void)err;
	memset(out, 0, sizeof *out);
	out->timeline = c->timeline;
	return LAB_OK;
}

/* LAB_HEADER_BLOCK's element, as the encrypted header layout adds it. */
static const char header_block[] =
	"<a:To xmlns:a=\"urn:example:addressing\">https://example.org/quakes"
	"</a:To>";

/*
 * The dataset's bytes as the case takes them: with LAB_HEADER_BLOCK's
 * element in the Header for the encrypted header layout, and, when
 * `prepare` signs a wsa:To of its own (a hop's), without the one the
 * envelope may already have.  A generated envelope's empty soap:Header
 * is filled in as text, so its bytes stay as generated; any other shape
 * goes through harness/bench/envelope.c.
 */
static int input(const lab_case_data *d, lab_stage prepare, lab_layout layout,
		 lab_buf *out, lab_err *err)
{
	static const char empty[] = "<soap:Header/>";
	int block = layout == LAB_LAYOUT_ENCRYPTED_HEADER;
	int hop = prepare == LAB_STAGE_SIGN_HEADERS &&
		  lab_envelope_has_block(d->bytes, d->len, WSS_NS_WSA, "To");
	const char *at = block ? memmem(d->bytes, d->len, empty,
					sizeof empty - 1)
			       : NULL;
	size_t head = at != NULL ? (size_t)(at - d->bytes) : d->len;

	if ((block && at == NULL) || hop)
		return lab_envelope_shape(d->bytes, d->len,
					  block ? header_block : NULL,
					  hop ? WSS_NS_WSA : NULL, "To", out,
					  err);
	if (lab_buf_put(out, d->bytes, head) != LAB_OK ||
	    (at != NULL &&
	     (lab_buf_put(out, "<soap:Header>", 13) != LAB_OK ||
	      lab_buf_put(out, header_block, sizeof header_block - 1) !=
		      LAB_OK ||
	      lab_buf_put(out, "</soap:Header>", 14) != LAB_OK ||
	      lab_buf_put(out, at + sizeof empty - 1,
			  d->len - head - (sizeof empty - 1)) != LAB_OK)))
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

static int setup(const lab_stage_impl *impl, void **ctx,
		 const lab_case_data *d, lab_stage prepare, int parse,
		 lab_layout layout, lab_err *err)
{
	lab_stage_ctx *c = lab_calloc(1, sizeof *c);
	lab_buf in = LAB_BUF_INIT;
	int rc;

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->impl = impl;
	c->layout = layout;
	rc = lab_case_key_paths(d, &c->k, err);
	if (rc == LAB_OK)
		rc = input(d, prepare, c->layout,
			   prepare == LAB_STAGE_NONE ? &c->msg : &in, err);
	if (rc == LAB_OK && prepare != LAB_STAGE_NONE)
		rc = one_message(c, prepare, in.data, in.len, &c->msg, err);
	lab_buf_free(&in);
	if (rc == LAB_OK && parse)
		rc = impl->parse(c->msg.data, c->msg.len, &c->doc, err);
	/* After `prepare`: its message's steps are not the case's. */
	if (rc == LAB_OK && layout == LAB_LAYOUT_PIPELINED &&
	    (c->timeline = lab_timeline_new()) == NULL)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc != LAB_OK) {
		lab_stage_teardown(c);
		return rc;
	}
	*ctx = c;
	return LAB_OK;
}

int lab_stage_setup(const lab_stage_impl *impl, void **ctx,
		    const lab_case_data *d, lab_stage prepare, int parse,
		    lab_err *err)
{
	return setup(impl, ctx, d, prepare, parse, LAB_LAYOUT_DEFAULT, err);
}

int lab_stage_setup_layout(const lab_stage_impl *impl, void **ctx,
			   const lab_case_data *d, lab_stage prepare,
			   lab_layout layout, lab_err *err)
{
	return setup(impl, ctx, d, prepare, 0, layout, err);
}

/* The writer's context: what it has read of the output. */
typedef struct tally {
	size_t bytes;
	uint64_t fold;
} tally;

/*
 * The output's writer: where a service would write the piece to a
 * socket, this reads it once (a sum of its 8-byte words), which costs a
 * pass over the bytes and no memory.
 */
static int take(void *ctx, const char *p, size_t n)
{
	tally *t = ctx;
	uint64_t sum = t->fold, w;
	size_t i;

	for (i = 0; i + sizeof w <= n; i += sizeof w) {
		memcpy(&w, p + i, sizeof w);
		sum += w;
	}
	for (; i < n; i++)
		sum += (unsigned char)p[i];
	t->fold = sum;
	t->bytes += n;
	return 0;
}

/* The stage, its output into a buffer, or with `pieces` to take(). */
static int run_into(lab_stage_ctx *c, lab_stage stage, int pieces,
		    lab_err *err)
{
	lab_buf out = LAB_BUF_INIT;
	tally t = {0, 0};
	int rc = LAB_OK;

	if (pieces &&
	    (rc = lab_buf_init_writer(&out, LAB_STAGE_WINDOW, take, &t)) != LAB_OK)
		return lab_fail(err, rc, "the output's writer was refused");
	rc = one_message(c, stage, c->msg.data, c->msg.len,
			 stage == LAB_STAGE_VERIFY ? NULL : &out, err);
	/* The writer has every byte once the serializer returned. */
	if (rc == LAB_OK && pieces && (out.len != 0 || t.bytes == 0))
		rc = lab_fail(err, LAB_EIO,
			      "the output's writer got %zu bytes, %zu left "
			      "unwritten",
			      t.bytes, out.len);
	c->sink = pieces ? t.bytes : out.len;
	c->fold = t.fold;
	lab_buf_free(&out);
	return rc;
}

/* A hop's bytes go on as they came, from where they are, on every
 * stack: to the writer, as a service writes them to its socket. */
static int run(void *ctx, lab_stage stage, lab_err *err)
{
	lab_stage_ctx *c = ctx;

	return run_into(c, stage,
			stage == LAB_STAGE_FORWARD ||
				(c->impl->pieces && (stage == LAB_STAGE_SEND ||
						     stage == LAB_STAGE_RECEIVE)),
			err);
}

int lab_stage_run_sign(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_SIGN, err);
}

int lab_stage_run_verify(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_VERIFY, err);
}

int lab_stage_run_encrypt(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_ENCRYPT, err);
}

int lab_stage_run_decrypt(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_DECRYPT, err);
}

int lab_stage_run_send(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_SEND, err);
}

int lab_stage_run_receive(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_RECEIVE, err);
}

int lab_stage_run_send_whole(void *ctx, lab_err *err)
{
	return run_into(ctx, LAB_STAGE_SEND, 0, err);
}

int lab_stage_run_receive_whole(void *ctx, lab_err *err)
{
	return run_into(ctx, LAB_STAGE_RECEIVE, 0, err);
}

int lab_stage_run_forward(void *ctx, lab_err *err)
{
	return run(ctx, LAB_STAGE_FORWARD, err);
}
