/*
 * gsoap.c - the gSOAP peer (gsoap.h): the quakes records through
 * soapcpp2's serializers and the wsse plugin, the way a gSOAP service
 * sends and receives them, with the message bytes in memory instead of
 * on a socket (gSOAP's fsend and frecv callbacks).
 *
 * Not for: checks the plugin does not make; the receive policy here is
 * the plugin's plus what a careful gSOAP service adds after a call (the
 * Body and the Timestamp signed, by the trusted certificate, in time).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "wsseapi.h"
/* gSOAP's namespace table, which soapcpp2 writes as a definition. */
#include "quakes.nsmap"

#include "harness/gsoap/gsoap.h"
#include "wss/wsse.h"

/* The per-process key cache: the last paths read and what they held. */
typedef struct gs_keys {
	char key[512], cert[512], peer[512], trust[512];
	EVP_PKEY *pkey;
	X509 *own, *peer_cert, *trust_cert;
	/* peer_cert's issuer (RFC 2253) and serial (decimal), which name
	 * the recipient in the EncryptedKey. */
	char issuer[512], serial[128];
} gs_keys;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static gs_keys cache;

/* The message's bytes in and out of a context (soap->user). */
typedef struct gs_io {
	const char *in;
	size_t len, at;
	lab_buf *out;
	int failed;
	int secured; /* a Security header was read */
	int (*fheader)(struct soap *); /* the one the plugins set, if any */
	/* receive: what gs_verified checks against, and its verdict */
	X509 *trust;
	const wss_opts *o;
	lab_err *err;
	int refused;
} gs_io;

static size_t gs_recv(struct soap *soap, char *buf, size_t len)
{
	gs_io *io = soap->user;
	size_t n = io->len - io->at < len ? io->len - io->at : len;

	memcpy(buf, io->in + io->at, n);
	io->at += n;
	return n;
}

static int gs_send(struct soap *soap, const char *s, size_t n)
{
	gs_io *io = soap->user;

	if (lab_buf_put(io->out, s, n) != LAB_OK) {
		io->failed = 1;
		return SOAP_EOM;
	}
	return SOAP_OK;
}

static int read_pem(const char *path, int what, void **out, lab_err *err)
{
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return lab_fail(err, LAB_EIO, "%s: cannot open", path);
	*out = what == 0 ? (void *)PEM_read_PrivateKey(f, NULL, NULL, NULL)
			 : (void *)PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (*out == NULL)
		return lab_fail(err, LAB_EMALFORMED, "%s: not a PEM %s", path,
				what == 0 ? "private key" : "certificate");
	return LAB_OK;
}

/* One cached slot: reread when its path changed. */
static int cached(char slot[512], const char *path, int what, void **obj,
		  lab_err *err)
{
	void *fresh = NULL;
	int rc;

	if (path == NULL || (*obj != NULL && strcmp(slot, path) == 0))
		return LAB_OK;
	if (strlen(path) >= 512)
		return lab_fail(err, LAB_EUSAGE, "%s: path too long", path);
	if ((rc = read_pem(path, what, &fresh, err)) != LAB_OK)
		return rc;
	if (what == 0)
		EVP_PKEY_free(*obj);
	else
		X509_free(*obj);
	*obj = fresh;
	strcpy(slot, path);
	return LAB_OK;
}

/* The recipient's name as the EncryptedKey gives it (gSOAP's
 * X509IssuerSerial: a certificate in a KeyIdentifier is one the receiver
 * must verify as a CA-issued peer's, its own included). */
static int issuer_serial(gs_keys *k, lab_err *err)
{
	BIO *b = BIO_new(BIO_s_mem());
	BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(k->peer_cert),
					NULL);
	char *dec = bn != NULL ? BN_bn2dec(bn) : NULL;
	int n = -1, rc = LAB_OK;

	if (b != NULL &&
	    X509_NAME_print_ex(b, X509_get_issuer_name(k->peer_cert), 0,
			       XN_FLAG_RFC2253) >= 0)
		n = BIO_read(b, k->issuer, sizeof k->issuer - 1);
	if (n < 0 || dec == NULL || strlen(dec) >= sizeof k->serial)
		rc = lab_fail(err, LAB_EMALFORMED,
			      "the recipient's certificate: no issuer or "
			      "serial");
	else {
		k->issuer[n] = '\0';
		strcpy(k->serial, dec);
	}
	OPENSSL_free(dec);
	BN_free(bn);
	BIO_free(b);
	return rc;
}

/* The keys paths name, read once and kept; *k is the cache's, which a
 * later call with other paths changes (the benchmark's contexts share
 * one set of keys). */
