/*
 * ref.c - the reference peer (harness/refpeer/ref.h): the WS-Security
 * profile over libxml2's tree and xmlsec1's signature and encryption
 * contexts, minding the library's pitfalls: IDs resolve only once
 * registered with xmlAddID, xmlsec does not follow a
 * SecurityTokenReference (the key goes in the context), and the WSS
 * encryption layout takes a context per EncryptedData and one for the
 * EncryptedKey in the Security header.
 *
 * SOAP 1.1 and 1.2.  Sending, it signs and encrypts in either order and
 * can encrypt the Signature and a header block (a wsse11:EncryptedHeader)
 * besides the Body's content, as wss/ does.  Receiving, it takes either
 * order (the Signature before the EncryptedKey verifies the ciphertext),
 * a standalone ReferenceList, and decrypts every DataReference of the one
 * EncryptedKey.
 * This file holds the process state (xmlsec1's set-up, its errors),
 * the keys, parsing and the operations; the message's parts, the
 * signature and the encryption have files of their own (peer.h).
 * Not for: anything the reference does not need to measure or
 * interoperate -- one signer, one recipient named by thumbprint.
 */
#include "harness/refpeer/peer.h"

/* The options of variants/parser/libxml2/xml2.c, so the reference parses
 * exactly what we parse. */
enum {
	REF_OPTIONS = XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_DTDATTR |
		      XML_PARSE_NOERROR | XML_PARSE_NOWARNING
};

/* Key files are small; anything bigger is not one. */
enum { KEY_FILE_MAX = 1 << 20 };

/* ---- process state ------------------------------------------------------ */

/* How far xmlsec1 came up: 3 = ready; lab_ref_cleanup undoes each step. */
static int xmlsec_up;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static xmlExternalEntityLoader prev_loader;

/* xmlsec reports through a callback, deepest call first; the first
 * message of an operation is its cause and goes into lab_err. */
static _Thread_local char xmlsec_msg[200];

const char *ref__xmlsec_msg(void)
{
	return xmlsec_msg;
}

static void record_xmlsec_error(const char *file, int line, const char *func,
				const char *object, const char *subject,
				int reason, const char *msg)
{
	(void)file;
	(void)line;
	(void)object;
	(void)reason;
	if (xmlsec_msg[0] != '\0')
		return;
	snprintf(xmlsec_msg, sizeof xmlsec_msg, " (xmlsec1: %s: %s%s%s)",
		 func != NULL ? func : "?", subject != NULL ? subject : "",
		 subject != NULL ? ": " : "", msg != NULL ? msg : "");
}

/*
 * libxml2's entity loader is process-wide, and xmlSecInit installs
 * xmlsec's own.  variants/parser/libxml2/xml2.c installs one that
 * refuses everything for its own parses (they carry _private); this one
 * refuses for ours and hands
 * dom's parses to the loader that was there before xmlsec1 started, which
 * init() makes sure is dom's (dom_init first), even when a domlab parse
 * and a ref operation start at once on two threads.  Whichever is
 * installed last, nothing external is ever read.
 */
static xmlParserInputPtr refuse_external(const char *url, const char *id,
					 xmlParserCtxtPtr ctxt)
{
	if (ctxt != NULL && ctxt->_private != NULL && prev_loader != NULL)
		return prev_loader(url, id, ctxt);
	return NULL;
}

static void init(void)
{
	dom_init();
	prev_loader = xmlGetExternalEntityLoader();
	if (xmlSecInit() < 0)
		return;
	xmlSetExternalEntityLoader(refuse_external);
	xmlsec_up = 1;
	/* The headers must be the library's: xmlSecSize's type depends on
	 * the flags pkg-config gives (XMLSEC_NO_SIZE_T). */
	if (xmlSecCheckVersion() != 1 || xmlSecCryptoAppInit(NULL) < 0)
		return;
	xmlsec_up = 2;
	if (xmlSecCryptoInit() < 0)
		return;
	/* After xmlSecCryptoInit, which installs OpenSSL's printing one. */
	xmlSecErrorsSetCallback(record_xmlsec_error);
	xmlsec_up = 3;
}

