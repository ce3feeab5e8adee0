/*
 * msg_mutate.h - a structure-aware libFuzzer mutator for signed and
 * encrypted SOAP messages (LLVMFuzzerCustomMutator), shared by
 * receive_struct.c and receive_diff.c.  Byte mutations of a signed
 * message almost always break the XML or the base64 and stop in the
 * parser; these keep the text an XML message and change what the receive
 * path reads before anything is authenticated: header blocks duplicated
 * (up to 64 times), deleted or moved into another container (wrapping),
 * Id and URI values swapped between elements or made to collide,
 * algorithm URIs substituted, base64 values swapped, truncated or changed,
 * Timestamp times changed, and the Body's ciphertext replaced by the
 * encryption of a changed plaintext under the message's own session key
 * (unwrapped with the receiver's key), so that the decrypted content
 * parses and reaches the checks after decryption.  One change in eight
 * is libFuzzer's own byte mutation.
 *
 * Deterministic: every choice comes from the seed libFuzzer passes, and
 * the re-encryption takes its IV from it.  Inputs and crash files are
 * plain messages, replayed with no mutator.
 * Needs fuzz_keys.h included first (the receiver's key).
 * Not for: checking anything (the targets do), or well-formedness beyond
 * what the seed messages' own layout gives: on an input where an element
 * cannot be found the mutator falls back to byte mutation.
 */
#ifndef FUZZ_MSG_MUTATE_H
#define FUZZ_MSG_MUTATE_H

#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

#include "util/base64.h"
#include "wss/keys.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

/* The elements the mutator moves around, and the containers it moves
 * them into. */
static const char *const mm_blocks[] = {
	"EncryptedKey", "EncryptedData", "BinarySecurityToken", "Signature",
	"Timestamp", "Reference", "DataReference", "Security", "Body",
	"Header", "Transform", "KeyInfo", "SecurityTokenReference",
	"SignedInfo", "CipherData", "ReferenceList", "Created", "Expires",
};
static const char *const mm_containers[] = {
	"Header", "Security", "Body", "Envelope", "EncryptedData",
	"Signature", "SignedInfo", "Timestamp", "KeyInfo", "ReferenceList",
	"EncryptedKey", "Reference",
};
static const char *const mm_attrs[] = {
	"wsu:Id=\"", " Id=\"", "URI=\"", "Algorithm=\"", "ValueType=\"",
	"Type=\"", "EncodingType=\"",
};
static const char *const mm_values[] = {
	"", "#", "#Body-1", "#TS-1", "#X509-1", "#EK-1", "#ED-1", "Body-1",
	"TS-1", "ED-1", "EK-1", "X509-1", "cid:att", "http://example.org/x",
	"#xpointer(/)", "http://www.w3.org/2001/10/xml-exc-c14n#",
	"http://www.w3.org/2001/10/xml-exc-c14n#WithComments",
	"http://www.w3.org/TR/2001/REC-xml-c14n-20010315",
	"http://www.w3.org/2000/09/xmldsig#rsa-sha1",
	"http://www.w3.org/2000/09/xmldsig#hmac-sha1",
	"http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
	"http://www.w3.org/2000/09/xmldsig#sha1",
	"http://www.w3.org/2001/04/xmlenc#sha256",
	"http://www.w3.org/2001/04/xmlenc#rsa-1_5",
	"http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
	"http://www.w3.org/2009/xmlenc11#rsa-oaep",
	"http://www.w3.org/2009/xmlenc11#aes256-gcm",
	"http://www.w3.org/2009/xmlenc11#aes128-gcm",
	"http://www.w3.org/2001/04/xmlenc#aes128-cbc",
	"http://www.w3.org/2001/04/xmlenc#aes256-cbc",
	"http://www.w3.org/2001/04/xmlenc#Element",
	"http://www.w3.org/2001/04/xmlenc#Content",
	"http://www.w3.org/TR/1999/REC-xpath-19991116",
	"http://www.w3.org/2000/09/xmldsig#enveloped-signature",
};
static const char *const mm_texts[] = {
	"CipherValue", "DigestValue", "SignatureValue", "BinarySecurityToken",
	"KeyIdentifier", "Created", "Expires",
};
static const char *const mm_times[] = {
	"2026-11-30T00:53:20Z", "2026-11-30T00:53:21Z", "1970-01-01T00:00:00Z",
	"2099-12-31T23:59:59Z", "2026-11-30T00:53:20+01:00",
	"2026-11-30T00:53:20.999Z", "2026-02-30T00:00:00Z", "",
};
/* Plaintext the re-encryption puts in the Body, before, after or instead
 * of what was there. */
