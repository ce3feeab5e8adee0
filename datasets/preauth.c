/*
 * preauth.c - the pre-authentication shapes of preauth.h.  A base
 * message (a 2 KB quakes envelope, signed or sent with the given keys)
 * is serialized, and the hostile part is written into its bytes at two
 * places the serializer's output fixes: after the start tag of the
 * Security header and in the header block or Body (many-enc), or in
 * SignedInfo's start tag and before its end tag (signedinfo-junk).
 * Not for: the parser-side shapes (gen.c).
 */
#include "datasets/preauth.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

#include "datasets/gen.h"
#include "util/base64.h"
#include "wss/msg.h"
#include "wss/wss.h"

#define HOSTILE_NS "urn:domlab:hostile"

enum { DEFAULT_ENC = 100, MAX_JUNK_PREFIXES = 9000, KEY_LEN = 32 };

int lab_hostile_kind_parse(const char *name, lab_hostile_kind *out)
{
	static const char *const names[] = {"many-enc", "many-enc-body",
					    "signedinfo-junk", "decrypt-wrap",
					    "oracle-decrypt", "oracle-signature",
					    "oracle-gcm-parses",
					    "oracle-gcm-garbled",
					    "oracle-cbc-parses",
					    "oracle-cbc-garbled",
					    "oracle-cbc-refused"};
	size_t i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0) {
			*out = (lab_hostile_kind)i;
			return 1;
		}
	return 0;
}

/* The quakes envelope, signed (and encrypted for o->peer) when o has a
 * sender's key, with a Security header either way, serialized. */
static int base_message(const lab_hostile_opts *o, lab_buf *s, lab_err *err)
{
	/* The oracle shapes are a typical message of o->size bytes. */
	int timed = o->kind >= LAB_HOSTILE_ORACLE_DECRYPT;
	int cbc = o->kind >= LAB_HOSTILE_ORACLE_CBC_PARSES;
	lab_gen_opts g = {LAB_GEN_QUAKES, timed ? o->size : 0, 0, 1, 0};
	lab_buf xml = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	wss_opts w;
	wss_msg m;
	int rc = lab_gen(&g, &xml, err);

	wss_opts_default(&w);
	w.now = o->now;
	if (cbc) {
		w.cipher = WSS_AES128_CBC;
		w.layout = WSS_ENCRYPT_SIGN;
	}
	if (rc == LAB_OK)
		rc = dom_parse(xml.data, xml.len, NULL, &doc, err);
	if (rc == LAB_OK && o->key != NULL && o->peer != NULL)
		rc = wss_send_doc(doc, o->key, o->cert, o->peer, &w, err);
	else if (rc == LAB_OK && o->key != NULL)
		rc = wss_sign_doc(doc, o->key, o->cert, &w, err);
	if (rc == LAB_OK)
		rc = wss_msg_open(doc, 1, LAB_EMALFORMED, &m, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), s, err);
	dom_doc_free(doc);
	lab_buf_free(&xml);
	return rc;
}

/* Where in s the first `tag` (a start or end tag's name, with its '<'
 * or '</') is: at its '<' (FROM_START), at the '>' that ends it
 * (AT_CLOSE), or just past that '>' (PAST_CLOSE). */
enum { FROM_START, AT_CLOSE, PAST_CLOSE };

static int find(const lab_buf *s, const char *tag, int where, size_t *at,
		lab_err *err)
{
	const char *start = strstr(s->data, tag);
	const char *p = start != NULL ? strchr(start, '>') : NULL;

	if (p == NULL)
		return lab_fail(err, LAB_EUSAGE, "base message has no %s", tag);
	*at = where == FROM_START ? (size_t)(start - s->data)
				  : (size_t)(p - s->data) +
					    (where == PAST_CLOSE ? 1 : 0);
	return LAB_OK;
}

