/*
 * cases_latency.c - one small SOAP call, end to end, the way the old SOAP
 * latency comparison measured it (getInt / getStr with 200, 400 and 800
 * items: the ints-N and strings-N datasets):
 *
 *   latency_plain   what a stack does per call without WS-Security: parse
 *                   the request into a tree and serialize it back;
 *   latency_secure  the same call signed and encrypted: send (parse, sign,
 *                   encrypt, serialize) then receive (parse, check the
 *                   Timestamp, decrypt, verify, serialize).
 *
 * ref:latency_plain and ref:latency_secure do the same with libxml2 +
 * xmlsec1.  The secure halves are cases_wss.c's (cases_ref.c's) send and
 * receive stages: the receive half reads a message the same code sent at
 * setup, which is the work of receiving the one just sent (only the
 * session key and IV differ), without putting a setup inside the timing.
 * The table is in cases.c.
 *
 * Not for: checking what the calls produce (tests/ does) or sizes beyond
 * small messages (the send and receive cases cover those).
 */
#include "util/alloc.h"
#include "dom/dom.h"
#include "harness/bench/bench.h"
#include "harness/bench/stages.h"
#include "harness/refpeer/ref.h"

typedef struct latency_ctx {
	const lab_case_data *d;
	void *send, *receive; /* latency_secure: the two halves' contexts */
	size_t sink;
} latency_ctx;

/* The two halves of one side, domlab's pipeline or the reference: their
 * setups (the runs and the teardown are harness/bench/stages.h's). */
typedef struct half_ops {
	int (*setup_input)(void **, const lab_case_data *, lab_err *);
	int (*setup_sent)(void **, const lab_case_data *, lab_err *);
} half_ops;

static const half_ops domlab_ops = {lab_wss_setup_input, lab_wss_setup_sent};
static const half_ops ref_ops = {lab_ref_setup_input, lab_ref_setup_sent};

static void teardown(latency_ctx *c)
{
	if (c == NULL)
		return;
	if (c->send != NULL)
		lab_stage_teardown(c->send);
	if (c->receive != NULL)
		lab_stage_teardown(c->receive);
	lab_free(c);
}

static int setup(const half_ops *ops, void **ctx, const lab_case_data *d,
		 lab_err *err)
{
	latency_ctx *c = lab_calloc(1, sizeof *c);
	int rc = LAB_OK;

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	if (ops != NULL) {
		rc = ops->setup_input(&c->send, d, err);
		if (rc == LAB_OK)
			rc = ops->setup_sent(&c->receive, d, err);
	}
	if (rc != LAB_OK) {
		teardown(c);
		return rc;
	}
	*ctx = c;
	return LAB_OK;
}

int lab_latency_setup_plain(void **ctx, const lab_case_data *d, lab_err *err)
{
	return setup(NULL, ctx, d, err);
}

int lab_latency_setup_secure(void **ctx, const lab_case_data *d,
			     lab_err *err)
{
	return setup(&domlab_ops, ctx, d, err);
}

int lab_latency_setup_ref_secure(void **ctx, const lab_case_data *d,
				 lab_err *err)
{
	return setup(&ref_ops, ctx, d, err);
}

int lab_latency_run_plain(void *ctx, lab_err *err)
{
	latency_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	int rc = dom_parse(c->d->bytes, c->d->len, NULL, &doc, err);

	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &out, err);
	c->sink = out.len;
	lab_buf_free(&out);
	dom_doc_free(doc);
	return rc;
}

int lab_latency_run_ref_plain(void *ctx, lab_err *err)
{
	latency_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	xmlDocPtr doc = NULL;
	int rc = lab_ref_parse(c->d->bytes, c->d->len, &doc, err);

	if (rc == LAB_OK)
		rc = lab_ref_serialize(doc, &out, err);
	c->sink = out.len;
	lab_buf_free(&out);
	xmlFreeDoc(doc);
	return rc;
}

/* Either side's: its halves run through harness/bench/stages.h. */
int lab_latency_run_secure(void *ctx, lab_err *err)
{
	latency_ctx *c = ctx;
	int rc = lab_stage_run_send(c->send, err);

	return rc == LAB_OK ? lab_stage_run_receive(c->receive, err) : rc;
}

void lab_latency_teardown(void *ctx)
{
	teardown(ctx);
}
