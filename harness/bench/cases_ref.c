/*
 * cases_ref.c - the reference peer's pipeline cases, ref:c14n, ref:sign,
 * ref:verify, ref:send and ref:receive: cases_wss.c's stages and setups
 * done by libxml2 + xmlsec1 (harness/refpeer/ref.h) on the same datasets and keys
 * (alice signs, bob receives), so each row compares with its domlab row.
 * Keys are cached for the process, as keys=cached does.  The table is in
 * cases.c; these run only with --ref.
 *
 * Not for: anything domlab's cases do not also measure.
 */

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "harness/refpeer/ref.h"

typedef struct ref_ctx {
	lab_case_keys k;
	lab_buf msg;   /* what run parses: the input, or what ref signed or sent */
	xmlDocPtr doc; /* c14n: the parsed input */
	size_t sink;
} ref_ctx;

/* Timestamps made for the benchmark outlive any run (cases_wss.c's). */
enum { BENCH_TTL = 86400 };

/* Parses bytes, runs op with the case's keys and, when out is not NULL,
 * serializes the result into it; the clock is read per message, as
 * cases_wss.c does. */
static int one_message(const ref_ctx *c, lab_ref_op op, const char *bytes,
		       size_t len, lab_buf *out, lab_err *err)
{
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	wss_opts o;

	wss_opts_default(&o);
	o.ttl = BENCH_TTL;
	if (op == LAB_REF_SIGN || op == LAB_REF_SEND ||
	    op == LAB_REF_ENCRYPT) {
		paths.key = c->k.key;
		paths.cert = c->k.cert;
		paths.peer_cert = c->k.peer_cert;
	} else {
		paths.key = c->k.peer_key;
		paths.trust = c->k.cert;
	}
	return lab_ref_message(op, bytes, len, &paths, &o, out, err);
}

void lab_ref_teardown(void *ctx)
{
	ref_ctx *c = ctx;

	if (c == NULL)
		return;
	xmlFreeDoc(c->doc);
	lab_buf_free(&c->msg);
	dom_free(c);
}

/* A context whose msg is the input after the lab_ref_op `prepare` (-1:
 * as it is). */
static int setup(void **ctx, const lab_case_data *d, int prepare,
		 lab_err *err)
{
	ref_ctx *c = dom_calloc(1, sizeof *c);
	int rc;

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = lab_case_key_paths(d, &c->k, err);
	if (rc == LAB_OK && prepare < 0) {
		if (lab_buf_put(&c->msg, d->bytes, d->len) != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	} else if (rc == LAB_OK) {
		rc = one_message(c, (lab_ref_op)prepare, d->bytes, d->len, &c->msg, err);
	}
	if (rc != LAB_OK) {
		lab_ref_teardown(c);
		return rc;
	}
	*ctx = c;
	return LAB_OK;
}

int lab_ref_setup_input(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, -1, err);
}

int lab_ref_setup_signed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, LAB_REF_SIGN, err);
}

int lab_ref_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err)
{
	return setup(ctx, d, LAB_REF_ENCRYPT, err);
}

int lab_ref_setup_sent(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(ctx, d, LAB_REF_SEND, err);
}

int lab_ref_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err)
{
	ref_ctx *c;
	int rc = setup(ctx, d, -1, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	rc = lab_ref_parse(c->msg.data, c->msg.len, &c->doc, err);
	if (rc != LAB_OK) {
		lab_ref_teardown(c);
		*ctx = NULL;
	}
	return rc;
}

int lab_ref_run_traverse(void *ctx, lab_err *err)
{
	ref_ctx *c = ctx;

	(void)err;
	lab_ref_traverse(c->doc, &c->sink);
	return LAB_OK;
}

int lab_ref_run_serialize(void *ctx, lab_err *err)
{
	ref_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	int rc = lab_ref_serialize(c->doc, &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

/* Exclusive C14N of the whole document, its bytes only counted. */
int lab_ref_run_c14n(void *ctx, lab_err *err)
{
	ref_ctx *c = ctx;

	return lab_ref_c14n(c->doc, NULL, &c->sink, err);
}

static int run_stage(ref_ctx *c, lab_ref_op op, lab_err *err)
{
	lab_buf out = LAB_BUF_INIT;
	int rc = one_message(c, op, c->msg.data, c->msg.len,
			     op == LAB_REF_VERIFY ? NULL : &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

int lab_ref_run_sign(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_SIGN, err);
}

int lab_ref_run_verify(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_VERIFY, err);
}

int lab_ref_run_encrypt(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_ENCRYPT, err);
}

int lab_ref_run_decrypt(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_DECRYPT, err);
}

int lab_ref_run_send(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_SEND, err);
}

int lab_ref_run_receive(void *ctx, lab_err *err)
{
	return run_stage(ctx, LAB_REF_RECEIVE, err);
}