static const char *const mm_plain[] = {
	"<soap:Body xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"/>",
	"<wsse:Security xmlns:wsse=\"http://docs.oasis-open.org/wss/2004/01/"
	"oasis-200401-wss-wssecurity-secext-1.0.xsd\"/>",
	"<wsu:Timestamp xmlns:wsu=\"http://docs.oasis-open.org/wss/2004/01/"
	"oasis-200401-wss-wssecurity-utility-1.0.xsd\" wsu:Id=\"TS-1\"/>",
	"<x xmlns:wsu=\"http://docs.oasis-open.org/wss/2004/01/"
	"oasis-200401-wss-wssecurity-utility-1.0.xsd\" wsu:Id=\"Body-1\"/>",
	"<e Id=\"ED-1\"/>",
	"<xenc:EncryptedData xmlns:xenc=\"http://www.w3.org/2001/04/xmlenc#\" "
	"Id=\"ED-2\" Type=\"http://www.w3.org/2001/04/xmlenc#Content\">"
	"<xenc:CipherData><xenc:CipherValue>AAAA</xenc:CipherValue>"
	"</xenc:CipherData></xenc:EncryptedData>",
	"<!-- c --><?pi x?>text &amp; &#x10FFFF;",
	"</x>", "<a><b><c><d><e><f><g><h/></g></f></e></d></c></b></a>",
	"",
};

#define MM_COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct mm_rng {
	uint64_t s;
} mm_rng;

static unsigned mm_next(mm_rng *r, unsigned bound)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return bound != 0 ? (unsigned)(r->s % bound) : 0;
}

/* The end of the tag that starts at s[i] ('<'), just past its '>', with
 * quoted values skipped; 0 when there is none. */
static size_t mm_tag_end(const char *s, size_t n, size_t i)
{
	char q = 0;

	for (; i < n; i++) {
		if (q != 0) {
			if (s[i] == q)
				q = 0;
		} else if (s[i] == '"' || s[i] == '\'') {
			q = s[i];
		} else if (s[i] == '>') {
			return i + 1;
		}
	}
	return 0;
}

/* Whether the start tag at s[i] names `local` (any prefix); its qualified
 * name's length in *qlen. */
static int mm_names(const char *s, size_t n, size_t i, const char *local,
		    size_t *qlen)
{
	size_t j = i + 1, colon = 0, ll = strlen(local);

	while (j < n && strchr(" \t\r\n/>", s[j]) == NULL) {
		if (s[j] == ':')
			colon = j - i;
		j++;
	}
	*qlen = j - i - 1;
	return j - (i + 1 + colon) == ll &&
	       memcmp(s + i + 1 + colon, local, ll) == 0;
}

/* Whether s[i] starts what a mm_kth caller looks for. */
typedef int (*mm_match_fn)(const char *s, size_t n, size_t i,
			   const char *what);

/* Where the k-th place that matches is, k counted modulo how many there
 * are; n when there is none. */
static size_t mm_kth(const char *s, size_t n, unsigned k, mm_match_fn match,
		     const char *what)
{
	size_t i, found = 0;

	for (i = 0; i < n; i++)
		found += (size_t)match(s, n, i, what);
	if (found == 0)
		return n;
	k %= (unsigned)found;
	for (i = 0; i < n; i++)
		if (match(s, n, i, what) && k-- == 0)
			return i;
	return n;
}

/* A start tag named `local`. */
static int mm_is_start(const char *s, size_t n, size_t i, const char *local)
{
	size_t qlen;

	return i + 1 < n && s[i] == '<' && strchr("/?!", s[i + 1]) == NULL &&
	       mm_names(s, n, i, local, &qlen);
}

/* The text `key`. */
static int mm_is_key(const char *s, size_t n, size_t i, const char *key)
{
	size_t kl = strlen(key);

	return i + kl < n && memcmp(s + i, key, kl) == 0;
}

/* The k-th element named `local` (k counted modulo how many there are):
 * [*b, *e) from its '<' to past its end tag; 0 when there is none. */
