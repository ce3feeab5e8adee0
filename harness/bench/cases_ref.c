/*
 * cases_ref.c - the reference peer's pipeline cases, ref:c14n, ref:sign,
 * ref:verify, ref:send, ref:receive and ref:forward: cases_wss.c's stages and setups
 * done by libxml2 + xmlsec1 (harness/refpeer/ref.h) on the same datasets
 * and keys (alice signs, bob receives), so each row compares with its
 * domlab row.  Keys are cached for the process, as keys=cached does.  The
 * stage runs are harness/bench/stages.c's; the table is in cases.c; these
 * run only with --ref.
 *
 * Not for: anything domlab's cases do not also measure.
 */
#include "harness/bench/stages.h"
#include "harness/refpeer/ref.h"

/* lab_stage_impl's message: the reference peer's operation. */
static int message(lab_stage stage, const char *bytes, size_t len,
		   const wss_key_paths *paths, const wss_opts *o, lab_buf *out,
		   lab_err *err)
{
	static const lab_ref_op ops[] = {
		[LAB_STAGE_SIGN] = LAB_REF_SIGN,
		[LAB_STAGE_VERIFY] = LAB_REF_VERIFY,
		[LAB_STAGE_ENCRYPT] = LAB_REF_ENCRYPT,
		[LAB_STAGE_DECRYPT] = LAB_REF_DECRYPT,
		[LAB_STAGE_SEND] = LAB_REF_SEND,
		[LAB_STAGE_RECEIVE] = LAB_REF_RECEIVE,
		[LAB_STAGE_SIGN_HEADERS] = LAB_REF_SIGN,
		[LAB_STAGE_FORWARD] = LAB_REF_FORWARD,
	};

	return lab_ref_message(ops[stage], bytes, len, paths, o, out, err);
}

static int parse(const char *bytes, size_t len, void **doc, lab_err *err)
{
	xmlDocPtr d = NULL;
	int rc = lab_ref_parse(bytes, len, &d, err);

	*doc = d;
	return rc;
}

static void free_doc(void *doc)
{
	xmlFreeDoc(doc);
}

static const lab_stage_impl ref = {message, parse, free_doc, 0};

int lab_ref_setup_input(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_NONE, 0, err);
}

int lab_ref_setup_signed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_SIGN, 0, err);
}

int lab_ref_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_ENCRYPT, 0, err);
}

int lab_ref_setup_sent(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_SEND, 0, err);
}

int lab_ref_setup_layout_input(void **ctx, const lab_case_data *d,
			       lab_layout layout, lab_err *err)
{
	return lab_stage_setup_layout(&ref, ctx, d, LAB_STAGE_NONE, layout,
				      err);
}

int lab_ref_setup_layout_sent(void **ctx, const lab_case_data *d,
			      lab_layout layout, lab_err *err)
{
	return lab_stage_setup_layout(&ref, ctx, d, LAB_STAGE_SEND, layout,
				      err);
}

int lab_ref_setup_hop(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_SIGN_HEADERS, 0, err);
}

int lab_ref_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&ref, ctx, d, LAB_STAGE_NONE, 1, err);
}

int lab_ref_run_traverse(void *ctx, lab_err *err)
{
	lab_stage_ctx *c = ctx;

	(void)err;
	lab_ref_traverse(c->doc, &c->sink);
	return LAB_OK;
}

int lab_ref_run_serialize(void *ctx, lab_err *err)
{
	lab_stage_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	int rc = lab_ref_serialize(c->doc, &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

/* Exclusive C14N of the whole document, its bytes only counted. */
int lab_ref_run_c14n(void *ctx, lab_err *err)
{
	lab_stage_ctx *c = ctx;

	return lab_ref_c14n(c->doc, NULL, &c->sink, err);
}
