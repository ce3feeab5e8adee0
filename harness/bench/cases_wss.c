/*
 * cases_wss.c - the pipeline's benchmark cases: serialize, c14n, sign,
 * verify, encrypt, decrypt, send, receive and forward (the
 * intermediary), each the way a service pays for it per message -- keys acquired through the keys variant, the
 * message parsed, processed and (when it produces one) serialized.  The
 * stage runs are harness/bench/stages.c's; the table is in cases.c.
 * Not for: the reference peer's cases (cases_ref.c).
 */
#include "harness/bench/stages.h"
#include "util/timeline.h"
#include "wss/c14n.h"

/* forward: the hop's checks, then the bytes passed on as they came. */
static int forward(dom_doc *doc, const wss_cert *trust, const wss_opts *o,
		   const char *bytes, size_t len, lab_buf *out, lab_err *err)
{
	lab_buf to = LAB_BUF_INIT;
	int rc = wss_forward_doc(doc, trust, o, &to, err);

	if (rc == LAB_OK && out != NULL)
		rc = lab_buf_put_all(out, bytes, len, err);
	lab_buf_free(&to);
	return rc;
}

/* lab_stage_impl's message: with keys from the keys variant. */
static int message(lab_stage stage, const char *bytes, size_t len,
		   const wss_key_paths *paths, const wss_opts *o, lab_buf *out,
		   lab_err *err)
{
	wss_keyset ks;
	void *handle = NULL;
	dom_doc *doc = NULL;
	int rc = wss_keys_acquire(paths, &ks, &handle, err);

	/* A sender that signs the Body says so to the parse; send parses
	 * its bytes itself (on two threads, it digests them meanwhile). */
	if (rc == LAB_OK && stage == LAB_STAGE_SEND)
		rc = wss_send_bytes(bytes, len, ks.key, ks.cert, ks.peer_cert,
				    o, &doc, out, err);
	else if (rc == LAB_OK)
		rc = stage == LAB_STAGE_SIGN
			     ? dom_parse_signing(bytes, len, NULL, &doc, err)
			     : dom_parse(bytes, len, NULL, &doc, err);
	if (stage != LAB_STAGE_SEND)
		lab_timeline_mark(o->timeline, "parsed");
	if (rc != LAB_OK)
		goto out;
	switch (stage) {
	case LAB_STAGE_SIGN:
	case LAB_STAGE_SIGN_HEADERS:
		rc = wss_sign_doc(doc, ks.key, ks.cert, o, err);
		break;
	case LAB_STAGE_FORWARD:
		rc = forward(doc, ks.trust, o, bytes, len, out, err);
		goto out;
	case LAB_STAGE_VERIFY:
		rc = wss_verify_doc(doc, ks.trust, o, err);
		break;
	case LAB_STAGE_ENCRYPT:
		rc = wss_encrypt_doc(doc, ks.peer_cert, o, err);
		break;
	case LAB_STAGE_DECRYPT:
		rc = wss_decrypt_doc(doc, ks.key, o, err);
		break;
	case LAB_STAGE_SEND:
		goto out; /* out written by the send */
	default:
		rc = wss_receive_doc(doc, ks.key, ks.trust, o, err);
	}
	if (rc == LAB_OK && out != NULL) {
		rc = dom_serialize(dom_doc_node(doc), out, err);
		lab_timeline_mark(o->timeline, "serialized");
	}
out:
	dom_doc_free(doc);
	wss_keys_release(handle);
	return rc;
}

static int parse(const char *bytes, size_t len, void **doc, lab_err *err)
{
	dom_doc *d = NULL;
	int rc = dom_parse(bytes, len, NULL, &d, err);

	*doc = d;
	return rc;
}

static void free_doc(void *doc)
{
	dom_doc_free(doc);
}

static const lab_stage_impl domlab = {message, parse, free_doc, 1};

int lab_wss_setup_input(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_NONE, 0, err);
}

int lab_wss_setup_signed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_SIGN, 0, err);
}

int lab_wss_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_ENCRYPT, 0, err);
}

int lab_wss_setup_sent(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_SEND, 0, err);
}

int lab_wss_setup_layout_input(void **ctx, const lab_case_data *d,
			       lab_layout layout, lab_err *err)
{
	return lab_stage_setup_layout(&domlab, ctx, d, LAB_STAGE_NONE, layout,
				      err);
}

int lab_wss_setup_layout_sent(void **ctx, const lab_case_data *d,
			      lab_layout layout, lab_err *err)
{
	return lab_stage_setup_layout(&domlab, ctx, d, LAB_STAGE_SEND, layout,
				      err);
}

int lab_wss_setup_hop(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_SIGN_HEADERS, 0, err);
}

int lab_wss_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&domlab, ctx, d, LAB_STAGE_NONE, 1, err);
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
	lab_stage_ctx *c = ctx;
	lab_buf out = LAB_BUF_INIT;
	int rc = dom_serialize(dom_doc_node(c->doc), &out, err);

	c->sink = out.len;
	lab_buf_free(&out);
	return rc;
}

/* Exclusive C14N of the whole document, streamed into a byte count. */
int lab_wss_run_c14n(void *ctx, lab_err *err)
{
	lab_stage_ctx *c = ctx;
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};

	c->sink = 0;
	return wss_c14n(dom_doc_node(c->doc), &o, count_bytes, &c->sink, err);
}

int lab_wss_receive_at(const lab_case_keys *k, int allow_cbc,
		       const char *bytes, size_t len, time_t now, lab_err *err)
{
	return lab_stage_message(&domlab, k, LAB_STAGE_RECEIVE,
				 allow_cbc ? LAB_LAYOUT_ENCRYPT_SIGN
					   : LAB_LAYOUT_DEFAULT,
				 now, bytes, len, NULL, NULL, err);
}
