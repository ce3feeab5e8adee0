/*
 * crypto.h - the cryptography of the WS-Security profile (docs/design.md,
 * "The pipeline"), over OpenSSL 3: RSA private keys and X.509
 * certificates, SHA-256 / SHA-1, RSA-SHA256 signatures, RSA-OAEP key
 * transport (rsa-oaep-mgf1p), AES-256-GCM and AES-128-CBC in XML
 * Encryption's octet layout, random bytes.
 *
 * Every size is explicit, every key is the one the algorithm needs, and
 * every failure of a check on received data is LAB_ESECURITY with a
 * message that says what failed and nothing about why (no oracles).
 * RSA keys must be at least 2048 bits.  Implemented by concern: cert.c
 * (keys, certificates), digest.c, rsa.c (signatures, key transport),
 * cipher.c (AES, random bytes), over crypto_ossl.h.
 * Not for: XML, base64 (util/base64.h), certificate chains or expiry (the
 * receiver trusts exactly one configured certificate, compared by DER).
 */
#ifndef WSS_CRYPTO_H
#define WSS_CRYPTO_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* ---- keys and certificates --------------------------------------------- */

typedef struct wss_privkey wss_privkey;   /* an RSA private key */
typedef struct wss_cert wss_cert;         /* X.509: its DER, its RSA key */

/*
 * Reads an unencrypted PEM private key (PKCS#1 or PKCS#8).  LAB_EIO when
 * the file cannot be read, LAB_EMALFORMED when it holds no private key or
 * the key is not RSA, LAB_ESECURITY when the key is under 2048 bits.
 */
int wss_privkey_load(const char *pem_path, wss_privkey **out, lab_err *err);
/* Frees k (NULL is fine). */
void wss_privkey_free(wss_privkey *k);

/* Reads the first PEM certificate of a file; codes as wss_privkey_load
 * (the certificate's key must be RSA of at least 2048 bits). */
int wss_cert_load(const char *pem_path, wss_cert **out, lab_err *err);
/*
 * A certificate that is only carried (the sender's own, in its
 * BinarySecurityToken): the DER bytes of the file's first PEM certificate,
 * not parsed when the file has the usual shape (keyfile.c), else as
 * wss_cert_load.  Codes as wss_cert_load, but no key check: the receiver
 * checks the certificate.  Only wss_cert_der, wss_cert_equal and
 * wss_cert_free take what this makes.
 */
int wss_cert_load_bytes(const char *pem_path, wss_cert **out, lab_err *err);
/* A DER certificate (a BinarySecurityToken's content); trailing bytes
 * after it are LAB_EMALFORMED. */
int wss_cert_from_der(const unsigned char *der, size_t len, wss_cert **out,
		      lab_err *err);
/* The same, but when der is known's DER (the trusted peer's certificate,
 * the common case) a reference to known instead of a second parse. */
int wss_cert_from_der_known(const unsigned char *der, size_t len,
			    const wss_cert *known, wss_cert **out,
			    lab_err *err);
/* The certificate's DER bytes (owned by c) and their length. */
const unsigned char *wss_cert_der(const wss_cert *c, size_t *len);
/* 1 when both hold the same DER bytes, else 0. */
int wss_cert_equal(const wss_cert *a, const wss_cert *b);
/* 1 when c's public key is k's, else 0: a certificate named by value
 * (a BinarySecurityToken) is the receiver's without its own. */
int wss_cert_has_key(const wss_cert *c, const wss_privkey *k);
/* The certificate's SubjectKeyIdentifier extension; NULL (and *len 0)
 * when it has none. */
const unsigned char *wss_cert_ski(const wss_cert *c, size_t *len);
/* The issuer as an RFC 2253 string and the serial number in decimal,
 * each appended to out; LAB_ENOMEM. */
int wss_cert_issuer(const wss_cert *c, lab_buf *out, lab_err *err);
int wss_cert_serial(const wss_cert *c, lab_buf *out, lab_err *err);
/*
 * *match = 1 when issuer, an RFC 2253 name, and serial, a decimal
 * integer, are c's issuer and serial number.  The names are compared as
 * X509_NAMEs (X509_NAME_cmp: OpenSSL's canonical form, where letter case
 * and runs of spaces in string values do not count), the RDNs in the
 * string's reverse order (RFC 2253's) or in its own (as some peers write
 * them); values may be escaped ("\," or "\2C").  A name this reader does
 * not know -- a BER value ("#..."), an attribute type unknown to
 * OpenSSL -- matches nothing.  LAB_ENOMEM.
 */
/* 1 and *octets, the size of the integer dec spells, when dec is
 * decimal digits only; else 0.  The caller bounds its length (the
 * conversion is quadratic in it). */
int wss_decimal_octets(const char *dec, size_t *octets);

