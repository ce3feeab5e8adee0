/*
 * cipher.c - AES data encryption in XML Encryption's octet layout
 * (IV, ciphertext, then GCM's tag or CBC's XML Enc padding):
 * AES-256-GCM and AES-128-CBC, one-shot, in place and as a stream, and
 * the random bytes session keys and IVs come from.
 * Not for: key transport (rsa.c), base64 or XML (xenc.c, seal.c).
 */
#include <limits.h>
#include <string.h>

#include <openssl/rand.h>

#include "util/alloc.h"
#include "wss/crypto_ossl.h"

enum {
	GCM_IV = 12,            /* xmlenc11#aes256-gcm: 96-bit IV, */
	GCM_TAG = 16,           /* 128-bit tag */
	BLOCK = 16              /* AES; the CBC IV is one block */
};

_Static_assert((int)WSS_IV_ROOM >= GCM_IV && (int)WSS_IV_ROOM >= BLOCK,
	       "WSS_IV_ROOM holds every IV");
_Static_assert((int)WSS_TAIL_ROOM >= GCM_TAG && (int)WSS_TAIL_ROOM >= BLOCK,
	       "WSS_TAIL_ROOM holds every tag and padding");
_Static_assert(CHUNK % BLOCK == 0, "chunks are whole blocks");

static const struct {
	const char *uri;
	const char *name;
	size_t key_len;
} ciphers[] = {
	[WSS_AES256_GCM] = {"http://www.w3.org/2009/xmlenc11#aes256-gcm",
			    "aes256-gcm", 32},
	[WSS_AES128_CBC] = {"http://www.w3.org/2001/04/xmlenc#aes128-cbc",
			    "aes128-cbc", 16},
};

static int is_cipher(wss_cipher c)
{
	return (unsigned)c < sizeof ciphers / sizeof ciphers[0];
}

/* ---- data encryption --------------------------------------------------- */

size_t wss_cipher_key_len(wss_cipher c)
{
	return is_cipher(c) ? ciphers[c].key_len : 0;
}

const char *wss_cipher_uri(wss_cipher c)
{
	return is_cipher(c) ? ciphers[c].uri : NULL;
}

int wss_cipher_from_uri(const char *uri, wss_cipher *out)
{
	size_t i;

	for (i = 0; uri != NULL && i < sizeof ciphers / sizeof ciphers[0]; i++)
		if (strcmp(uri, ciphers[i].uri) == 0) {
			*out = (wss_cipher)i;
			return LAB_OK;
		}
	return LAB_ESECURITY;
}

int wss_cipher_from_name(const char *name, wss_cipher *out)
{
	size_t i;

	for (i = 0; name != NULL && i < sizeof ciphers / sizeof ciphers[0]; i++)
		if (strcmp(name, ciphers[i].name) == 0) {
			*out = (wss_cipher)i;
			return LAB_OK;
		}
	return LAB_EUSAGE;
}

/* EVP_CipherUpdate over a size_t length.  Padding is always off, so each
 * call's output is exactly its input (CHUNK is whole blocks). */
static int update(EVP_CIPHER_CTX *x, unsigned char *dst,
		  const unsigned char *src, size_t n)
{
	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n, got = 0;

		if (EVP_CipherUpdate(x, dst, &got, src, k) != 1 || got != k)
			return 0;
		dst += k;
		src += k;
		n -= (size_t)k;
	}
	return 1;
}

/* The final call of a stream cipher or an unpadded block cipher writes
 * nothing; its answer is whether the stream was good (GCM: the tag). */
static int finish(EVP_CIPHER_CTX *x)
{
	unsigned char none[BLOCK];
	int got = 0;

	return EVP_CipherFinal_ex(x, none, &got) == 1 && got == 0;
}

static int gcm_encrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *pt, size_t n, unsigned char *dst,
		       lab_err *err)
{
	int rc = wss_random(dst, GCM_IV, err);

	if (rc != LAB_OK)
		return rc;
	if (EVP_EncryptInit_ex2(x, EVP_aes_256_gcm(), key, dst, NULL) != 1 ||
	    !update(x, dst + GCM_IV, pt, n) || !finish(x) ||
	    EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, GCM_TAG,
				dst + GCM_IV + n) != 1)
		return ossl_fail(err, LAB_ESECURITY, "AES-256-GCM failed");
	return LAB_OK;
}