static int mm_find(const char *s, size_t n, const char *local, unsigned k,
		   size_t *b, size_t *e)
{
	size_t i = mm_kth(s, n, k, mm_is_start, local), te, j, qlen, depth = 1;

	if (i == n)
		return 0;
	mm_names(s, n, i, local, &qlen);
	te = mm_tag_end(s, n, i);
	if (te == 0)
		return 0;
	*b = i;
	if (s[te - 2] == '/') {
		*e = te;
		return 1;
	}
	/* The matching end tag: same qualified name, nested ones counted. */
	for (j = te; j + qlen + 2 < n; j++) {
		size_t q2;

		if (s[j] != '<')
			continue;
		if (s[j + 1] == '/' && memcmp(s + j + 2, s + i + 1, qlen) == 0 &&
		    s[j + 2 + qlen] == '>' && --depth == 0) {
			*e = j + qlen + 3;
			return 1;
		}
		if (s[j + 1] != '/' && mm_names(s, n, j, local, &q2) &&
		    q2 == qlen && memcmp(s + j + 1, s + i + 1, qlen) == 0) {
			size_t t2 = mm_tag_end(s, n, j);

			if (t2 == 0)
				return 0;
			if (s[t2 - 2] != '/')
				depth++;
		}
	}
	return 0;
}

/* s[b, e) replaced by r[0, rn); 0 when the result would not fit. */
static size_t mm_splice(uint8_t *s, size_t n, size_t max, size_t b, size_t e,
			const void *r, size_t rn)
{
	if (n - (e - b) + rn > max)
		return 0;
	memmove(s + b + rn, s + e, n - e);
	memcpy(s + b, r, rn);
	return n - (e - b) + rn;
}

/* A copy of an element inserted after it, 1 to 64 times. */
static size_t mm_dup(uint8_t *d, size_t n, size_t max, mm_rng *r)
{
	const char *s = (const char *)d;
	size_t b, e, len, times = (size_t)1 << mm_next(r, 7), i;

	if (!mm_find(s, n, mm_blocks[mm_next(r, MM_COUNT(mm_blocks))],
		     mm_next(r, 64), &b, &e))
		return 0;
	len = e - b;
	for (i = 0; i < times && n + len <= max; i++) {
		memmove(d + e + len, d + e, n - e);
		memcpy(d + e, d + b, len);
		n += len;
	}
	return i > 0 ? n : 0;
}

/* An element deleted, or moved just inside a container's start tag. */
static size_t mm_move(uint8_t *d, size_t n, size_t max, mm_rng *r, int keep)
{
	const char *s = (const char *)d;
	size_t b, e, cb, ce, te, len;
	uint8_t *copy;

	if (!mm_find(s, n, mm_blocks[mm_next(r, MM_COUNT(mm_blocks))],
		     mm_next(r, 64), &b, &e))
		return 0;
	len = e - b;
	if (!keep)
		return mm_splice(d, n, max, b, e, "", 0);
	copy = malloc(len);
	if (copy == NULL)
		return 0;
	memcpy(copy, d + b, len);
	n = mm_splice(d, n, max, b, e, "", 0);
	if (!mm_find(s, n, mm_containers[mm_next(r, MM_COUNT(mm_containers))],
		     mm_next(r, 64), &cb, &ce) ||
	    (te = mm_tag_end(s, n, cb)) == 0 || d[te - 2] == '/')
		te = b; /* nowhere to go: back where it was */
	n = mm_splice(d, n, max, te, te, copy, len);
	free(copy);
	return n;
}

/* The k-th occurrence of `key` (modulo), its value in [*b, *e). */
static int mm_find_attr(const char *s, size_t n, const char *key, unsigned k,
			size_t *b, size_t *e)
{
	size_t kl = strlen(key), i = mm_kth(s, n, k, mm_is_key, key);
	const char *q;

	if (i == n)
		return 0;
	q = memchr(s + i + kl, '"', n - i - kl);
	if (q == NULL)
		return 0;
	*b = i + kl;
	*e = (size_t)(q - s);
	return 1;
}

/* An attribute value replaced: by a listed one, by another attribute's
 * value (an ID made to collide, a URI pointed elsewhere), or one
 * character changed. */
