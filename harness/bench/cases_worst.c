/*
 * cases_worst.c - the worst cases (bench.h): a hostile message through
 * the command an attacker reaches with it, timed whether it is refused or
 * parsed.  What counts as the outcome: parse takes the document or
 * refuses it for a limit (LAB_EMALFORMED); receive refuses it (exit 2 or
 * 3).  Anything else fails the case, so a run cannot time an error path
 * it did not mean to, nor a forged message received.  The table and the
 * datasets are in cases.c.
 *
 * Not for: the shapes themselves (datasets/hostile.c, datasets/preauth.c)
 * or checking refusal messages (tests/hostile.sh, tests/cli.sh do).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "datasets/preauth.h"
#include "dom/dom.h"
#include "wss/keys.h"

typedef struct worst_ctx {
	const lab_case_data *d;
	lab_case_keys k;
	lab_buf own;       /* the message the setup wrote (preauth shapes) */
	const char *bytes; /* what run reads: d's bytes or own */
	size_t len;
	int allow_cbc;     /* receive as `--allow-cbc` does */
} worst_ctx;

void lab_worst_teardown(void *ctx)
{
	worst_ctx *c = ctx;

	if (c == NULL)
		return;
	lab_buf_free(&c->own);
	lab_free(c);
}

int lab_worst_setup_parse(void **ctx, const lab_case_data *d, lab_err *err)
{
	worst_ctx *c = lab_calloc(1, sizeof *c);

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	c->bytes = d->bytes;
	c->len = d->len;
	*ctx = c;
	return LAB_OK;
}

/* The preauth shape `kind` of about len bytes into c->own, made by
 * alice for bob at LAB_WORST_NOW. */
static int write_preauth(worst_ctx *c, lab_hostile_kind kind, size_t len,
			 lab_err *err)
{
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	lab_hostile_opts o = {0};
	wss_keyset ks;
	void *handle = NULL;
	int rc;

	paths.key = c->k.key;
	paths.cert = c->k.cert;
	paths.peer_cert = c->k.peer_cert;
	rc = wss_keys_acquire(&paths, &ks, &handle, err);
	if (rc != LAB_OK)
		return rc;
	o.kind = kind;
	o.size = len;
	o.key = ks.key;
	o.cert = ks.cert;
	o.peer = ks.peer_cert;
	o.now = LAB_WORST_NOW;
	rc = lab_hostile(&o, &c->own, err);
	wss_keys_release(handle);
	return rc;
}

/* d's preauth shape: its name, or (an oracle case's) "oracle-" and its
 * name less the size after its last '-'. */
static int preauth_kind(const lab_case_data *d, lab_hostile_kind *kind)
{
	char name[64];
	const char *dash = strrchr(d->name, '-');
	int n = dash != NULL ? (int)(dash - d->name) : 0;

	if (lab_hostile_kind_parse(d->name, kind))
		return 1;
	if (snprintf(name, sizeof name, "oracle-%.*s", n, d->name) >=
	    (int)sizeof name)
		return 0;
	return lab_hostile_kind_parse(name, kind);
}

int lab_worst_setup_receive(void **ctx, const lab_case_data *d, lab_err *err)
{
	lab_hostile_kind kind;
	worst_ctx *c;
	int rc = lab_worst_setup_parse(ctx, d, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	rc = lab_case_key_paths(d, &c->k, err);
	if (rc == LAB_OK && preauth_kind(d, &kind)) {
		c->allow_cbc = kind == LAB_HOSTILE_ORACLE_CBC_PARSES ||
			       kind == LAB_HOSTILE_ORACLE_CBC_GARBLED;
		rc = write_preauth(c, kind, d->len, err);
		c->bytes = c->own.data;
		c->len = c->own.len;
	}
	if (rc != LAB_OK) {
		lab_worst_teardown(c);
		*ctx = NULL;
	}
	return rc;
}

int lab_worst_run_parse(void *ctx, lab_err *err)
{
	const worst_ctx *c = ctx;
	dom_doc *doc;
	int rc = dom_parse(c->bytes, c->len, NULL, &doc, err);

	if (rc == LAB_OK)
		dom_doc_free(doc);
	else if (rc == LAB_EMALFORMED)
		rc = LAB_OK;
	return rc;
}

int lab_worst_run_receive(void *ctx, lab_err *err)
{
	const worst_ctx *c = ctx;
	int rc = lab_wss_receive_at(&c->k, c->allow_cbc, c->bytes, c->len,
				    LAB_WORST_NOW, err);

	if (rc == LAB_OK)
		return lab_fail(err, LAB_ESECURITY,
				"%s: the hostile message was received",
				c->d->name);
	return rc == LAB_EMALFORMED || rc == LAB_ESECURITY ? LAB_OK : rc;
}