static int cbc_encrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *pt, size_t n, unsigned char *dst,
		       lab_err *err)
{
	size_t full = n - n % BLOCK, rest = n % BLOCK;
	unsigned char last[BLOCK];
	int rc;

	/* XML Enc 5.2 padding, not PKCS#7: random filler, then the count. */
	if (rest > 0)
		memcpy(last, pt + full, rest);
	rc = wss_random(last + rest, BLOCK - rest - 1, err);
	if (rc != LAB_OK)
		goto out;
	last[BLOCK - 1] = (unsigned char)(BLOCK - rest);
	rc = wss_random(dst, BLOCK, err);
	if (rc != LAB_OK)
		goto out;
	if (EVP_EncryptInit_ex2(x, EVP_aes_128_cbc(), key, dst, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x, 0) != 1 ||
	    !update(x, dst + BLOCK, pt, full) ||
	    !update(x, dst + BLOCK + full, last, BLOCK) || !finish(x))
		rc = ossl_fail(err, LAB_ESECURITY, "AES-128-CBC failed");
out:
	OPENSSL_cleanse(last, sizeof last);
	return rc;
}

int wss_encrypt(wss_cipher c, const unsigned char *key, const void *pt,
		size_t n, lab_buf *out, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	size_t total;
	unsigned char *dst;
	int rc;

	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	if (n > (size_t)-1 / 2)
		return nomem(err);
	total = wss_cipher_octets(c, n);
	x = EVP_CIPHER_CTX_new();
	if (x == NULL || lab_buf_reserve(out, total) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)out->data + out->len;
	if (c == WSS_AES256_GCM)
		rc = gcm_encrypt(x, key, pt, n, dst, err);
	else
		rc = cbc_encrypt(x, key, pt, n, dst, err);
	if (rc == LAB_OK)
		out->len += total;
out:
	if (out->data != NULL)
		out->data[out->len] = '\0';
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_encrypt_in_place_at(wss_cipher c, const unsigned char *key,
			    lab_buf *b, size_t at, size_t *off, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	size_t n = b->len - at, iv, total;
	unsigned char *dst;
	int rc;

	*off = 0;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	if (lab_buf_need_plain(b, "encryption in place", err) != LAB_OK)
		return LAB_EUSAGE;
	if (at > b->len)
		return lab_fail(err, LAB_EUSAGE, "plaintext is not in the buffer");
	if (n > (size_t)-1 / 2)
		return nomem(err);
	iv = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	total = wss_cipher_octets(c, n);
	/* The octets start at *off: the IV right before the plaintext, or,
	 * without room for it there, at the start with the plaintext moved
	 * up once.  The cipher then runs over the plaintext where it lies
	 * (OpenSSL allows in == out). */
	*off = at >= iv ? at - iv : 0;
	x = EVP_CIPHER_CTX_new();
	if (x == NULL || lab_buf_reserve(b, *off + total - b->len) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)b->data + *off;
	if (at < iv)
		memmove(dst + iv, b->data + at, n);
	if (c == WSS_AES256_GCM)
		rc = gcm_encrypt(x, key, dst + iv, n, dst, err);
	else
		rc = cbc_encrypt(x, key, dst + iv, n, dst, err);
	b->len = rc == LAB_OK ? *off + total : 0;
	if (rc != LAB_OK) {
		OPENSSL_cleanse(b->data, *off + total);
		*off = 0;
	}
	b->data[b->len] = '\0';
out:
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_encrypt_in_place(wss_cipher c, const unsigned char *key, lab_buf *b,
			 lab_err *err)
{
	size_t off;

	return wss_encrypt_in_place_at(c, key, b, 0, &off, err);
}

struct wss_enc_stream {
	EVP_CIPHER_CTX *x;
	wss_cipher c;
};

size_t wss_cipher_octets(wss_cipher c, size_t n)
{
	return c == WSS_AES256_GCM ? GCM_IV + n + GCM_TAG
				   : BLOCK + (n / BLOCK + 1) * BLOCK;
}

int wss_enc_begin(wss_enc_stream **s, wss_cipher c, const unsigned char *key,
		  unsigned char iv[WSS_IV_ROOM], size_t *ivlen, lab_err *err)
{
	wss_enc_stream *e;
	int rc;

	*s = NULL;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	*ivlen = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	rc = wss_random(iv, *ivlen, err);
	if (rc != LAB_OK)
		return rc;
	e = lab_calloc(1, sizeof *e);
	if (e == NULL || (e->x = EVP_CIPHER_CTX_new()) == NULL) {
		lab_free(e);
		return nomem(err);
	}
	e->c = c;
	*s = e;
	if (c == WSS_AES256_GCM
		    ? EVP_EncryptInit_ex2(e->x, EVP_aes_256_gcm(), key, iv,
					  NULL) != 1
		    : EVP_EncryptInit_ex2(e->x, EVP_aes_128_cbc(), key, iv,
					  NULL) != 1 ||
			      EVP_CIPHER_CTX_set_padding(e->x, 0) != 1)
		return ossl_fail(err, LAB_ESECURITY, "%s failed",
				 ciphers[c].name);
	return LAB_OK;
}

int wss_enc_update(wss_enc_stream *s, const void *in, size_t n,
		   unsigned char *out, size_t *outlen, lab_err *err)
{
	const unsigned char *p = in;

	*outlen = 0;
	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n, got = 0;

		if (EVP_EncryptUpdate(s->x, out + *outlen, &got, p, k) != 1)
			return ossl_fail(err, LAB_ESECURITY, "%s failed",
					 ciphers[s->c].name);
		*outlen += (size_t)got;
		p += k;
		n -= (size_t)k;
	}
	return LAB_OK;
}

int wss_enc_end(wss_enc_stream *s, size_t total, unsigned char *out,
		size_t *outlen, lab_err *err)
{
	size_t rest = total % BLOCK;
	unsigned char last[BLOCK];
	int rc = LAB_OK;

	*outlen = 0;
	if (s->c == WSS_AES256_GCM) {
		if (!finish(s->x) ||
		    EVP_CIPHER_CTX_ctrl(s->x, EVP_CTRL_AEAD_GET_TAG, GCM_TAG,
					out) != 1)
			return ossl_fail(err, LAB_ESECURITY, "%s failed",
					 ciphers[s->c].name);
		*outlen = GCM_TAG;
		return LAB_OK;
	}
	/* XML Enc 5.2 padding after the partial block the cipher holds:
	 * random filler, then the count (cbc_encrypt's). */
	rc = wss_random(last, BLOCK - rest - 1, err);
	last[BLOCK - rest - 1] = (unsigned char)(BLOCK - rest);
	if (rc == LAB_OK)
		rc = wss_enc_update(s, last, BLOCK - rest, out, outlen, err);
	if (rc == LAB_OK && !finish(s->x))
		rc = ossl_fail(err, LAB_ESECURITY, "%s failed",
			       ciphers[s->c].name);
	OPENSSL_cleanse(last, sizeof last);
	return rc;
}

void wss_enc_free(wss_enc_stream *s)
{
	if (s == NULL)
		return;
	EVP_CIPHER_CTX_free(s->x);
	lab_free(s);
}

/* Each returns 1 when the data decrypts and authenticates (GCM) or
 * unpads (CBC), with the plaintext length in *len; 0 otherwise. */
static int gcm_decrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *in, size_t n, unsigned char *dst,
		       size_t *len)
{
	unsigned char tag[GCM_TAG];

	if (n < GCM_IV + GCM_TAG)
		return 0;
	*len = n - GCM_IV - GCM_TAG;
	/* A copy: the control call takes a non-const pointer. */
	memcpy(tag, in + n - GCM_TAG, GCM_TAG);
	return EVP_DecryptInit_ex2(x, EVP_aes_256_gcm(), key, in, NULL) == 1 &&
	       update(x, dst, in + GCM_IV, *len) &&
	       EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, GCM_TAG,
				   tag) == 1 &&
	       finish(x);
}

