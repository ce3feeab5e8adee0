/*
 * seal.c - the Body's CipherValue made while the Body is digested
 * (wss/seal.h): the digest's walk writes the content through a window
 * whose writer encrypts each piece and hands the octets to the DOM's
 * base64 text (dom_create_text_b64), made at its final size.
 * With wss_seal_pipeline the pieces go to a second thread instead
 * (wss/send_pipelined.h), which encrypts and encodes them, then wraps
 * the session key, while this one digests and signs; wss_seal_join
 * waits for it.
 * Not for: the fallback's whole-buffer encryption (wss/xenc.c).
 */
#include "wss/seal.h"

#include <openssl/crypto.h>
#include <stdint.h>
#include <string.h>

#include "util/timeline.h"
#include "wss/c14n.h"
#include "wss/send_pipelined.h"

/* WINDOW: the plaintext held at a time, below the 16 KB pieces the
 * digest hands on, which then pass it without a copy; CHUNK: octets
 * made per call. */
enum { WINDOW = 4096, CHUNK = 4096 };

/* Encrypts p[0..n) and writes its base64: on this thread, or on the
 * worker's when the seal is pipelined. */
static int seal_encrypt(void *ctx, const char *p, size_t n)
{
	wss_seal *s = ctx;
	unsigned char ct[CHUNK + WSS_TAIL_ROOM];
	lab_err ignored;

	while (n > 0) {
		size_t k = n < CHUNK ? n : CHUNK, m;

		if (wss_enc_update(s->enc, p, k, ct, &m, &ignored) != LAB_OK ||
		    dom_b64_put(&s->b64, ct, m) != LAB_OK)
			return LAB_EIO;
		p += k;
		n -= k;
	}
	return LAB_OK;
}

/* The window's writer.  Bytes past the length announced are counted,
 * not encrypted: wss_seal_end then says the walk gave others. */
static int seal_write(void *ctx, const char *p, size_t n)
{
	wss_seal *s = ctx;

	s->got += n;
	if (s->got > s->expect)
		return LAB_OK;
	return s->pipe != NULL ? wss_pipelined_put(s->pipe, p, n)
			       : seal_encrypt(s, p, n);
}

/* After the last byte: the tag or padding, and the text finished. */
static int seal_finish(void *ctx, lab_err *err)
{
	wss_seal *s = ctx;
	unsigned char tail[2 * WSS_TAIL_ROOM];
	size_t k;
	int rc = wss_enc_end(s->enc, s->got, tail, &k, err);

	if (rc == LAB_OK && dom_b64_put(&s->b64, tail, k) != LAB_OK)
		rc = lab_fail(err, LAB_EUSAGE, "the CipherValue's length is "
					       "not the one announced");
	if (rc == LAB_OK)
		rc = dom_b64_end(&s->b64, err);
	s->done = rc == LAB_OK;
	lab_timeline_mark(s->timeline, "sealed");
	if (rc == LAB_OK && s->peer != NULL)
		rc = wss_rsa_oaep_wrap(s->peer, s->key, s->keylen, &s->wrapped,
				       err);
	return rc;
}

int wss_seal_begin(wss_seal *s, wss_msg *m, wss_cipher c, size_t n,
		   lab_err *err)
{
	unsigned char iv[WSS_IV_ROOM];
	size_t ivlen;
	int rc;

	memset(s, 0, sizeof *s);
	s->window = (lab_buf)LAB_BUF_INIT;
	s->plain = (lab_buf)LAB_BUF_INIT;
	s->wrapped = (lab_buf)LAB_BUF_INIT;
	s->cipher = c;
	s->keylen = wss_cipher_key_len(c);
	s->expect = n;
	s->timeline = m->timeline;
	m->seal = s;
	if (s->keylen == 0 || s->keylen > sizeof s->key)
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	if (n > SIZE_MAX / 4)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = wss_random(s->key, s->keylen, err);
	if (rc == LAB_OK)
		rc = wss_enc_begin(&s->enc, c, s->key, iv, &ivlen, err);
	if (rc == LAB_OK)
		rc = dom_create_text_b64(m->doc, wss_cipher_octets(c, n),
					 &s->b64, &s->text, err);
	if (rc == LAB_OK && dom_b64_put(&s->b64, iv, ivlen) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = lab_buf_init_writer(&s->window, WINDOW, seal_write, s);
	m->content = &s->window;
	m->content_at = 0;
	return rc;
}

int wss_seal_end(wss_seal *s, lab_err *err)
{
	if (lab_buf_flush(&s->window) != LAB_OK)
		return lab_fail(err, LAB_EIO, "encrypting the content failed");
	if (s->got != s->expect)
		return WSS_C14N_AGAIN;
	if (s->pipe == NULL)
		return seal_finish(s, err);
	return wss_pipelined_finish(s->pipe) != LAB_OK
		       ? lab_fail(err, LAB_EIO, "encrypting the content failed")
		       : LAB_OK;
}

int wss_seal_pipeline(wss_seal *s, const wss_cert *peer, lab_err *err)
{
	if (s->expect <= WSS_PIPELINED_PIECE)
		return LAB_OK;
	s->peer = peer;
	return wss_pipelined_start(&s->pipe, seal_encrypt, seal_finish, s,
				   err);
}

int wss_seal_join(wss_seal *s, lab_err *err)
{
	wss_pipelined *w = s->pipe;

	s->pipe = NULL;
	return w != NULL ? wss_pipelined_join(w, err) : LAB_OK;
}

/* The window's plaintext, wiped and freed. */
static void wipe_window(wss_seal *s)
{
	if (s->window.data != NULL)
		OPENSSL_cleanse(s->window.data, s->window.cap);
	lab_buf_free(&s->window);
}

int wss_seal_abandon(wss_seal *s, wss_msg *m, lab_err *err)
{
	wss_pipelined_cancel(s->pipe);
	s->pipe = NULL;
	wipe_window(s);
	wss_enc_free(s->enc);
	s->enc = NULL;
	if (s->text != NULL)
		dom_node_free(s->text);
	s->text = NULL;
	s->done = 0;
	s->peer = NULL;
	s->wrapped.len = 0;
	return wss_msg_content_room(m, &s->plain, err);
}

dom_node *wss_seal_take(wss_seal *s)
{
	dom_node *t = s->done ? s->text : NULL;

	if (t != NULL)
		s->text = NULL;
	return t;
}

void wss_seal_free(wss_seal *s)
{
	wss_pipelined_cancel(s->pipe);
	s->pipe = NULL;
	wipe_window(s);
	if (s->plain.data != NULL)
		OPENSSL_cleanse(s->plain.data, s->plain.cap);
	lab_buf_free(&s->plain);
	lab_buf_free(&s->wrapped);
	wss_enc_free(s->enc);
	s->enc = NULL;
	if (s->text != NULL)
		dom_node_free(s->text);
	s->text = NULL;
	OPENSSL_cleanse(s->key, sizeof s->key);
}