/* Starts an operation: xmlsec1 ready, no message left from the last. */
static int begin(lab_err *err)
{
	pthread_once(&init_once, init);
	xmlsec_msg[0] = '\0';
	if (xmlsec_up != 3)
		return lab_fail(err, LAB_EUSAGE,
				"xmlsec1 could not be initialized%s",
				xmlsec_msg);
	return LAB_OK;
}

/* ---- keys, parsed once per process --------------------------------------- */

enum { KEY_PRIVATE, KEY_CERT };

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static ref_key *cache;

static void key_free(ref_key *k)
{
	if (k == NULL)
		return;
	if (k->key != NULL)
		xmlSecKeyDestroy(k->key);
	xmlFree(k->der_b64);
	xmlFree(k->thumb_b64);
	lab_free(k);
}

/* A key holding only full's value: a certificate's key also carries the
 * X.509 data, which xmlSecKeyDuplicate would copy for every message. */
static xmlSecKeyPtr value_only(xmlSecKeyPtr full)
{
	xmlSecKeyPtr key = xmlSecKeyCreate();
	xmlSecKeyDataPtr v = xmlSecKeyDataDuplicate(xmlSecKeyGetValue(full));

	if (key != NULL && v != NULL && xmlSecKeySetValue(key, v) == 0)
		return key;
	if (v != NULL)
		xmlSecKeyDataDestroy(v);
	if (key != NULL)
		xmlSecKeyDestroy(key);
	return NULL;
}

/* Fills a certificate entry from the first PEM certificate in pem. */
static int load_cert(ref_key *k, const lab_buf *pem, lab_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	unsigned char *der = NULL;
	xmlSecKeyPtr full = NULL;
	BIO *bio = BIO_new_mem_buf(pem->data, (int)pem->len);
	X509 *x = bio != NULL ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
	int derlen = x != NULL ? i2d_X509(x, &der) : -1;
	int rc = LAB_OK;

	if (derlen <= 0) {
		rc = lab_fail(err, LAB_EMALFORMED, "%s holds no certificate",
			      k->path);
		goto out;
	}
	full = xmlSecCryptoAppKeyLoadMemory(der, (xmlSecSize)derlen,
					    xmlSecKeyDataFormatCertDer, NULL,
					    NULL, NULL);
	if (full == NULL) {
		rc = lab_fail(err, LAB_EMALFORMED,
			      "xmlsec1 cannot use the certificate in %s%s",
			      k->path, xmlsec_msg);
		goto out;
	}
	k->key = value_only(full);
	k->der_b64 = xmlSecBase64Encode(der, (xmlSecSize)derlen, 0);
	if (EVP_Digest(der, (size_t)derlen, md, &mdlen, EVP_sha1(), NULL) !=
	    1)
		mdlen = 0;
	k->thumb_b64 = mdlen > 0 ? xmlSecBase64Encode(md, mdlen, 0) : NULL;
	if (k->key == NULL || k->der_b64 == NULL || k->thumb_b64 == NULL)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
out:
	if (full != NULL)
		xmlSecKeyDestroy(full);
	OPENSSL_free(der);
	X509_free(x);
	BIO_free(bio);
	return rc;
}

