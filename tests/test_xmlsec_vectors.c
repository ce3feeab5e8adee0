/*
 * test_xmlsec_vectors.c - known answers from xmlsec1 through
 * wss/crypto.h: the W3C/Phaos aes128-cbc + rsa-oaep-mgf1p vector, and the
 * WS-Security messages xmlsec1 sent with AES-256-GCM and AES-128-CBC,
 * each unwrapped and decrypted to the plaintext xmlsec1 encrypted.
 * Not tested here: the same messages through the pipeline
 * (tests/interop.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/crypto_util.h"
#include "util/base64.h"

/* Just after the nth (0-based) start tag <name> or <prefix:name>. */
static const char *start_tag(const char *p, const char *name, int nth)
{
	size_t n = strlen(name);

	while ((p = strchr(p, '<')) != NULL) {
		const char *q = ++p, *local;
		size_t len = strcspn(q, " \t\r\n/>");

		if (*q == '/')
			continue;
		local = memchr(q, ':', len);
		local = local != NULL ? local + 1 : q;
		if ((size_t)(q + len - local) == n &&
		    strncmp(local, name, n) == 0 && q[len] == '>' && nth-- == 0)
			return q + len + 1;
	}
	return NULL;
}

/* Base64-decodes the text of the nth element `name` of xml into out. */
static int element_b64(const char *xml, const char *name, int nth,
		       lab_buf *out)
{
	const char *p = start_tag(xml, name, nth), *end;
	lab_err err;

	if (!CHECK_MSG(p != NULL, "no %s #%d", name, nth))
		return 0;
	end = strstr(p, "</");
	if (!CHECK(end != NULL))
		return 0;
	lab_err_clear(&err);
	return CHECK_OK(lab_base64_decode(p, (size_t)(end - p), out, &err),
			&err);
}

static void crlf_to_lf(lab_buf *b)
{
	size_t i, j = 0;

	for (i = 0; i < b->len; i++)
		if (b->data[i] != '\r' || i + 1 == b->len ||
		    b->data[i + 1] != '\n')
			b->data[j++] = b->data[i];
	b->len = j;
	b->data[j] = '\0';
}


/*
 * W3C XML Encryption interop (Phaos): aes128-cbc data, session key under
 * rsa-oaep-mgf1p.  The CipherValues are indented with tabs and spaces.
 * The key is PKCS#1 DER; wrapped as PEM here for wss_privkey_load.
 */
static void xmlsec_phaos_oaep_cbc(void)
{
	static const char *const names[] = {"phaos.pem"};
	lab_buf xml = LAB_BUF_INIT, data = LAB_BUF_INIT, der = LAB_BUF_INIT;
	lab_buf pem = LAB_BUF_INIT, ek = LAB_BUF_INIT, ed = LAB_BUF_INIT;
	lab_buf pt = LAB_BUF_INIT, cert_der = LAB_BUF_INIT;
	unsigned char key[WSS_MAX_KEY_LEN];
	wss_privkey *k = NULL;
	wss_cert *cert = NULL, *ours = NULL;
	char dir[256], path[512];
	size_t klen = 0;
	lab_err err;

	lab_err_clear(&err);
	if (!READ_FILE(E1 ".xml", &xml) || !READ_FILE(E1 ".data", &data) ||
	    !READ_FILE(VECTORS "/xmlsec/01-phaos-xmlenc-3/rsa-priv-key.der",
		       &der) ||
	    !element_b64(xml.data, "CipherValue", 0, &ek) ||
	    !element_b64(xml.data, "CipherValue", 1, &ed) ||
	    !element_b64(xml.data, "X509Certificate", 0, &cert_der))
		goto out;
	CHECK_EQ_INT(lab_buf_puts(&pem, "-----BEGIN RSA PRIVATE KEY-----\n"),
		     LAB_OK);
	CHECK_EQ_INT(lab_base64_encode(der.data, der.len, 64, &pem), LAB_OK);
	CHECK_EQ_INT(lab_buf_puts(&pem, "\n-----END RSA PRIVATE KEY-----\n"),
		     LAB_OK);
	if (!t_tmp_dir(dir, sizeof dir))
		goto out;
	if (t_write_tmp(dir, names[0], pem.data, pem.len, path, sizeof path))
		k = LOAD_KEY(path);
	t_rm_tmp(dir, names, 1);
	if (k == NULL)
		goto out;
	if (!CHECK_OK(wss_rsa_oaep_unwrap(k, (unsigned char *)ek.data, ek.len,
					  key, sizeof key, &klen, &err), &err) ||
	    !CHECK_EQ_INT(klen, 16) ||
	    !CHECK_OK(wss_decrypt(WSS_AES128_CBC, key, ed.data, ed.len, &pt,
				  &err), &err))
		goto out;
	/* Type Element: the plaintext is the CreditCard element of .data,
	 * once its CRLFs are read as an XML parser reads them. */
	CHECK(pt.len > 30 && strncmp(pt.data, "<CreditCard", 11) == 0);
	crlf_to_lf(&pt);
	CHECK(memmem(data.data, data.len, pt.data, pt.len) != NULL);
	CHECK(strstr(pt.data, "4019 2445 0277 5567") != NULL);

	/* The certificate in its KeyInfo: a DER certificate we can read,
	 * and not ours. */
	t_context("X509Certificate");
	if (CHECK_OK(wss_cert_from_der((unsigned char *)cert_der.data,
				       cert_der.len, &cert, &err), &err) &&
	    (ours = LOAD_CERT(CERT_PEM)) != NULL)
		CHECK(!wss_cert_equal(cert, ours));
out:
	lab_buf_free(&xml);
	lab_buf_free(&data);
	lab_buf_free(&der);
	if (pem.data != NULL)
		memset(pem.data, 0, pem.len);
	lab_buf_free(&pem);
	lab_buf_free(&ek);
	lab_buf_free(&ed);
	lab_buf_free(&pt);
	lab_buf_free(&cert_der);
	wss_privkey_free(k);
	wss_cert_free(cert);
	wss_cert_free(ours);
}