static int cbc_decrypt(EVP_CIPHER_CTX *x, const unsigned char *key,
		       const unsigned char *in, size_t n, unsigned char *dst,
		       size_t *len)
{
	unsigned pad;

	if (n < 2 * BLOCK || n % BLOCK != 0)
		return 0;
	if (EVP_DecryptInit_ex2(x, EVP_aes_128_cbc(), key, in, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(x, 0) != 1 ||
	    !update(x, dst, in + BLOCK, n - BLOCK) || !finish(x))
		return 0;
	/*
	 * XML Enc 5.2: only the last octet counts; the others are arbitrary.
	 * One check and one error for every bad value.  (CBC without a MAC
	 * stays malleable whatever we do here; GCM is the default for that.)
	 */
	pad = dst[n - BLOCK - 1];
	*len = n - BLOCK - pad;
	return pad - 1u < BLOCK;
}

int wss_decrypt(wss_cipher c, const unsigned char *key, const void *ct,
		size_t n, lab_buf *out, lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	unsigned char *dst;
	size_t len = 0;
	int ok, rc = LAB_OK;

	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	x = EVP_CIPHER_CTX_new();
	/* Plaintext is never longer than the octets. */
	if (x == NULL || lab_buf_reserve(out, n) != LAB_OK) {
		rc = nomem(err);
		goto out;
	}
	dst = (unsigned char *)out->data + out->len;
	if (c == WSS_AES256_GCM)
		ok = gcm_decrypt(x, key, ct, n, dst, &len);
	else
		ok = cbc_decrypt(x, key, ct, n, dst, &len);
	if (!ok) {
		/* Plaintext that failed its check must not outlive the call. */
		OPENSSL_cleanse(dst, n);
		rc = quiet_fail(err, "decryption failed");
		goto out;
	}
	out->len += len;
out:
	if (out->data != NULL)
		out->data[out->len] = '\0';
	EVP_CIPHER_CTX_free(x);
	return rc;
}

int wss_decrypt_in_place(wss_cipher c, const unsigned char *key,
			 unsigned char *buf, size_t n, size_t *off, size_t *len,
			 lab_err *err)
{
	EVP_CIPHER_CTX *x = NULL;
	int ok;

	*off = 0;
	*len = 0;
	if (!is_cipher(c))
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	x = EVP_CIPHER_CTX_new();
	if (x == NULL)
		return nomem(err);
	*off = c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	if (n < *off)
		ok = 0;
	else if (c == WSS_AES256_GCM)
		ok = gcm_decrypt(x, key, buf, n, buf + *off, len);
	else
		ok = cbc_decrypt(x, key, buf, n, buf + *off, len);
	EVP_CIPHER_CTX_free(x);
	if (!ok) {
		OPENSSL_cleanse(buf, n);
		*len = 0;
		return quiet_fail(err, "decryption failed");
	}
	return LAB_OK;
}

/* ---- decryption in place, as the octets arrive ----------------------- */

struct wss_dec_stream {
	EVP_CIPHER_CTX *x;
	wss_cipher c;
	int started;                 /* the IV was read, the context set */
	size_t done;                 /* octets decrypted (the IV counted) */
	unsigned char key[32];       /* the longest key: AES-256 */
};

int wss_dec_begin(wss_dec_stream **s, wss_cipher c, const unsigned char *key,
		  lab_err *err)
{
	wss_dec_stream *d;

	*s = NULL;
	if (!is_cipher(c) || ciphers[c].key_len > sizeof d->key)
		return lab_fail(err, LAB_EUSAGE, "unknown cipher %d", (int)c);
	d = lab_calloc(1, sizeof *d);
	if (d == NULL || (d->x = EVP_CIPHER_CTX_new()) == NULL) {
		lab_free(d);
		return nomem(err);
	}
	d->c = c;
	memcpy(d->key, key, ciphers[c].key_len);
	*s = d;
	return LAB_OK;
}

/* The context set from the IV at buf's start, once it is there. */
static int dec_start(wss_dec_stream *d, const unsigned char *buf)
{
	d->started = 1;
	if (d->c == WSS_AES256_GCM) {
		d->done = GCM_IV;
		return EVP_DecryptInit_ex2(d->x, EVP_aes_256_gcm(), d->key, buf,
					   NULL) == 1;
	}
	d->done = BLOCK;
	return EVP_DecryptInit_ex2(d->x, EVP_aes_128_cbc(), d->key, buf,
				   NULL) == 1 &&
	       EVP_CIPHER_CTX_set_padding(d->x, 0) == 1;
}

int wss_dec_more(wss_dec_stream *d, unsigned char *buf, size_t k,
		 lab_err *err)
{
	/* What may be GCM's tag stays; CBC goes in whole blocks. */
	size_t hold = d->c == WSS_AES256_GCM ? GCM_TAG : 0, n;

	if (!d->started && k >= (d->c == WSS_AES256_GCM ? GCM_IV : BLOCK) &&
	    !dec_start(d, buf))
		return quiet_fail(err, "decryption failed");
	if (!d->started || k < d->done + hold)
		return LAB_OK;
	n = k - hold - d->done;
	n -= n % BLOCK;
	if (!update(d->x, buf + d->done, buf + d->done, n))
		return quiet_fail(err, "decryption failed");
	d->done += n;
	return LAB_OK;
}

/* After the last octet: the rest decrypted, then the tag's check
 * (GCM) or the padding's (CBC, as cbc_decrypt). */
static int dec_finish(wss_dec_stream *d, unsigned char *buf, size_t n,
		      size_t *len)
{
	lab_err ignored;
	unsigned pad;

	if (d->c == WSS_AES256_GCM) {
		unsigned char tag[GCM_TAG];

		if (n < GCM_IV + GCM_TAG ||
		    wss_dec_more(d, buf, n, &ignored) != LAB_OK ||
		    !update(d->x, buf + d->done, buf + d->done,
			    n - GCM_TAG - d->done))
			return 0;
		*len = n - GCM_IV - GCM_TAG;
		memcpy(tag, buf + n - GCM_TAG, GCM_TAG);
		return EVP_CIPHER_CTX_ctrl(d->x, EVP_CTRL_AEAD_SET_TAG,
					   GCM_TAG, tag) == 1 &&
		       finish(d->x);
	}
	if (n < 2 * BLOCK || n % BLOCK != 0 ||
	    wss_dec_more(d, buf, n, &ignored) != LAB_OK || d->done != n ||
	    !finish(d->x))
		return 0;
	pad = buf[n - 1];
	*len = n - BLOCK - pad;
	return pad - 1u < BLOCK;
}

size_t wss_dec_ready(const wss_dec_stream *d, size_t *iv)
{
	/* CBC's last block decrypted may hold the padding, up to a block. */
	size_t held = d->c == WSS_AES256_GCM ? 0 : BLOCK;

	*iv = d->c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	return d->started && d->done >= *iv + held ? d->done - *iv - held : 0;
}

int wss_dec_end(wss_dec_stream *d, unsigned char *buf, size_t n,
		size_t *off, size_t *len, lab_err *err)
{
	*off = d->c == WSS_AES256_GCM ? GCM_IV : BLOCK;
	*len = 0;
	if (!dec_finish(d, buf, n, len)) {
		*len = 0;
		return quiet_fail(err, "decryption failed");
	}
	return LAB_OK;
}

void wss_dec_free(wss_dec_stream *d)
{
	if (d == NULL)
		return;
	EVP_CIPHER_CTX_free(d->x);
	OPENSSL_cleanse(d->key, sizeof d->key);
	lab_free(d);
}

/* ---- randomness -------------------------------------------------------- */

int wss_random(void *p, size_t n, lab_err *err)
{
	unsigned char *b = p;

	while (n > 0) {
		int k = n > CHUNK ? CHUNK : (int)n;

		if (RAND_bytes(b, k) != 1)
			return ossl_fail(err, LAB_ESECURITY,
					 "random number generator failed");
		b += k;
		n -= (size_t)k;
	}
	return LAB_OK;
}
