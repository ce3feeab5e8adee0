/*
 * cases_floor.c - the physical floor the pipeline is measured against
 * (`domlab-bench bench --floor`, cases named floor:<what>/<dataset>): touching
 * the message's bytes once (memcpy, memchr), and the cryptography alone,
 * timed with OpenSSL through wss/crypto.h -- SHA-256 over the Body's
 * exclusive canonical form, SHA-256 over the small parts a message signs
 * beside it (the Timestamp and the SignedInfo), AES over the Body's
 * content both ways, and the four RSA operations.  Each is work the
 * profile needs once per message, so no variant can make a send or a
 * receive cheaper than their sum; harness/reports/run.py says which parts
 * each stage's floor adds up (docs/measuring.md derives them).  The
 * table is in cases.c.
 *
 * Not for: anything a variant changes.  Keys are loaded once in setup
 * (the floor has no keys axis) and every run reuses the context's
 * buffers, so what is timed is the byte work and the crypto only.
 */
#include <string.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "harness/bench/stages.h"
#include "wss/c14n.h"
#include "wss/crypto.h"
#include "wss/msg.h"
#include "wss/profile.h"

typedef struct floor_ctx {
	const lab_case_data *d;
	lab_buf in;       /* what run reads: bytes, canonical form or Body */
	lab_buf in2;      /* sha256_small: the canonical SignedInfo;
			   * aes256gcm_decrypt: `in` encrypted under `key` */
	lab_buf out;      /* what run writes; capacity kept between runs */
	unsigned char key[WSS_MAX_KEY_LEN]; /* AES key; the key wrapped */
	wss_privkey *alice_key, *bob_key;
	wss_cert *alice_cert, *bob_cert;
	lab_buf sig;      /* rsa_verify: a signature over `in` */
	lab_buf wrapped;  /* oaep_unwrap: `key` wrapped for bob */
	size_t sink;
} floor_ctx;

void lab_floor_teardown(void *ctx)
{
	floor_ctx *c = ctx;

	if (c == NULL)
		return;
	lab_buf_free(&c->in);
	lab_buf_free(&c->in2);
	lab_buf_free(&c->out);
	lab_buf_free(&c->sig);
	lab_buf_free(&c->wrapped);
	wss_privkey_free(c->alice_key);
	wss_privkey_free(c->bob_key);
	wss_cert_free(c->alice_cert);
	wss_cert_free(c->bob_cert);
	lab_free(c);
}

static int new_ctx(floor_ctx **out, const lab_case_data *d, lab_err *err)
{
	floor_ctx *c = lab_calloc(1, sizeof *c);

	*out = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	*out = c;
	return LAB_OK;
}

/* Hands a finished context to the caller, or frees it on failure. */
static int finish(void **ctx, floor_ctx *c, int rc)
{
	if (rc != LAB_OK) {
		lab_floor_teardown(c);
		c = NULL;
	}
	*ctx = c;
	return rc;
}

/* memcpy, memchr: the message as generated, and room for a copy. */
int lab_floor_setup_bytes(void **ctx, const lab_case_data *d, lab_err *err)
{
	floor_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc != LAB_OK)
		return rc;
	if (lab_buf_put(&c->in, d->bytes, d->len) != LAB_OK ||
	    lab_buf_reserve(&c->out, d->len) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	return finish(ctx, c, rc);
}

/* sha256: the Body in exclusive C14N, what a sender digests and a
 * receiver digests again, made once here. */
int lab_floor_setup_canonical(void **ctx, const lab_case_data *d,
			      lab_err *err)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	dom_doc *doc = NULL;
	wss_msg m;
	floor_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc != LAB_OK)
		return rc;
	rc = dom_parse(d->bytes, d->len, NULL, &doc, err);
	if (rc == LAB_OK)
		rc = wss_msg_open(doc, 0, LAB_EMALFORMED, &m, err);
	if (rc == LAB_OK)
		rc = wss_c14n_buf(m.body, &o, &c->in, err);
	dom_doc_free(doc);
	return finish(ctx, c, rc);
}

/* The first element under top (top included), in document order, named
 * {ns}local; NULL if there is none. */