static size_t mm_attr(uint8_t *d, size_t n, size_t max, mm_rng *r)
{
	const char *s = (const char *)d;
	size_t b, e, ob, oe;
	char buf[256];
	const char *v;
	size_t vn;

	if (!mm_find_attr(s, n, mm_attrs[mm_next(r, MM_COUNT(mm_attrs))],
			  mm_next(r, 64), &b, &e))
		return 0;
	switch (mm_next(r, 3)) {
	case 0:
		v = mm_values[mm_next(r, MM_COUNT(mm_values))];
		vn = strlen(v);
		break;
	case 1:
		if (!mm_find_attr(s, n, mm_attrs[mm_next(r, 3)], mm_next(r, 64),
				  &ob, &oe) ||
		    oe - ob + 1 > sizeof buf)
			return 0;
		vn = 0;
		if (mm_next(r, 2))
			buf[vn++] = '#';
		memcpy(buf + vn, s + ob, oe - ob);
		vn += oe - ob;
		v = buf;
		break;
	default:
		if (e == b || e - b > sizeof buf)
			return 0;
		memcpy(buf, s + b, e - b);
		buf[mm_next(r, (unsigned)(e - b))] = "A1#-:_"[mm_next(r, 6)];
		v = buf;
		vn = e - b;
	}
	return mm_splice(d, n, max, b, e, v, vn);
}

/* The text of a value-carrying element replaced: another one's text,
 * truncated, one character changed, doubled, or a listed time. */
static size_t mm_text(uint8_t *d, size_t n, size_t max, mm_rng *r)
{
	const char *s = (const char *)d;
	const char *name = mm_texts[mm_next(r, MM_COUNT(mm_texts))];
	size_t b, e, tb, te, ob, oe, ot, len, at;
	unsigned how = mm_next(r, 4);
	uint8_t *copy;

	if (!mm_find(s, n, name, mm_next(r, 64), &b, &e) ||
	    (tb = mm_tag_end(s, n, b)) == 0 || d[tb - 2] == '/')
		return 0;
	te = e;
	while (te > tb && d[te - 1] != '<')
		te--;
	if (te <= tb)
		return 0;
	te--;
	len = te - tb;
	if (strcmp(name, "Created") == 0 || strcmp(name, "Expires") == 0) {
		const char *t = mm_times[mm_next(r, MM_COUNT(mm_times))];

		return mm_splice(d, n, max, tb, te, t, strlen(t));
	}
	switch (how) {
	case 0: /* another value-carrying element's text */
		if (!mm_find(s, n, mm_texts[mm_next(r, 5)], mm_next(r, 64),
			     &ob, &oe) ||
		    (ot = mm_tag_end(s, n, ob)) == 0 || d[ot - 2] == '/')
			return 0;
		while (oe > ot && d[oe - 1] != '<')
			oe--;
		if (oe <= ot || (copy = malloc(oe - 1 - ot)) == NULL)
			return 0;
		memcpy(copy, d + ot, oe - 1 - ot);
		n = mm_splice(d, n, max, tb, te, copy, oe - 1 - ot);
		free(copy);
		return n;
	case 1:
		return mm_splice(d, n, max, tb + mm_next(r, (unsigned)len + 1),
				 te, "", 0);
	case 2:
		if (len == 0)
			return 0;
		at = tb + mm_next(r, (unsigned)len);
		d[at] = (uint8_t)"AZaz09+/= "[mm_next(r, 10)];
		return n;
	default:
		if ((copy = malloc(len)) == NULL)
			return 0;
		memcpy(copy, d + tb, len);
		n = mm_splice(d, n, max, te, te, copy, len);
		free(copy);
		return n;
	}
}

/* The base64 text of the k-th `name` element decoded into out. */
static int mm_b64_of(const char *s, size_t n, const char *name, unsigned k,
		     size_t *tb, size_t *te, lab_buf *out)
{
	size_t b, e;
	lab_err err;

	if (!mm_find(s, n, name, k, &b, &e) ||
	    (*tb = mm_tag_end(s, n, b)) == 0 || s[*tb - 2] == '/')
		return 0;
	*te = e;
	while (*te > *tb && s[*te - 1] != '<')
		(*te)--;
	if (*te <= *tb)
		return 0;
	(*te)--;
	return lab_base64_decode(s + *tb, *te - *tb, out, &err) == LAB_OK;
}

/* AES-GCM (a 32-byte key) or AES-CBC (16) of pt in XML Encryption's
 * octets, the IV from the mutator's generator. */
static int mm_encrypt(const unsigned char *key, size_t keylen,
		      const lab_buf *pt, mm_rng *r, lab_buf *out)
{
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int gcm = keylen == 32, ok, n1 = 0, n2 = 0;
	size_t ivlen = gcm ? 12 : 16, i;
	unsigned char *o;

	ok = c != NULL &&
	     lab_buf_reserve(out, ivlen + pt->len + 32) == LAB_OK;
	if (!ok)
		goto out;
	o = (unsigned char *)out->data;
	for (i = 0; i < ivlen; i++)
		o[i] = (unsigned char)mm_next(r, 256);
	ok = EVP_EncryptInit_ex(c, gcm ? EVP_aes_256_gcm() : EVP_aes_128_cbc(),
				NULL, key, o) == 1 &&
	     EVP_EncryptUpdate(c, o + ivlen, &n1, (const unsigned char *)pt->data,
			       (int)pt->len) == 1 &&
	     EVP_EncryptFinal_ex(c, o + ivlen + n1, &n2) == 1 &&
	     (!gcm || EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16,
					  o + ivlen + n1 + n2) == 1);
	out->len = ivlen + (size_t)n1 + (size_t)n2 + (gcm ? 16 : 0);