int wss_cert_issuer_serial_is(const wss_cert *c, const char *issuer,
			      const char *serial, int *match, lab_err *err);
/* Frees c (NULL is fine). */
void wss_cert_free(wss_cert *c);

/* ---- digests ----------------------------------------------------------- */

enum { WSS_SHA256_LEN = 32, WSS_SHA1_LEN = 20 };

/* A streaming SHA-256; the canonicalizer feeds it.  (Named _ctx because
 * the one-shot wss_sha256() below takes the plain name: C has one
 * namespace for both.) */
typedef struct wss_sha256_ctx wss_sha256_ctx;
int wss_sha256_new(wss_sha256_ctx **out, lab_err *err);
/* 0, or LAB_ENOMEM (OpenSSL gives no other reason a digest update fails). */
int wss_sha256_update(wss_sha256_ctx *h, const void *p, size_t n);
/* Writes the digest and resets h for the next message; 0 or LAB_ENOMEM. */
int wss_sha256_final(wss_sha256_ctx *h, unsigned char out[WSS_SHA256_LEN]);
/* Frees h (NULL is fine). */
void wss_sha256_free(wss_sha256_ctx *h);
/* One-shot digests; 0 or LAB_ENOMEM. */
int wss_sha256(const void *p, size_t n, unsigned char out[WSS_SHA256_LEN]);
int wss_sha1(const void *p, size_t n, unsigned char out[WSS_SHA1_LEN]);

/* 1 when a[0..n) equals b[0..n), in time independent of the contents:
 * for digests and other values an attacker may probe byte by byte. */
int wss_ct_equal(const void *a, const void *b, size_t n);

/* ---- signatures (rsa-sha256: RSASSA-PKCS1-v1_5 with SHA-256) ----------- */

/* Appends the signature (the key's modulus length) to sig. */
int wss_rsa_sign_sha256(const wss_privkey *k, const void *data, size_t n,
			lab_buf *sig, lab_err *err);
/* The length of every signature k makes: its modulus's, in octets. */
size_t wss_rsa_sig_len(const wss_privkey *k);
/* LAB_OK, or LAB_ESECURITY "signature value does not verify". */
int wss_rsa_verify_sha256(const wss_cert *c, const void *data, size_t n,
			  const unsigned char *sig, size_t siglen,
			  lab_err *err);

/* ---- key transport ------------------------------------------------------ */

/* rsa-oaep-mgf1p: OAEP with a SHA-1 digest, MGF1 with SHA-1, no label. */

/* Appends the wrapped key (the modulus length) to out. */
int wss_rsa_oaep_wrap(const wss_cert *c, const unsigned char *key,
		      size_t keylen, lab_buf *out, lab_err *err);
/* Writes the unwrapped key to key[0..cap) and its length to *keylen.
 * Any failure, a key longer than cap included: LAB_ESECURITY
 * "key unwrap failed". */
int wss_rsa_oaep_unwrap(const wss_privkey *k, const unsigned char *in,
			size_t n, unsigned char *key, size_t cap,
			size_t *keylen, lab_err *err);

/* ---- data encryption --------------------------------------------------- */

typedef enum wss_cipher { WSS_AES256_GCM, WSS_AES128_CBC } wss_cipher;

enum { WSS_MAX_KEY_LEN = 32 };  /* the longest wss_cipher_key_len() */

/* 32 or 16; 0 for a value that is not a wss_cipher. */
size_t wss_cipher_key_len(wss_cipher c);
/* http://www.w3.org/2009/xmlenc11#aes256-gcm,
 * http://www.w3.org/2001/04/xmlenc#aes128-cbc; NULL for a non-cipher. */
const char *wss_cipher_uri(wss_cipher c);
/* LAB_ESECURITY for any other URI (a receiver takes no other algorithm:
 * no downgrade). */
int wss_cipher_from_uri(const char *uri, wss_cipher *out);
/* "aes256-gcm" | "aes128-cbc" (the command line's --cipher), else
 * LAB_EUSAGE. */
int wss_cipher_from_name(const char *name, wss_cipher *out);

/*
 * Appends XML Encryption's octets for pt[0..n) under key (of
 * wss_cipher_key_len(c) bytes), with a fresh random IV:
 *   GCM: IV(12) || ciphertext || tag(16)
 *   CBC: IV(16) || ciphertext of pt padded per XML Enc 1.0 5.2 (1..16
 *        octets, the last one the pad length, the others random).
 * LAB_EUSAGE for a non-cipher, LAB_ENOMEM, LAB_ESECURITY when OpenSSL or
 * the random generator fails.  out is unchanged on failure.
 */
int wss_encrypt(wss_cipher c, const unsigned char *key, const void *pt,
		size_t n, lab_buf *out, lab_err *err);
/*
 * The same, in place: b holds the plaintext on entry and the octets on
 * success (one buffer instead of two); on failure it is wiped and empty.
 * A buffer with a writer is LAB_EUSAGE.
 */