static int keys(const wss_key_paths *paths, gs_keys **k, lab_err *err)
{
	int rc;

	pthread_mutex_lock(&cache_lock);
	rc = cached(cache.key, paths->key, 0, (void **)&cache.pkey, err);
	if (rc == LAB_OK)
		rc = cached(cache.cert, paths->cert, 1, (void **)&cache.own,
			    err);
	if (rc == LAB_OK && paths->peer_cert != NULL &&
	    (cache.peer_cert == NULL || strcmp(cache.peer, paths->peer_cert) != 0)) {
		rc = cached(cache.peer, paths->peer_cert, 1,
			    (void **)&cache.peer_cert, err);
		if (rc == LAB_OK)
			rc = issuer_serial(&cache, err);
		if (rc != LAB_OK)
			cache.peer[0] = '\0';
	}
	if (rc == LAB_OK)
		rc = cached(cache.trust, paths->trust, 1,
			    (void **)&cache.trust_cert, err);
	pthread_mutex_unlock(&cache_lock);
	*k = &cache;
	return rc;
}

void lab_gsoap_cleanup(void)
{
	EVP_PKEY_free(cache.pkey);
	X509_free(cache.own);
	X509_free(cache.peer_cert);
	X509_free(cache.trust_cert);
	memset(&cache, 0, sizeof cache);
}

/* gSOAP's error code when it gave no words for it. */
static const char *gs_code_str(struct soap *soap)
{
	return soap->error == SOAP_EOF		? "unexpected end of input"
	       : soap->error == SOAP_SYNTAX_ERROR ? "not well-formed XML"
	       : soap->error == SOAP_TAG_MISMATCH ? "not a quakes envelope"
	       : soap->error == SOAP_NO_TAG	? "not a quakes envelope"
						: "gSOAP error";
}

/* The context's error as lab_err: code, and gSOAP's own words. */
static int gs_fail(struct soap *soap, int code, const char *what,
		   lab_err *err)
{
	const char **detail = soap_faultdetail(soap);
	const char *s = *soap_faultstring(soap);

	return lab_fail(err, code, "gsoap %s: %s%s%s", what,
			s != NULL ? s : gs_code_str(soap),
			detail != NULL && *detail != NULL ? ": " : "",
			detail != NULL && *detail != NULL ? *detail : "");
}

/* Notes a Security header: from then on, a failure is the message's. */
static int gs_header(struct soap *soap)
{
	gs_io *io = soap->user;

	if (soap->header != NULL && soap->header->wsse__Security != NULL)
		io->secured = 1;
	return io->fheader != NULL ? io->fheader(soap) : SOAP_OK;
}

/* A context reading from and writing to io, with the wsse plugin;
 * SOAP_XML_CANONICAL is the plugin's exclusive C14N. */
static struct soap *gs_new(gs_io *io)
{
	struct soap *soap = soap_new1(SOAP_XML_CANONICAL);

	if (soap == NULL)
		return NULL;
	/* mecevp.c's soap_mec_check hands msgbuf to the receiver error
	 * having written it only for a queued OpenSSL error; a GCM tag that
	 * fails queues none, and memcheck saw the unwritten bytes read. */
	soap->msgbuf[0] = '\0';
	soap->user = io;
	soap->frecv = gs_recv;
	soap->fsend = gs_send;
	soap->recvfd = -1;
	soap->sendfd = -1;
	if (soap_register_plugin(soap, soap_wsse) != SOAP_OK) {
		soap_free(soap);
		return NULL;
	}
	io->fheader = soap->fheader;
	soap->fheader = gs_header;
	return soap;
}

static void gs_free(struct soap *soap)
{
	soap_destroy(soap);
	soap_end(soap);
	soap_free(soap);
}

/* The envelope's records, read as a gSOAP service reads a request. */
static int gs_read(struct soap *soap, struct q__getEventsResponse *r)
{
	return soap_recv_q__getEventsResponse(soap, r) != SOAP_OK ||
	       r->results == NULL;
}

/* The envelope's parts, as soapcpp2's soap_send_ writes them. */
static int gs_put(struct soap *soap, struct q__getEventsResponse *r)
{
	return soap_envelope_begin_out(soap) || soap_putheader(soap) ||
	       soap_body_begin_out(soap) ||
	       soap_put_q__getEventsResponse(soap, r, "q:getEventsResponse",
					     "") ||
	       soap_body_end_out(soap) || soap_envelope_end_out(soap);
}

/*
 * The records written out as a plain envelope, or signed and encrypted
 * when the Security header was set up: soapcpp2's soap_send_ for the
 * operation (its counting pass included, which the plugin's digests
 * ride on), with soap_begin_send where it connects to an endpoint.
 */