/* s with a inserted at offset i and b at offset j (i <= j), into out. */
static int weave(const lab_buf *s, size_t i, const lab_buf *a, size_t j,
		 const lab_buf *b, lab_buf *out, lab_err *err)
{
	if (lab_buf_reserve(out, s->len + a->len + b->len) != LAB_OK ||
	    lab_buf_put(out, s->data, i) != LAB_OK ||
	    lab_buf_put(out, a->data, a->len) != LAB_OK ||
	    lab_buf_put(out, s->data + i, j - i) != LAB_OK ||
	    lab_buf_put(out, b->data, b->len) != LAB_OK ||
	    lab_buf_put(out, s->data + j, s->len - j) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

/* One EncryptedData "hx-i" of plaintext pt under key, appended to b
 * (Type Element when element, else Content). */
static int put_encrypted(lab_buf *b, size_t i, const unsigned char *key,
			 const char *pt, int element, lab_err *err)
{
	lab_buf ct = LAB_BUF_INIT;
	int rc = wss_encrypt(WSS_AES256_GCM, key, pt, strlen(pt), &ct, err);

	if (rc == LAB_OK &&
	    (lab_buf_printf(b,
			    "<xenc:EncryptedData xmlns:xenc=\"" WSS_NS_XENC
			    "\" Id=\"hx-%zu\" Type=\"%s\">"
			    "<xenc:EncryptionMethod Algorithm=\"%s\"/>"
			    "<xenc:CipherData><xenc:CipherValue>",
			    i, element ? WSS_TYPE_ELEMENT : WSS_TYPE_CONTENT,
			    wss_cipher_uri(WSS_AES256_GCM)) != LAB_OK ||
	     lab_base64_encode(ct.data, ct.len, 0, b) != LAB_OK ||
	     lab_buf_puts(b, "</xenc:CipherValue></xenc:CipherData>"
			     "</xenc:EncryptedData>") != LAB_OK))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	lab_buf_free(&ct);
	return rc;
}

/* The KeyInfo naming o->peer by its thumbprint, as a sender's does: the
 * certificate is public. */
static int put_thumbprint(const lab_hostile_opts *o, lab_buf *b, lab_err *err)
{
	unsigned char sha1[WSS_SHA1_LEN];
	size_t len;
	const unsigned char *der = wss_cert_der(o->peer, &len);

	if (wss_sha1(der, len, sha1) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "digest failed");
	if (lab_buf_puts(b, "<ds:KeyInfo xmlns:ds=\"" WSS_NS_DS "\">"
			    "<wsse:SecurityTokenReference xmlns:wsse=\""
			    WSS_NS_WSSE "\"><wsse:KeyIdentifier EncodingType=\""
			    WSS_BASE64 "\" ValueType=\"" WSS_THUMBPRINT
			    "\">") != LAB_OK ||
	    lab_base64_encode(sha1, sizeof sha1, 0, b) != LAB_OK ||
	    lab_buf_puts(b, "</wsse:KeyIdentifier></wsse:SecurityTokenReference>"
			    "</ds:KeyInfo>") != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

/* The EncryptedKey holding key for o->peer, its ReferenceList open;
 * named: with a KeyInfo naming the peer. */
static int open_key(const lab_hostile_opts *o, const unsigned char *key,
		    int named, lab_buf *refs, lab_err *err)
{
	lab_buf wrapped = LAB_BUF_INIT;
	int rc = wss_rsa_oaep_wrap(o->peer, key, KEY_LEN, &wrapped, err);

	if (rc == LAB_OK &&
	    lab_buf_puts(refs, "<xenc:EncryptedKey xmlns:xenc=\"" WSS_NS_XENC
			       "\" Id=\"EK-hostile\"><xenc:EncryptionMethod "
			       "Algorithm=\"" WSS_ALG_RSA_OAEP "\"/>") != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && named)
		rc = put_thumbprint(o, refs, err);
	if (rc == LAB_OK &&
	    (lab_buf_puts(refs, "<xenc:CipherData><xenc:CipherValue>") !=
		     LAB_OK ||
	     lab_base64_encode(wrapped.data, wrapped.len, 0, refs) != LAB_OK ||
	     lab_buf_puts(refs, "</xenc:CipherValue></xenc:CipherData>"
				"<xenc:ReferenceList>") != LAB_OK))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	lab_buf_free(&wrapped);
	return rc;
}

/* many-enc and many-enc-body: the EncryptedKey (into refs) and the
 * EncryptedData (into eds), N of them or until the message (base bytes
 * so far) reaches o->size. */
static int many_enc(const lab_hostile_opts *o, size_t base, lab_buf *refs,
		    lab_buf *eds, lab_err *err)
{
	int body = o->kind == LAB_HOSTILE_MANY_ENC_BODY;
	size_t n = o->size == 0 && o->count == 0 ? DEFAULT_ENC : o->count, i;
	unsigned char key[KEY_LEN];
	char pt[96];
	int rc = wss_random(key, sizeof key, err);

	if (rc == LAB_OK)
		rc = open_key(o, key, 0, refs, err);
	if (rc == LAB_OK && !body &&
	    lab_buf_puts(eds, "<h:block xmlns:h=\"" HOSTILE_NS "\">") != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	for (i = 0; rc == LAB_OK && (o->size != 0
					     ? base + refs->len + eds->len <
						       o->size
					     : i < n);
	     i++) {
		if (body)
			snprintf(pt, sizeof pt,
				 "<h:v xmlns:h=\"" HOSTILE_NS "\" Id=\"hv-%zu\">"
				 "%zu</h:v>", i, i);
		else
			snprintf(pt, sizeof pt, "<h:v>%zu</h:v>", i);
		rc = put_encrypted(eds, i, key, pt, 0, err);
		if (rc == LAB_OK &&
		    lab_buf_printf(refs, "<xenc:DataReference URI=\"#hx-%zu\"/>",
				   i) != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	}
	if (rc == LAB_OK &&
	    (lab_buf_puts(refs, "</xenc:ReferenceList></xenc:EncryptedKey>") !=
		     LAB_OK ||
	     (!body && lab_buf_puts(eds, "</h:block>") != LAB_OK)))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	OPENSSL_cleanse(key, sizeof key);
	return rc;
}

/* signedinfo-junk: P prefix declarations (into decls) and elements that
 * use every one of them (into els) until the message reaches o->size. */
static int junk(const lab_hostile_opts *o, size_t base, lab_buf *decls,
		lab_buf *els, lab_err *err)
{
	size_t p = o->count, i, k;
	int rc = LAB_OK;

	if (p == 0)
		p = o->size / 128 + 1 < MAX_JUNK_PREFIXES ? o->size / 128 + 1
							  : MAX_JUNK_PREFIXES;
	for (i = 0; i < p && rc == LAB_OK; i++)
		rc = lab_buf_printf(decls, " xmlns:j%zu=\"urn:domlab:junk:%zu\"",
				    i, i);
	for (k = 0; rc == LAB_OK &&
		    (k == 0 || base + decls->len + els->len < o->size);
	     k++) {
		rc = lab_buf_puts(els, "<j0:e");
		for (i = 0; i < p && rc == LAB_OK; i++)
			rc = lab_buf_printf(els, " j%zu:a=\"%zu\"", i, k);
		if (rc == LAB_OK)
			rc = lab_buf_puts(els, "/>");
	}
	return rc != LAB_OK ? lab_fail(err, LAB_ENOMEM, "out of memory")
			    : LAB_OK;
}

/* decrypt-wrap: the EncryptedKey (into refs) and the EncryptedHeader
 * holding the one EncryptedData it names (into eds). */
static int wrap(const lab_hostile_opts *o, lab_buf *refs, lab_buf *eds,
		lab_err *err)
{
	static const char body[] =
		"<soap:Body xmlns:soap=\"" WSS_NS_SOAP "\" xmlns:wsu=\""
		WSS_NS_WSU "\" wsu:Id=\"Body-1\"><pay xmlns=\"urn:bank\">"
		"1000000 to mallory</pay></soap:Body>";
	unsigned char key[KEY_LEN];
	int rc = wss_random(key, sizeof key, err);

	if (rc == LAB_OK)
		rc = open_key(o, key, 1, refs, err);
	if (rc == LAB_OK &&
	    (lab_buf_puts(refs, "<xenc:DataReference URI=\"#hx-0\"/>"
				"</xenc:ReferenceList></xenc:EncryptedKey>") !=
		     LAB_OK ||
	     lab_buf_puts(eds, "<wsse11:EncryptedHeader xmlns:wsse11=\""
			       WSS_NS_WSSE11 "\">") != LAB_OK))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK)
		rc = put_encrypted(eds, 0, key,
				   o->plain != NULL ? o->plain : body, 1, err);
	if (rc == LAB_OK &&
	    lab_buf_puts(eds, "</wsse11:EncryptedHeader>") != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	OPENSSL_cleanse(key, sizeof key);
	return rc;
}

/* decrypt-wrap's two places in s: the EncryptedKey's at *i, the
 * EncryptedHeader's at *j, at the Header's end. */
static int wrap_places(const lab_hostile_opts *o, const lab_buf *s,
		       size_t *i, size_t *j, lab_err *err)
{
	int rc = o->after_signature
			 ? find(s, "</ds:Signature>", PAST_CLOSE, i, err)
			 : find(s, "<wsse:Security", PAST_CLOSE, i, err);

	return rc != LAB_OK ? rc : find(s, "</soap:Header", FROM_START, j, err);
}

/* decrypt-wrap: the message, o->message or one o's keys send, with the
 * attack woven in. */
static int decrypt_wrap(const lab_hostile_opts *o, lab_buf *out, lab_err *err)
{
	lab_buf s = LAB_BUF_INIT, a = LAB_BUF_INIT, b = LAB_BUF_INIT;
	size_t i = 0, j = 0;
	int rc = LAB_OK;

	if (o->peer == NULL)
		return lab_fail(err, LAB_EUSAGE, "--peer-cert is required");
	if (o->message == NULL && (o->key == NULL || o->cert == NULL))
		return lab_fail(err, LAB_EUSAGE,
				"--message, or --key and --cert, are required");
	if (o->message == NULL)
		rc = base_message(o, &s, err);
	else if (lab_buf_put(&s, o->message, o->message_len) != LAB_OK ||
		 lab_buf_putc(&s, '\0') != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	else
		s.len--;
	if (rc == LAB_OK)
		rc = wrap_places(o, &s, &i, &j, err);
	if (rc == LAB_OK)
		rc = wrap(o, &a, &b, err);
	if (rc == LAB_OK)
		rc = weave(&s, i, &a, j, &b, out, err);
	lab_buf_free(&s);
	lab_buf_free(&a);
	lab_buf_free(&b);
	return rc;
}

/* oracle-decrypt and oracle-signature: the base message, one character
 * changed where preauth.h says. */
static int oracle(const lab_hostile_opts *o, lab_buf *out, lab_err *err)
{
	const char *tag = o->kind == LAB_HOSTILE_ORACLE_DECRYPT
				  ? "</xenc:CipherValue></xenc:CipherData>"
				    "</xenc:EncryptedData></soap:Body>"
				  : "<wsu:Expires>";
	char *p;
	int rc;

	if (o->key == NULL || o->cert == NULL || o->peer == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"--key, --cert and --peer-cert are required");
	rc = base_message(o, out, err);
	p = rc == LAB_OK ? strstr(out->data, tag) : NULL;
	if (rc == LAB_OK && p == NULL)
		return lab_fail(err, LAB_EUSAGE, "base message has no %s", tag);
	if (rc != LAB_OK)
		return rc;
	/* The tag's last base64 character (before one '=' of padding), or
	 * the year's last digit. */
	p = o->kind == LAB_HOSTILE_ORACLE_DECRYPT ? p - 2 : p + 13 + 3;
	*p = *p == 'A' ? 'B' : *p == '9' ? '0' : (char)(*p + 1);
	return LAB_OK;
}

/* The octet of the Body's EncryptedData that the plaintext's byte 1
 * depends on (GCM: its ciphertext octet, after a 12-octet IV; CBC: the
 * IV's), XORed with delta; the CipherValue written back unwrapped. */
static int flip(lab_buf *s, size_t octet, unsigned char delta,
		lab_err *err)
{
	static const char open[] = "<xenc:CipherValue>";
	const char *body = strstr(s->data, "<soap:Body");
	const char *v = body != NULL ? strstr(body, open) : NULL;
	const char *end = v != NULL ? strstr(v, "</xenc:CipherValue>") : NULL;
	lab_buf raw = LAB_BUF_INIT, out = LAB_BUF_INIT;
	size_t at;
	int rc;

	if (end == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"base message has no encrypted Body");
	v += sizeof open - 1;
	at = (size_t)(v - s->data);
	rc = lab_base64_decode(v, (size_t)(end - v), &raw, err);
	if (rc == LAB_OK && raw.len <= octet)
		rc = lab_fail(err, LAB_EUSAGE, "the ciphertext is too short");
	if (rc == LAB_OK) {
		raw.data[octet] = (char)(raw.data[octet] ^ delta);
		if (lab_buf_put(&out, s->data, at) != LAB_OK ||
		    lab_base64_encode(raw.data, raw.len, 0, &out) != LAB_OK ||
		    lab_buf_put(&out, end, strlen(end)) != LAB_OK ||
		    lab_buf_putc(&out, '\0') != LAB_OK)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	}
	if (rc == LAB_OK) {
		out.len--;
		lab_buf_free(s);
		*s = out;
		out = (lab_buf)LAB_BUF_INIT;
	}
	lab_buf_free(&raw);
	lab_buf_free(&out);
	return rc;
}

/* The oracle-gcm-* and oracle-cbc-* shapes.  The plaintext is the
 * Body's content, which starts with a line break and spaces: byte 1
 * becomes '!' (text before the first element: it parses) or '<' (a
 * '<' before a space: it does not). */
static int oracle_flip(const lab_hostile_opts *o, lab_buf *out,
		       lab_err *err)
{
	int cbc = o->kind >= LAB_HOSTILE_ORACLE_CBC_PARSES;
	int garbled = o->kind == LAB_HOSTILE_ORACLE_GCM_GARBLED ||
		      o->kind == LAB_HOSTILE_ORACLE_CBC_GARBLED;
	int rc;

	if (o->key == NULL || o->cert == NULL || o->peer == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"--key, --cert and --peer-cert are required");
	rc = base_message(o, out, err);
	if (rc == LAB_OK)
		rc = flip(out, cbc ? 1 : 12 + 1,
			  (unsigned char)(' ' ^ (garbled ? '<' : '!')), err);
	return rc;
}

int lab_hostile(const lab_hostile_opts *o, lab_buf *out, lab_err *err)
{
	int enc = o->kind != LAB_HOSTILE_SIGNEDINFO_JUNK;
	lab_buf s = LAB_BUF_INIT, a = LAB_BUF_INIT, b = LAB_BUF_INIT;
	size_t i = 0, j = 0;
	int rc;

	if (o->kind == LAB_HOSTILE_DECRYPT_WRAP)
		return decrypt_wrap(o, out, err);
	if (o->kind == LAB_HOSTILE_ORACLE_DECRYPT ||
	    o->kind == LAB_HOSTILE_ORACLE_SIGNATURE)
		return oracle(o, out, err);
	if (o->kind > LAB_HOSTILE_ORACLE_SIGNATURE)
		return oracle_flip(o, out, err);
	if (enc && o->peer == NULL)
		return lab_fail(err, LAB_EUSAGE, "--peer-cert is required");
	if ((!enc || o->key != NULL) && (o->key == NULL || o->cert == NULL))
		return lab_fail(err, LAB_EUSAGE, "--key and --cert are required");
	rc = base_message(o, &s, err);
	if (rc == LAB_OK && enc)
		rc = find(&s, "<wsse:Security", PAST_CLOSE, &i, err);
	if (rc == LAB_OK && enc)
		rc = o->kind == LAB_HOSTILE_MANY_ENC
			     ? find(&s, "</soap:Header", FROM_START, &j, err)
			     : find(&s, "<soap:Body", PAST_CLOSE, &j, err);
	if (rc == LAB_OK && enc)
		rc = many_enc(o, s.len, &a, &b, err);
	if (rc == LAB_OK && !enc)
		rc = find(&s, "<ds:SignedInfo", AT_CLOSE, &i, err);
	if (rc == LAB_OK && !enc)
		rc = find(&s, "</ds:SignedInfo", FROM_START, &j, err);
	if (rc == LAB_OK && !enc)
		rc = junk(o, s.len, &a, &b, err);
	if (rc == LAB_OK)
		rc = weave(&s, i, &a, j, &b, out, err);
	lab_buf_free(&s);
	lab_buf_free(&a);
	lab_buf_free(&b);
	return rc;
}