static const dom_node *find_element(const dom_node *top, const char *ns,
				    const char *local)
{
	const dom_node *n = top;

	while (n != NULL) {
		const char *u = dom_ns_uri(n);

		if (dom_node_type(n) == DOM_ELEMENT && u != NULL &&
		    strcmp(u, ns) == 0 && strcmp(dom_local_name(n), local) == 0)
			return n;
		if (dom_first_child(n) != NULL) {
			n = dom_first_child(n);
			continue;
		}
		while (n != top && dom_next_sibling(n) == NULL)
			n = dom_parent(n);
		n = n == top ? NULL : dom_next_sibling(n);
	}
	return NULL;
}

/* The canonical form of the {ns}local element of doc into out. */
static int canonical_of(dom_doc *doc, const char *ns, const char *local,
			lab_buf *out, lab_err *err)
{
	wss_c14n_opts o = {1, 0, NULL, 0, NULL};
	const dom_node *n = find_element(dom_doc_node(doc), ns, local);

	if (n == NULL)
		return lab_fail(err, LAB_EMALFORMED, "sent message has no %s",
				local);
	return wss_c14n_buf(n, &o, out, err);
}

/*
 * sha256_small: the two digests of a message besides the Body's, over
 * the canonical Timestamp (its Reference) and the canonical SignedInfo
 * (hashed for the signature), taken from the dataset as send makes it.
 */
int lab_floor_setup_small(void **ctx, const lab_case_data *d, lab_err *err)
{
	void *sent = NULL;
	dom_doc *doc = NULL;
	floor_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc != LAB_OK)
		return rc;
	rc = lab_wss_setup_sent(&sent, d, err);
	if (rc == LAB_OK) {
		const lab_stage_ctx *s = sent;

		rc = dom_parse(s->msg.data, s->msg.len, NULL, &doc, err);
	}
	if (rc == LAB_OK)
		rc = canonical_of(doc, WSS_NS_WSU, "Timestamp", &c->in, err);
	if (rc == LAB_OK)
		rc = canonical_of(doc, WSS_NS_DS, "SignedInfo", &c->in2, err);
	dom_doc_free(doc);
	lab_stage_teardown(sent);
	return finish(ctx, c, rc);
}

/* aes*: the Body's content serialized, as the encrypting side takes it,
 * and a random key. */
int lab_floor_setup_body(void **ctx, const lab_case_data *d, lab_err *err)
{
	dom_doc *doc = NULL;
	dom_node *n;
	wss_msg m;
	floor_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc != LAB_OK)
		return rc;
	rc = dom_parse(d->bytes, d->len, NULL, &doc, err);
	if (rc == LAB_OK)
		rc = wss_msg_open(doc, 0, LAB_EMALFORMED, &m, err);
	for (n = rc == LAB_OK ? dom_first_child(m.body) : NULL;
	     n != NULL && rc == LAB_OK; n = dom_next_sibling(n))
		rc = dom_serialize(n, &c->in, err);
	if (rc == LAB_OK)
		rc = wss_random(c->key, sizeof c->key, err);
	dom_doc_free(doc);
	return finish(ctx, c, rc);
}