static int gs_write(struct soap *soap, struct q__getEventsResponse *r)
{
	soap_begin(soap);
	soap->encodingStyle = NULL;
	soap_serializeheader(soap);
	soap_serialize_q__getEventsResponse(soap, r);
	if (soap_begin_count(soap) ||
	    ((soap->mode & SOAP_IO_LENGTH) && gs_put(soap, r)) ||
	    soap_end_count(soap) || soap_begin_send(soap) || gs_put(soap, r) ||
	    soap_end_send(soap))
		return soap->error != SOAP_OK ? soap->error : SOAP_ERR;
	return SOAP_OK;
}

/* Created is o->now (the clock when 0), Expires ttl later. */
static int gs_timestamp(struct soap *soap, const wss_opts *o)
{
	struct _wsu__Timestamp *ts;
	time_t now = o->now != 0 ? o->now : time(NULL);

	if (soap_wsse_add_Timestamp(soap, "Time", (time_t)o->ttl) != SOAP_OK)
		return 1;
	ts = soap_wsse_Timestamp(soap);
	ts->Created = soap_strdup(soap, soap_dateTime2s(soap, now));
	ts->Expires = soap_strdup(soap,
				  soap_dateTime2s(soap, now + (time_t)o->ttl));
	return ts->Created == NULL || ts->Expires == NULL;
}

/*
 * The Security header gSOAP writes for the profile: the sender's
 * certificate as a BinarySecurityToken, the Signature's KeyInfo a
 * reference to it, RSA-SHA256 over the Body and the Timestamp, and an
 * EncryptedKey for the recipient over the Body's content.  The plugin
 * wraps the key with RSA PKCS#1 v1.5 whatever it is asked
 * (docs/measuring.md), so the EncryptedKey says rsa-1_5; it names the
 * recipient by issuer and serial.
 */
static int gs_secure(struct soap *soap, gs_keys *k, const wss_opts *o)
{
	int alg = o->cipher == WSS_AES128_CBC ? SOAP_MEC_ENV_ENC_AES128_CBC
					      : SOAP_MEC_ENV_ENC_AES256_GCM;

	return soap_wsse_add_BinarySecurityTokenX509(soap, "X509Token",
						     k->own) != SOAP_OK ||
	       soap_wsse_add_KeyInfo_SecurityTokenReferenceX509(
		       soap, "#X509Token") != SOAP_OK ||
	       gs_timestamp(soap, o) ||
	       soap_wsse_sign_body(soap, SOAP_SMD_SIGN_RSA_SHA256, k->pkey,
				   0) != SOAP_OK ||
	       soap_wsse_sign_only(soap, "Time Body") != SOAP_OK ||
	       soap_wsse_add_EncryptedKey(soap, alg, "EK", k->peer_cert, NULL,
					  k->issuer, k->serial) != SOAP_OK;
}

static int gs_send_op(struct soap *soap, gs_keys *k, const wss_opts *o,
		      lab_err *err)
{
	struct q__getEventsResponse r;

	if (gs_read(soap, &r))
		return gs_fail(soap, LAB_EMALFORMED, "send: the input", err);
	if (gs_secure(soap, k, o))
		return gs_fail(soap, LAB_EUSAGE, "send: the Security header",
			       err);
	if (gs_write(soap, &r) != SOAP_OK)
		return gs_fail(soap, LAB_EMALFORMED, "send", err);
	return LAB_OK;
}

/* The Timestamp's times against the clock, with domlab's skew (the
 * plugin's own check reads the system clock, so the tests' fixed clock
 * is checked here). */
static int gs_in_time(struct soap *soap, const wss_opts *o, lab_err *err)
{
	struct _wsu__Timestamp *ts = soap_wsse_Timestamp(soap);
	time_t now = o->now != 0 ? o->now : time(NULL), created, expires;

	if (ts == NULL || ts->Created == NULL || ts->Expires == NULL ||
	    soap_s2dateTime(soap, ts->Created, &created) != SOAP_OK ||
	    soap_s2dateTime(soap, ts->Expires, &expires) != SOAP_OK)
		return lab_fail(err, LAB_ESECURITY,
				"gsoap receive: no readable Timestamp");
	if (created > now + WSS_CLOCK_SKEW || expires <= now)
		return lab_fail(err, LAB_ESECURITY,
				"gsoap receive: the Timestamp is not current");
	return LAB_OK;
}

/* What the plugin leaves to the service: that the Body and the Timestamp
 * were among what the Signature covered, by the trusted certificate. */