out:
	EVP_CIPHER_CTX_free(c);
	return ok;
}

/* The plaintext changed: a listed fragment put before, after or instead
 * of it, or its bytes mutated. */
static int mm_change_plain(lab_buf *pt, size_t cap, mm_rng *r)
{
	const char *f = mm_plain[mm_next(r, MM_COUNT(mm_plain))];
	size_t fn = strlen(f);

	switch (mm_next(r, 4)) {
	case 0:
		pt->len = 0;
		return lab_buf_put(pt, f, fn) == LAB_OK;
	case 1:
		return lab_buf_put(pt, f, fn) == LAB_OK;
	case 2:
		if (lab_buf_reserve(pt, fn) != LAB_OK)
			return 0;
		memmove(pt->data + fn, pt->data, pt->len);
		memcpy(pt->data, f, fn);
		pt->len += fn;
		return 1;
	default:
		if (lab_buf_reserve(pt, cap) != LAB_OK)
			return 0;
		pt->len = LLVMFuzzerMutate((uint8_t *)pt->data, pt->len,
					   pt->len + cap);
		return 1;
	}
}

/* The Body's ciphertext replaced by the encryption of a changed
 * plaintext under the first EncryptedKey's session key. */
static size_t mm_reencrypt(uint8_t *d, size_t n, size_t max, mm_rng *r,
			   const wss_privkey *key)
{
	const char *s = (const char *)d;
	lab_buf wrapped = LAB_BUF_INIT, ct = LAB_BUF_INIT, pt = LAB_BUF_INIT,
		b64 = LAB_BUF_INIT;
	unsigned char session[WSS_MAX_KEY_LEN];
	size_t keylen = 0, tb, te, kb, ke, out = 0;
	wss_cipher c;
	lab_err err;

	if (!mm_b64_of(s, n, "CipherValue", 0, &kb, &ke, &wrapped) ||
	    wss_rsa_oaep_unwrap(key, (const unsigned char *)wrapped.data,
				wrapped.len, session, sizeof session, &keylen,
				&err) != LAB_OK ||
	    !mm_b64_of(s, n, "CipherValue", 1, &tb, &te, &ct))
		goto out;
	c = keylen == 32 ? WSS_AES256_GCM : WSS_AES128_CBC;
	if (wss_decrypt(c, session, ct.data, ct.len, &pt, &err) != LAB_OK ||
	    !mm_change_plain(&pt, 256, r))
		goto out;
	ct.len = 0;
	if (mm_encrypt(session, keylen, &pt, r, &ct) &&
	    lab_base64_encode(ct.data, ct.len, 0, &b64) == LAB_OK)
		out = mm_splice(d, n, max, tb, te, b64.data, b64.len);
out:
	lab_buf_free(&wrapped);
	lab_buf_free(&ct);
	lab_buf_free(&pt);
	lab_buf_free(&b64);
	return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	const wss_key_paths paths = fuzz_receiver_paths();
	mm_rng r = {((uint64_t)seed << 32) ^ 0x9e3779b97f4a7c15u ^ size};
	void *handle = NULL;
	wss_keyset ks;
	lab_err err;
	size_t n = 0;

	switch (mm_next(&r, 8)) {
	case 0:
		n = mm_dup(data, size, max_size, &r);
		break;
	case 1:
	case 2:
		n = mm_move(data, size, max_size, &r, (int)mm_next(&r, 2));
		break;
	case 3:
	case 4:
		n = mm_attr(data, size, max_size, &r);
		break;
	case 5:
		n = mm_text(data, size, max_size, &r);
		break;
	case 6:
		if (wss_keys_acquire(&paths, &ks, &handle, &err) != LAB_OK)
			abort();
		n = mm_reencrypt(data, size, max_size, &r, ks.key);
		wss_keys_release(handle);
		break;
	default:
		break;
	}
	return n != 0 ? n : LLVMFuzzerMutate(data, size, max_size);
}

#endif