/* aes256gcm_decrypt: the Body's content as above, encrypted here. */
int lab_floor_setup_sealed(void **ctx, const lab_case_data *d, lab_err *err)
{
	floor_ctx *c;
	int rc = lab_floor_setup_body(ctx, d, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	rc = wss_encrypt(WSS_AES256_GCM, c->key, c->in.data, c->in.len,
			 &c->in2, err);
	return finish(ctx, c, rc);
}

static int load_keys(floor_ctx *c, lab_err *err)
{
	lab_case_keys k;
	int rc = lab_case_key_paths(c->d, &k, err);

	if (rc == LAB_OK)
		rc = wss_privkey_load(k.key, &c->alice_key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(k.cert, &c->alice_cert, err);
	if (rc == LAB_OK)
		rc = wss_privkey_load(k.peer_key, &c->bob_key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(k.peer_cert, &c->bob_cert, err);
	return rc;
}

/*
 * rsa_* and oaep_*: alice signs, bob unwraps, as in the pipeline cases.
 * What is signed is the size of two SHA-256 digests, so the operation
 * costs the same on every dataset; hashing the SignedInfo itself is
 * sha256_small's (the 64 bytes hashed here are one block more, well
 * under 1% of the RSA operation).
 */
int lab_floor_setup_rsa(void **ctx, const lab_case_data *d, lab_err *err)
{
	unsigned char digests[2 * WSS_SHA256_LEN];
	floor_ctx *c;
	int rc = new_ctx(&c, d, err);

	if (rc != LAB_OK)
		return rc;
	rc = load_keys(c, err);
	if (rc == LAB_OK)
		rc = wss_random(c->key, sizeof c->key, err);
	if (rc == LAB_OK)
		rc = wss_random(digests, sizeof digests, err);
	if (rc == LAB_OK &&
	    lab_buf_put(&c->in, digests, sizeof digests) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = wss_rsa_sign_sha256(c->alice_key, c->in.data, c->in.len,
					 &c->sig, err);
	if (rc == LAB_OK)
		rc = wss_rsa_oaep_wrap(c->bob_cert, c->key, sizeof c->key,
				       &c->wrapped, err);
	return finish(ctx, c, rc);
}

int lab_floor_run_memcpy(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	(void)err;
	memcpy(c->out.data, c->in.data, c->in.len);
	c->sink += (unsigned char)c->out.data[c->in.len / 2];
	return LAB_OK;
}

/* A byte XML text never holds, so the whole message is scanned. */
int lab_floor_run_memchr(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	if (memchr(c->in.data, '\0', c->in.len) != NULL)
		return lab_fail(err, LAB_EUSAGE, "NUL byte in %s", c->d->name);
	c->sink++;
	return LAB_OK;
}

int lab_floor_run_sha256(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;
	unsigned char md[WSS_SHA256_LEN];

	if (wss_sha256(c->in.data, c->in.len, md) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->sink += md[0];
	return LAB_OK;
}

int lab_floor_run_sha256_small(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;
	unsigned char ts[WSS_SHA256_LEN], si[WSS_SHA256_LEN];

	if (wss_sha256(c->in.data, c->in.len, ts) != LAB_OK ||
	    wss_sha256(c->in2.data, c->in2.len, si) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->sink += ts[0] + si[0];
	return LAB_OK;
}

static int run_aes(floor_ctx *c, wss_cipher cipher, lab_err *err)
{
	c->out.len = 0;
	return wss_encrypt(cipher, c->key, c->in.data, c->in.len, &c->out,
			   err);
}

int lab_floor_run_aes256gcm(void *ctx, lab_err *err)
{
	return run_aes(ctx, WSS_AES256_GCM, err);
}

int lab_floor_run_aes128cbc(void *ctx, lab_err *err)
{
	return run_aes(ctx, WSS_AES128_CBC, err);
}

int lab_floor_run_aes256gcm_decrypt(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	c->out.len = 0;
	return wss_decrypt(WSS_AES256_GCM, c->key, c->in2.data, c->in2.len,
			   &c->out, err);
}

int lab_floor_run_rsa_sign(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	c->out.len = 0;
	return wss_rsa_sign_sha256(c->alice_key, c->in.data, c->in.len,
				   &c->out, err);
}

int lab_floor_run_rsa_verify(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	return wss_rsa_verify_sha256(c->alice_cert, c->in.data, c->in.len,
				     (const unsigned char *)c->sig.data,
				     c->sig.len, err);
}

int lab_floor_run_oaep_wrap(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;

	c->out.len = 0;
	return wss_rsa_oaep_wrap(c->bob_cert, c->key, sizeof c->key, &c->out,
				 err);
}

int lab_floor_run_oaep_unwrap(void *ctx, lab_err *err)
{
	floor_ctx *c = ctx;
	unsigned char key[WSS_MAX_KEY_LEN];
	size_t len;

	return wss_rsa_oaep_unwrap(c->bob_key,
				   (const unsigned char *)c->wrapped.data,
				   c->wrapped.len, key, sizeof key, &len, err);
}