static int gs_policy(struct soap *soap, X509 *trust, const wss_opts *o,
		     lab_err *err)
{
	X509 *cert;
	int same;

	if (soap_wsse_verify_element(soap, soap->namespaces[0].ns, "Body") ==
		    0 ||
	    soap_wsse_verify_element(soap, wsu_URI, "Timestamp") == 0)
		return lab_fail(err, LAB_ESECURITY,
				"gsoap receive: the Body and the Timestamp "
				"must be signed");
	/* The token the Signature's KeyInfo referenced (the plugin verified
	 * with the certificate it names, against soap->cafile). */
	cert = soap_wsse_get_KeyInfo_SecurityTokenReferenceX509(soap);
	if (cert == NULL)
		return lab_fail(err, LAB_ESECURITY,
				"gsoap receive: the Signature names no "
				"certificate");
	same = X509_cmp(cert, trust) == 0;
	X509_free(cert);
	if (!same)
		return lab_fail(err, LAB_ESECURITY,
				"gsoap receive: signed by another certificate");
	return gs_in_time(soap, o, err);
}

/*
 * The plugin's last step once it read a message, called by it after the
 * Signature verified (soap_wsse_verify_auto keeps the step it finds and
 * calls it then): the policy checks, while the Security header and the
 * plugin's DOM of the message are there to check.
 */
static int gs_verified(struct soap *soap)
{
	gs_io *io = soap->user;

	io->refused = gs_policy(soap, io->trust, io->o, io->err);
	return io->refused != LAB_OK ? SOAP_FAULT : SOAP_OK;
}

static int gs_receive_op(struct soap *soap, gs_keys *k,
			 const wss_key_paths *paths, const wss_opts *o,
			 lab_err *err)
{
	gs_io *io = soap->user;
	struct q__getEventsResponse r;

	io->trust = k->trust_cert;
	io->o = o;
	io->err = err;
	soap->cafile = paths->trust;
	soap->fpreparefinalrecv = gs_verified;
	if (soap_wsse_verify_auto(soap, SOAP_SMD_NONE, NULL, 0) != SOAP_OK ||
	    soap_wsse_decrypt_auto(soap, SOAP_MEC_ENV_DEC_AES256_GCM, k->pkey,
				   0) != SOAP_OK)
		return gs_fail(soap, LAB_EUSAGE, "receive: setup", err);
	if (gs_read(soap, &r))
		return io->refused != LAB_OK ? io->refused
		       : gs_fail(soap,
				 io->secured || soap->error == SOAP_FAULT
					 ? LAB_ESECURITY
					 : LAB_EMALFORMED,
				 "receive", err);
	/* The reply is plain: no Security header, the plugin's verifying
	 * and decrypting off. */
	soap_wsse_delete_Security(soap);
	soap_wsse_verify_done(soap);
	soap_wsse_decrypt_auto(soap, SOAP_MEC_NONE, NULL, 0);
	if (gs_write(soap, &r) != SOAP_OK)
		return gs_fail(soap, LAB_EMALFORMED, "receive: the output",
			       err);
	return LAB_OK;
}

int lab_gsoap_message(lab_gsoap_op op, const char *bytes, size_t len,
		      const wss_key_paths *paths, const wss_opts *o,
		      lab_buf *out, lab_err *err)
{
	lab_buf tmp = LAB_BUF_INIT;
	gs_io io = {bytes, len, 0, out != NULL ? out : &tmp, 0, 0, NULL,
		     NULL, NULL, NULL, LAB_OK};
	size_t start = io.out->len;
	struct soap *soap = NULL;
	gs_keys *k;
	int rc;

	if ((op == LAB_GSOAP_SEND &&
	     (paths->key == NULL || paths->cert == NULL ||
	      paths->peer_cert == NULL)) ||
	    (op == LAB_GSOAP_RECEIVE &&
	     (paths->key == NULL || paths->trust == NULL)))
		return lab_fail(err, LAB_EUSAGE,
				"gsoap send needs --key, --cert and "
				"--peer-cert; receive --key and --trust");
	if ((rc = keys(paths, &k, err)) != LAB_OK)
		goto out;
	if ((soap = gs_new(&io)) == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	rc = op == LAB_GSOAP_SEND ? gs_send_op(soap, k, o, err)
				  : gs_receive_op(soap, k, paths, o, err);
	if (rc == LAB_OK && io.failed)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
out:
	if (soap != NULL)
		gs_free(soap);
	if (rc != LAB_OK)
		lab_buf_truncate(io.out, start);
	lab_buf_free(&tmp);
	return rc;
}