/*
 * The messages xmlsec1 sent in this project's profile: the EncryptedKey's
 * CipherValue (first) unwraps with the test key, the EncryptedData's
 * (second) decrypts to the input envelope's Body content.
 */
static void xmlsec_wss_message(const char *file, wss_cipher c)
{
	lab_buf xml = LAB_BUF_INIT, in = LAB_BUF_INIT, ek = LAB_BUF_INIT;
	lab_buf ed = LAB_BUF_INIT, pt = LAB_BUF_INIT;
	unsigned char key[WSS_MAX_KEY_LEN];
	wss_privkey *k = NULL;
	const char *body, *end;
	size_t klen = 0;
	char path[512];
	lab_err err;

	t_context("%s", file);
	lab_err_clear(&err);
	snprintf(path, sizeof path, "%s/wss/%s", VECTORS, file);
	if (!READ_FILE(path, &xml) ||
	    !READ_FILE(VECTORS "/wss/in-quakes-2k.xml", &in) ||
	    !element_b64(xml.data, "CipherValue", 0, &ek) ||
	    !element_b64(xml.data, "CipherValue", 1, &ed) ||
	    (k = LOAD_KEY(KEY_PEM)) == NULL)
		goto out;
	if (!CHECK_OK(wss_rsa_oaep_unwrap(k, (unsigned char *)ek.data, ek.len,
					  key, sizeof key, &klen, &err), &err) ||
	    !CHECK_EQ_INT(klen, wss_cipher_key_len(c)) ||
	    !CHECK_OK(wss_decrypt(c, key, ed.data, ed.len, &pt, &err), &err))
		goto out;
	body = strstr(in.data, "<soap:Body");
	body = body != NULL ? strchr(body, '>') : NULL;
	end = strstr(in.data, "</soap:Body>");
	if (CHECK(body != NULL && end != NULL))
		CHECK_EQ_MEM(pt.data, pt.len, body + 1, (size_t)(end - body - 1));
out:
	lab_buf_free(&xml);
	lab_buf_free(&in);
	lab_buf_free(&ek);
	lab_buf_free(&ed);
	lab_buf_free(&pt);
	wss_privkey_free(k);
}

static void xmlsec_wss_gcm(void)
{
	xmlsec_wss_message("sent-gcm-quakes-2k.xml", WSS_AES256_GCM);
}

static void xmlsec_wss_cbc(void)
{
	xmlsec_wss_message("sent-cbc-quakes-2k.xml", WSS_AES128_CBC);
}

const t_case tests_xmlsec_vectors[] = {
	{"crypto/xmlsec_phaos_oaep_cbc", xmlsec_phaos_oaep_cbc},
	{"crypto/xmlsec_wss_gcm", xmlsec_wss_gcm},
	{"crypto/xmlsec_wss_cbc", xmlsec_wss_cbc},
	{NULL, NULL},
};
