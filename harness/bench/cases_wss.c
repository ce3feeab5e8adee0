/*
 * cases_wss.c - the pipeline's benchmark cases: serialize, c14n, sign,
 * verify, encrypt, decrypt, send and receive, each the way a service pays
 * for it per message --
 * keys acquired through the keys variant, the message parsed, processed
 * and (when it produces one) serialized.  alice signs, bob receives; the
 * keys are tests/make-keys.sh's.  The table is in cases.c.
 */
#include <time.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "wss/c14n.h"
#include "wss/keys.h"
#include "wss/wss.h"

typedef struct wss_ctx {
	const lab_case_data *d;
	lab_case_keys k;
	lab_buf msg;   /* what run parses: the input, or it signed or sent */
	dom_doc *doc;  /* c14n: the parsed input */
	size_t sink;
} wss_ctx;

enum {
	STAGE_SIGN, STAGE_VERIFY, STAGE_ENCRYPT, STAGE_DECRYPT, STAGE_SEND,
	STAGE_RECEIVE
};

/* Timestamps made for the benchmark outlive any run. */
enum { BENCH_TTL = 86400 };

/* The clock: now (0: the current time). */
static void opts_now(wss_opts *o, time_t now)
{
	wss_opts_default(o);
	o->ttl = BENCH_TTL;
	if (now != 0)
		o->now = now;
}

/* Parses bytes, runs `stage` with keys k through the keys variant at the
 * clock now (0: the current time), and serializes the result into out
 * (when out is not NULL). */
static int one_message(const lab_case_keys *k, int stage, time_t now,
		       const char *bytes, size_t len, lab_buf *out,
		       lab_err *err)
{
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	wss_keyset ks;
	void *handle = NULL;
	dom_doc *doc = NULL;
	wss_opts o;
	int rc;

	opts_now(&o, now);
	if (stage == STAGE_SIGN || stage == STAGE_SEND ||
	    stage == STAGE_ENCRYPT) {
		paths.key = k->key;
		paths.cert = k->cert;
		paths.peer_cert = k->peer_cert;
	} else {
		paths.key = k->peer_key;
		paths.trust = k->cert;
	}
	rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(bytes, len, NULL, &doc, err);
	if (rc != LAB_OK)
		goto out;
	switch (stage) {
	case STAGE_SIGN:
		rc = wss_sign_doc(doc, ks.key, ks.cert, &o, err);
		break;
	case STAGE_VERIFY:
		rc = wss_verify_doc(doc, ks.trust, &o, err);
		break;
	case STAGE_ENCRYPT:
		rc = wss_encrypt_doc(doc, ks.peer_cert, &o, err);
		break;
	case STAGE_DECRYPT:
		rc = wss_decrypt_doc(doc, ks.key, &o, err);
		break;
	case STAGE_SEND:
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
		break;
	default:
		rc = wss_receive_doc(doc, ks.key, ks.trust, &o, err);
	}
	if (rc == LAB_OK && out != NULL)
		rc = dom_serialize(dom_doc_node(doc), out, err);
out:
	dom_doc_free(doc);
	wss_keys_release(handle);
	return rc;
}

void lab_wss_teardown(void *ctx)
{
	wss_ctx *c = ctx;

	if (c == NULL)
		return;
	dom_doc_free(c->doc);
	lab_buf_free(&c->msg);
	dom_free(c);
}

/* A context whose msg is the input after `prepare` (-1: as it is). */
static int setup(void **ctx, const lab_case_data *d, int prepare,
		 lab_err *err)
{
	wss_ctx *c = dom_calloc(1, sizeof *c);
	int rc;

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	rc = lab_case_key_paths(d, &c->k, err);
	if (rc == LAB_OK && prepare < 0) {
		if (lab_buf_put(&c->msg, d->bytes, d->len) != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	} else if (rc == LAB_OK) {
		rc = one_message(&c->k, prepare, 0, d->bytes, d->len,
				 &c->msg, err);
	}
	if (rc != LAB_OK) {
		lab_wss_teardown(c);
		return rc;
	}
	*ctx = c;
	return LAB_OK;
}

int lab_wss_setup_input(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, -1, err);
}

int lab_wss_setup_signed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, STAGE_SIGN, err);
}

int lab_wss_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err)
{
	return setup(ctx, d, STAGE_ENCRYPT, err);
}

int lab_wss_setup_sent(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, STAGE_SEND, err);
}

int lab_wss_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err)
{
	wss_ctx *c;
	int rc = setup(ctx, d, -1, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	rc = dom_parse(c->msg.data, c->msg.len, NULL, &c->doc, err);
	if (rc != LAB_OK) {
		lab_wss_teardown(c);
		*ctx = NULL;
	}
	return rc;
}

static int count_bytes(void *ctx, const char *p, size_t n)
{
	(void)p;
	*(size_t *)ctx += n;
	return 0;
}

/* The parsed input written back, as every stage that answers does. */
int lab_wss_run_serialize(void *ctx, lab_err *err)
{
	wss_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	int rc = dom_serialize(dom_doc_node(c->doc), &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

/* Exclusive C14N of the whole document, streamed into a byte count. */
int lab_wss_run_c14n(void *ctx, lab_err *err)
{
	wss_ctx *c = ctx;
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};

	c->sink = 0;
	return wss_c14n(dom_doc_node(c->doc), &o, count_bytes, &c->sink, err);
}

static int run_stage(wss_ctx *c, int stage, lab_err *err)
{
	lab_buf out = LAB_BUF_INIT;
	int rc = one_message(&c->k, stage, 0, c->msg.data, c->msg.len,
			     stage == STAGE_VERIFY ? NULL : &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

int lab_wss_run_sign(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_SIGN, err);
}

int lab_wss_run_verify(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_VERIFY, err);
}

int lab_wss_run_encrypt(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_ENCRYPT, err);
}

int lab_wss_run_decrypt(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_DECRYPT, err);
}

int lab_wss_run_send(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_SEND, err);
}

int lab_wss_run_receive(void *ctx, lab_err *err)
{
	return run_stage(ctx, STAGE_RECEIVE, err);
}

int lab_wss_receive_at(const lab_case_keys *k, const char *bytes, size_t len,
		       time_t now, lab_err *err)
{
	return one_message(k, STAGE_RECEIVE, now, bytes, len, NULL, err);
}