int wss_encrypt_in_place(wss_cipher c, const unsigned char *key, lab_buf *b,
			 lab_err *err);
/*
 * The same for a plaintext at b->data[at .. b->len), after `at` bytes the
 * caller has no more use for: the octets are left at b->data[*off ..
 * b->len).  With at >= WSS_IV_ROOM the IV takes the bytes just before
 * the plaintext, which never moves; with less room the plaintext moves up
 * once, as in wss_encrypt_in_place.
 */
enum { WSS_IV_ROOM = 16 }; /* the longest IV of any cipher */
/* The most any cipher adds after the plaintext: GCM's tag, CBC's
 * padding (at most one block). */
enum { WSS_TAIL_ROOM = 16 };
int wss_encrypt_in_place_at(wss_cipher c, const unsigned char *key,
			    lab_buf *b, size_t at, size_t *off, lab_err *err);
/*
 * The octets of wss_encrypt made in pieces, for a plaintext whose length
 * is known only at the end: begin writes the IV to iv (its length in
 * *ivlen), each update the octets of the next n bytes at out (room n +
 * WSS_TAIL_ROOM: CBC holds back a partial block), end the rest after
 * `total` plaintext bytes in all (GCM's tag, CBC's padded last block;
 * room 2 * WSS_TAIL_ROOM).  The stream holds no plaintext but CBC's
 * partial block, wiped when it is freed.
 */
typedef struct wss_enc_stream wss_enc_stream;
/* How many octets wss_encrypt makes of n bytes (n below SIZE_MAX / 2). */
size_t wss_cipher_octets(wss_cipher c, size_t n);
int wss_enc_begin(wss_enc_stream **s, wss_cipher c, const unsigned char *key,
		  unsigned char iv[WSS_IV_ROOM], size_t *ivlen, lab_err *err);
int wss_enc_update(wss_enc_stream *s, const void *in, size_t n,
		   unsigned char *out, size_t *outlen, lab_err *err);
int wss_enc_end(wss_enc_stream *s, size_t total, unsigned char *out,
		size_t *outlen, lab_err *err);
void wss_enc_free(wss_enc_stream *s);

/*
 * Appends the plaintext of ct[0..n).  Every failure on the data -- short
 * input, bad tag, bad padding -- is the same LAB_ESECURITY "decryption
 * failed", and leaves out->len unchanged with no plaintext in out's
 * spare room.  LAB_EUSAGE for a non-cipher, LAB_ENOMEM.
 */
int wss_decrypt(wss_cipher c, const unsigned char *key, const void *ct,
		size_t n, lab_buf *out, lab_err *err);
/*
 * The same, in place: the plaintext of buf[0..n) is left at
 * buf[*off .. *off + *len), where its ciphertext was (no second buffer).
 * On failure, the same single error, and buf is wiped.
 */
int wss_decrypt_in_place(wss_cipher c, const unsigned char *key,
			 unsigned char *buf, size_t n, size_t *off, size_t *len,
			 lab_err *err);

/*
 * The same in place, as the octets arrive (wss/pass.h's fused choice):
 * after begin, each wss_dec_more(d, buf, k) says buf[0..k) now holds the
 * first k octets (k only grows, buf stays), and decrypts there what it
 * can: after the IV, whole blocks, and for GCM all but the last 16
 * octets, which may be the tag.  wss_dec_ready says how much of that is
 * plaintext whatever follows: buf[*iv .. *iv + n), all that was
 * decrypted for GCM, all but the last block for CBC (which may be
 * padding).  wss_dec_end, once buf[0..n) holds them all, finishes as
 * wss_decrypt_in_place: the plaintext at buf[*off .. *off + *len), or
 * the one failure, after which the caller wipes buf[0..n) (wss/pass.h's
 * choices do, once nothing else reads it).  What was decrypted is not
 * authentic before it returns LAB_OK: until then it may only be read by
 * work whose result waits for that (wss/digest_ahead.h).
 */
typedef struct wss_dec_stream wss_dec_stream;
int wss_dec_begin(wss_dec_stream **d, wss_cipher c, const unsigned char *key,
		  lab_err *err);
int wss_dec_more(wss_dec_stream *d, unsigned char *buf, size_t k,
		 lab_err *err);
size_t wss_dec_ready(const wss_dec_stream *d, size_t *iv);
int wss_dec_end(wss_dec_stream *d, unsigned char *buf, size_t n,
		size_t *off, size_t *len, lab_err *err);
void wss_dec_free(wss_dec_stream *d);

/* ---- randomness -------------------------------------------------------- */

/* n bytes from OpenSSL's CSPRNG; LAB_ESECURITY if it fails. */
int wss_random(void *p, size_t n, lab_err *err);

#endif