static int load_key(int kind, const char *path, ref_key **out, lab_err *err)
{
	lab_buf pem = LAB_BUF_INIT;
	size_t plen = strlen(path);
	ref_key *k = NULL;
	int rc = lab_read_input(path, KEY_FILE_MAX, &pem, err);

	if (rc != LAB_OK)
		goto out;
	k = lab_calloc(1, sizeof *k + plen + 1);
	if (k == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	k->kind = kind;
	memcpy(k->path, path, plen + 1);
	if (kind == KEY_CERT) {
		rc = load_cert(k, &pem, err);
		goto out;
	}
	k->key = xmlSecCryptoAppKeyLoadMemory((const xmlSecByte *)pem.data,
					      (xmlSecSize)pem.len,
					      xmlSecKeyDataFormatPem, NULL,
					      NULL, NULL);
	if (k->key == NULL)
		rc = lab_fail(err, LAB_EMALFORMED,
			      "xmlsec1 finds no private key in %s%s", path,
			      xmlsec_msg);
out:
	if (rc == LAB_OK)
		*out = k;
	else
		key_free(k);
	lab_buf_free(&pem);
	return rc;
}

/* The cached entry for (kind, path), loaded on first use.  Entries live
 * until lab_ref_cleanup, so callers keep them without a reference. */
static int get_key(int kind, const char *path, const char *what,
		   const ref_key **out, lab_err *err)
{
	ref_key *k;
	int rc = LAB_OK;

	if (path == NULL)
		return lab_fail(err, LAB_EUSAGE, "%s is required", what);
	pthread_mutex_lock(&cache_lock);
	for (k = cache; k != NULL; k = k->next)
		if (k->kind == kind && strcmp(k->path, path) == 0)
			break;
	if (k == NULL) {
		rc = load_key(kind, path, &k, err);
		if (rc == LAB_OK) {
			k->next = cache;
			cache = k;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	*out = k;
	return rc;
}

void lab_ref_cleanup(void)
{
	ref_key *k, *next;

	pthread_mutex_lock(&cache_lock);
	for (k = cache; k != NULL; k = next) {
		next = k->next;
		key_free(k);
	}
	cache = NULL;
	pthread_mutex_unlock(&cache_lock);
	if (xmlsec_up >= 3)
		xmlSecCryptoShutdown();
	if (xmlsec_up >= 2)
		xmlSecCryptoAppShutdown();
	if (xmlsec_up >= 1)
		xmlSecShutdown();
	xmlsec_up = 0;
	/* xmlSecInit starts libxslt for its XSLT transform and leaves its
	 * globals behind. */
	xsltCleanupGlobals();
	xmlCleanupParser();
}

/* ---- parsing and canonical form ------------------------------------------ */

int lab_ref_parse(const char *bytes, size_t len, xmlDocPtr *out, lab_err *err)
{
	const xmlError *e;
	int rc = begin(err);

	*out = NULL;
	if (rc != LAB_OK)
		return rc;
	if (len > INT_MAX)
		return lab_fail(err, LAB_EMALFORMED,
				"input is too large for xmlReadMemory");
	xmlResetLastError();
	*out = xmlReadMemory(bytes, (int)len, NULL, NULL, REF_OPTIONS);
	if (*out != NULL)
		return LAB_OK;
	e = xmlGetLastError();
	if (e != NULL && e->code == XML_ERR_NO_MEMORY)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	if (e == NULL || e->message == NULL)
		return lab_fail(err, LAB_EMALFORMED, "libxml2 cannot parse it");
	/* libxml2's messages end with a newline. */
	return lab_fail_at(err, LAB_EMALFORMED, (unsigned long)e->line,
			   (unsigned long)e->int2, "%.*s",
			   (int)strcspn(e->message, "\n"), e->message);
}

int lab_ref_c14n(xmlDocPtr doc, lab_buf *out, size_t *len, lab_err *err)
{
	xmlChar *bytes = NULL;
	int n = xmlC14NDocDumpMemory(doc, NULL, XML_C14N_EXCLUSIVE_1_0, NULL, 0,
				     &bytes);
	int rc = LAB_OK;

	*len = 0;
	if (n < 0 || bytes == NULL)
		rc = lab_fail(err, LAB_ENOMEM,
			      "xmlC14NDocDumpMemory failed (out of memory)");
	else if (out != NULL && lab_buf_put(out, bytes, (size_t)n) != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	else
		*len = (size_t)n;
	xmlFree(bytes);
	return rc;
}

/* ---- the operations -------------------------------------------------------------- */

void lab_ref_traverse(xmlDocPtr doc, size_t *sink)
{
	xmlNodePtr n = (xmlNodePtr)doc;
	size_t h = 0;

	while (n != NULL) {
		if (n->type == XML_ELEMENT_NODE)
			h += (size_t)(uintptr_t)n->name ^
			     (size_t)(uintptr_t)(n->ns != NULL ? n->ns->href
							      : NULL);
		else if (n->content != NULL)
			h += n->content[0];
		if (n->children != NULL &&
		    (n->type == XML_ELEMENT_NODE ||
		     n->type == XML_DOCUMENT_NODE)) {
			n = n->children;
			continue;
		}
		while (n != NULL && n->next == NULL)
			n = n->parent;
		if (n != NULL)
			n = n->next;
	}
	*sink = h;
}

int lab_ref_serialize(xmlDocPtr doc, lab_buf *out, lab_err *err)
{
	xmlChar *bytes = NULL;
	int n = 0, rc = LAB_OK;

	xmlDocDumpMemory(doc, &bytes, &n);
	if (bytes == NULL || n < 0 ||
	    lab_buf_put(out, bytes, (size_t)n) != LAB_OK)
		rc = ref__nomem(err);
	xmlFree(bytes);
	return rc;
}

/* The keys an operation takes, each fetched when its flag is set. */
typedef struct ref_keys {
	const ref_key *key, *cert, *peer, *trust;
} ref_keys;

static int get_keys(const wss_key_paths *paths, int key, int cert, int peer,
		    int trust, ref_keys *k, lab_err *err)
{
	int rc = LAB_OK;

	memset(k, 0, sizeof *k);
	if (key)
		rc = get_key(KEY_PRIVATE, paths->key, "the private key (--key)",
			     &k->key, err);
	if (rc == LAB_OK && cert)
		rc = get_key(KEY_CERT, paths->cert, "the certificate (--cert)",
			     &k->cert, err);
	if (rc == LAB_OK && peer)
		rc = get_key(KEY_CERT, paths->peer_cert,
			     "the recipient's certificate (--peer-cert)",
			     &k->peer, err);
	if (rc == LAB_OK && trust)
		rc = get_key(KEY_CERT, paths->trust,
			     "the trusted certificate (--trust)", &k->trust,
			     err);
	return rc;
}

/* The header block "{uri}local" names in the Header, not the Security
 * header; NULL when there is none. */
static xmlNodePtr header_block(const ref_msg *m, const char *clark)
{
	const char *end = clark[0] == '{' ? strchr(clark, '}') : NULL;
	xmlNodePtr n = m->header != NULL && end != NULL ? m->header->children
							: NULL;

	for (; n != NULL; n = n->next)
		if (n != m->security && n->type == XML_ELEMENT_NODE &&
		    n->ns != NULL &&
		    xmlStrlen(n->ns->href) == (int)(end - clark - 1) &&
		    xmlStrncmp(n->ns->href, X(clark + 1),
			       (int)(end - clark - 1)) == 0 &&
		    xmlStrEqual(n->name, X(end + 1)))
			return n;
	return NULL;
}

/* Signs and encrypts as wss_send_doc does: in o->layout's order, with
 * the Signature (o->encrypt_signature) and the header block
 * o->encrypt_header names encrypted besides the Body's content. */
static int send_msg(ref_msg *m, const ref_keys *k, const wss_opts *o,
		    lab_err *err)
{
	xmlNodePtr parts[2], ek;
	size_t n = 0, count;
	int rc;

	if (o->encrypt_header != NULL &&
	    (parts[n++] = header_block(m, o->encrypt_header)) == NULL)
		return lab_fail(err, LAB_EUSAGE,
				"the Header has no block %s to encrypt",
				o->encrypt_header);
	if (o->layout == WSS_ENCRYPT_SIGN) {
		if (o->encrypt_signature)
			return lab_fail(err, LAB_EUSAGE,
					"the Signature is encrypted in the "
					"sign-encrypt layout only");
		rc = ref__encrypt_msg(m, k->peer, o->cipher, parts, n, err);
		if (rc == LAB_OK)
			rc = ref__sign_msg(m, k->key, k->cert, o, err);
		/* The EncryptedKey after the Signature: verified, then
		 * decrypted. */
		ek = ref__one_child(m->security, WSS_NS_XENC, "EncryptedKey",
				    &count);
		if (rc == LAB_OK && ek != NULL) {
			xmlUnlinkNode(ek);
			xmlAddChild(m->security, ek);
		}
		return rc;
	}
	rc = ref__sign_msg(m, k->key, k->cert, o, err);
	if (rc == LAB_OK && o->encrypt_signature)
		parts[n++] = ref__one_child(m->security, WSS_NS_DS, "Signature",
					    &count);
	if (rc != LAB_OK)
		return rc;
	return ref__encrypt_msg(m, k->peer, o->cipher, parts, n, err);
}

int lab_ref_message(lab_ref_op op, const char *bytes, size_t len,
		    const wss_key_paths *paths, const wss_opts *o,
		    lab_buf *out, lab_err *err)
{
	int sender = op == LAB_REF_SIGN || op == LAB_REF_SEND;
	int encrypts = op == LAB_REF_ENCRYPT || op == LAB_REF_SEND;
	int decrypts = op == LAB_REF_DECRYPT || op == LAB_REF_RECEIVE;
	int verifies = op == LAB_REF_VERIFY || op == LAB_REF_RECEIVE;
	int forwards = op == LAB_REF_FORWARD;
	xmlNodePtr ts = NULL;
	xmlDocPtr doc = NULL;
	ref_keys k;
	ref_msg m;
	int sig_first, rc = begin(err);

	if (rc == LAB_OK)
		rc = get_keys(paths, sender || decrypts, sender, encrypts,
			      verifies || forwards, &k, err);
	if (rc == LAB_OK)
		rc = lab_ref_parse(bytes, len, &doc, err);
	if (rc == LAB_OK)
		rc = ref__msg_open(doc, sender || encrypts,
				   sender || encrypts ? LAB_EMALFORMED : LAB_ESECURITY,
				   &m, err);
	if (rc == LAB_OK && op == LAB_REF_SEND)
		rc = send_msg(&m, &k, o, err);
	else if (rc == LAB_OK && sender)
		rc = ref__sign_msg(&m, k.key, k.cert, o, err);
	else if (rc == LAB_OK && encrypts)
		rc = ref__encrypt_msg(&m, k.peer, o->cipher, NULL, 0, err);
	if (rc == LAB_OK && forwards)
		rc = ref__forward_msg(&m, k.trust, o, err);
	if (rc == LAB_OK && verifies)
		rc = ref__check_timestamp(&m, o->now, &ts, err);
	/* Only the Body's content is replaced: the Security header and its
	 * Timestamp stay the ones just checked.  A Signature before the
	 * EncryptedKey signed the ciphertext (encrypt, then sign). */
	sig_first = rc == LAB_OK && decrypts && verifies &&
		    ref__signed_first(&m);
	if (rc == LAB_OK && sig_first)
		rc = ref__verify_msg(&m, k.trust, ts, NULL, err);
	if (rc == LAB_OK && decrypts)
		rc = ref__decrypt_msg(&m, k.key, err);
	if (rc == LAB_OK && verifies && !sig_first)
		rc = ref__verify_msg(&m, k.trust, ts, NULL, err);
	/* A hop passes on the bytes it took (out may have a writer). */
	if (rc == LAB_OK && out != NULL && forwards)
		rc = lab_buf_put_all(out, bytes, len, err);
	else if (rc == LAB_OK && out != NULL && !forwards)
		rc = lab_ref_serialize(doc, out, err);
	xmlFreeDoc(doc);
	return rc;
}

/* A new document: an Envelope whose Body holds a copy of body's
 * children (xmlDocCopyNode declares the namespaces they use that were
 * declared above them). */
static int reply_doc(const xmlNode *body, xmlDocPtr *out, lab_err *err)
{
	xmlDocPtr doc = xmlNewDoc(X("1.0"));
	xmlNodePtr env = NULL, b = NULL;
	const xmlNode *c;
	xmlNsPtr ns = NULL;

	if (doc != NULL)
		env = xmlNewDocNode(doc, NULL, X("Envelope"), NULL);
	if (env != NULL) {
		xmlDocSetRootElement(doc, env);
		ns = xmlNewNs(env, X(WSS_NS_SOAP), X("soap"));
	}
	if (ns != NULL) {
		xmlSetNs(env, ns);
		b = xmlNewChild(env, ns, X("Body"), NULL);
	}
	for (c = body->children; b != NULL && c != NULL; c = c->next) {
		xmlNodePtr copy = xmlDocCopyNode((xmlNodePtr)c, doc, 1);

		if (copy == NULL || xmlAddChild(b, copy) == NULL) {
			xmlFreeNode(copy);
			b = NULL;
		}
	}
	if (b == NULL) {
		xmlFreeDoc(doc);
		return ref__nomem(err);
	}
	*out = doc;
	return LAB_OK;
}

/* Hands the received message's token to admit: the wrapped key of its
 * one EncryptedKey (which decryption leaves in place), decoded. */
static int admit_token(const ref_msg *m, lab_ref_admit_fn admit, void *ctx,
		       lab_err *err)
{
	size_t count;
	xmlNodePtr ek = ref__one_child(m->security, WSS_NS_XENC, "EncryptedKey",
				       &count);
	xmlNodePtr cd = ek != NULL ? ref__one_child(ek, WSS_NS_XENC,
						    "CipherData", &count)
				   : NULL;
	xmlNodePtr cv = cd != NULL ? ref__one_child(cd, WSS_NS_XENC,
						    "CipherValue", &count)
				   : NULL;
	xmlSecBufferPtr buf = xmlSecBufferCreate(0);
	int rc;

	if (buf == NULL)
		return ref__nomem(err);
	rc = cv == NULL ? lab_fail(err, LAB_ESECURITY,
				   "the message has no EncryptedKey")
	     : xmlSecBufferBase64NodeContentRead(buf, cv) < 0
		     ? lab_fail(err, LAB_ESECURITY,
				"the EncryptedKey's CipherValue is not base64")
		     : admit(ctx, xmlSecBufferGetData(buf),
			     xmlSecBufferGetSize(buf), err);
	xmlSecBufferDestroy(buf);
	return rc;
}

int lab_ref_reply(const char *bytes, size_t len, const wss_key_paths *paths,
		  const wss_opts *o, lab_ref_admit_fn admit, void *admit_ctx,
		  int *stage, lab_buf *out, lab_err *err)
{
	xmlDocPtr doc = NULL, reply = NULL;
	xmlNodePtr ts = NULL;
	ref_msg m, r;
	ref_keys k;
	int rc = begin(err);

	if (rc == LAB_OK)
		rc = get_keys(paths, 1, 1, 1, 1, &k, err);
	if (rc == LAB_OK)
		rc = lab_ref_parse(bytes, len, &doc, err);
	if (rc == LAB_OK && (xmlDocGetRootElement(doc) == NULL ||
			     !ref__is_el(xmlDocGetRootElement(doc), WSS_NS_SOAP,
					 "Envelope")))
		rc = lab_fail(err, LAB_EMALFORMED, "not a SOAP 1.1 Envelope");
	if (rc == LAB_OK) {
		*stage = 1;
		rc = ref__msg_open(doc, 0, LAB_ESECURITY, &m, err);
	}
	if (rc == LAB_OK)
		rc = ref__check_timestamp(&m, o->now, &ts, err);
	if (rc == LAB_OK)
		rc = ref__decrypt_msg(&m, k.key, err);
	if (rc == LAB_OK)
		rc = ref__verify_msg(&m, k.trust, ts, NULL, err);
	if (rc == LAB_OK && admit != NULL)
		rc = admit_token(&m, admit, admit_ctx, err);
	if (rc == LAB_OK)
		rc = reply_doc(m.body, &reply, err);
	if (rc == LAB_OK)
		rc = ref__msg_open(reply, 1, LAB_EMALFORMED, &r, err);
	if (rc == LAB_OK)
		rc = ref__sign_msg(&r, k.key, k.cert, o, err);
	if (rc == LAB_OK)
		rc = ref__encrypt_msg(&r, k.peer, o->cipher, NULL, 0, err);
	if (rc == LAB_OK)
		rc = lab_ref_serialize(reply, out, err);
	xmlFreeDoc(reply);
	xmlFreeDoc(doc);
	return rc;
}
