/*
 * list.c - tokens=list: the never-evicted token store of RAMPART-298, on
 * the code path Apache Rampart's org.apache.rahas.SimpleTokenStore ran
 * (apache/rampart, modules/rampart-trust/src/main/java/org/apache/rahas/
 * SimpleTokenStore.java, the version before its read/write lock, whose
 * getToken(id) calls processTokenExpiry() over every token first).
 *
 * What is modelled, per lookup (wss_tokens_get):
 *   - processTokenExpiry(): every stored token, oldest first, has its
 *     expiry compared against the clock, one clock read per token as
 *     System.currentTimeMillis() was; where the Java set a token past its
 *     expiry to Token.EXPIRED, this counts it (wss_tokens_expired) and
 *     still returns it, as getToken returned it;
 *   - the reply names the token by a SecurityTokenReference (a WSS 1.1
 *     reply does), not by the token's own id, so the Hashtable probe by id
 *     misses and getToken scans ALL tokens without stopping at a match;
 *     for each it runs getIdFromSTR() on the token's attached and then
 *     its unattached reference, each a small element of this store's own
 *     document: the first child element, its name compared with
 *     ds:KeyInfo (the names looked up from strings, as `new QName(...)`
 *     did on every call) and with wsse:Reference, and for a Reference the
 *     URI attribute's value copied without its '#' (a new string), then
 *     compared with the identifier looked for.  The attached reference is
 *     a wsse:Reference URI="#<identifier in hex>", the one a reply names;
 *     the unattached one a wsse:KeyIdentifier (EncryptedKeySHA1), which
 *     getIdFromSTR gives up on after its two name comparisons.
 * Put appends (the Java map's put, no search); nothing is ever removed.
 *
 * Not modelled: the JVM's and Axiom's allocation and garbage collection
 * (a fresh QName per getIdFromSTR call, iterator objects, OM element
 * objects and their lazily built children), the Hashtable probe that
 * misses (constant cost), Java's synchronisation, and Rampart's callback
 * handler above the store (which version called getToken how many times
 * per reply is not modelled: one getToken per reply here).  Nothing is
 * made slower on purpose; how much the walk shows against the request's
 * crypto is what the benchmark measures.
 */
#include "wss/tokens.h"

#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "dom/dom.h"
#include "util/base64.h"
#include "wss/profile.h"

const char wss__tokens_choice[] = "list";

/* A token's lifetime: Rampart's default timestamp TTL, 300 s. */
enum { LIFETIME_MS = 300 * 1000 };

/* "EK-" and 40 hex digits: the identifier as a reference names it. */
enum { REF_LEN = 3 + 2 * WSS_SHA1_LEN };

#define EK_SHA1 \
	"http://docs.oasis-open.org/wss/oasis-wss-soap-message-security-1.1#EncryptedKeySHA1"

typedef struct entry {
	long long expires_ms;
	dom_node *attached, *unattached;   /* SecurityTokenReferences */
	size_t key_len;
	unsigned char key[];
} entry;

struct wss_token_store {
	dom_doc *doc;                 /* owns every token's references */
	const char *wsse, *reference; /* interned: Reference.TOKEN */
	entry **items;
	size_t n, cap;
	size_t expired;               /* wss_tokens_expired() */
};

/* System.currentTimeMillis(). */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ref_name(const unsigned char id[WSS_SHA1_LEN],
		     char out[REF_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	memcpy(out, "EK-", 3);
	for (i = 0; i < WSS_SHA1_LEN; i++) {
		out[3 + 2 * i] = hex[id[i] >> 4];
		out[4 + 2 * i] = hex[id[i] & 15];
	}
	out[REF_LEN] = '\0';
}

int wss_tokens_new(wss_token_store **out, lab_err *err)
{
	wss_token_store *s = lab_calloc(1, sizeof *s);
	int rc;

	*out = NULL;
	if (s == NULL)
		return lab_fail(err, LAB_ENOMEM,
				"out of memory for a token store");
	rc = dom_doc_new(&s->doc, err);
	if (rc == LAB_OK) {
		s->wsse = dom_intern(s->doc, WSS_NS_WSSE,
				     strlen(WSS_NS_WSSE));
		s->reference = dom_intern(s->doc, "Reference", 9);
		if (s->wsse == NULL || s->reference == NULL)
			rc = lab_fail(err, LAB_ENOMEM,
				      "out of memory for a token store");
	}
	if (rc != LAB_OK) {
		wss_tokens_free(s);
		return rc;
	}
	*out = s;
	return LAB_OK;
}

void wss_tokens_free(wss_token_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		lab_free(s->items[i]);
	lab_free(s->items);
	dom_doc_free(s->doc);
	lab_free(s);
}

/* <wsse:SecurityTokenReference> holding one child element `child`. */
static int str_of(dom_doc *doc, const char *child, const char *attr,
		  const char *value, const char *text, dom_node **out,
		  lab_err *err)
{
	dom_node *str, *el, *t;
	int rc = dom_create_element(doc, WSS_NS_WSSE,
				    "wsse:SecurityTokenReference", &str, err);

	if (rc == LAB_OK)
		rc = dom_create_element(doc, WSS_NS_WSSE, child, &el, err);
	if (rc == LAB_OK)
		rc = dom_attr_set(el, NULL, attr, value, strlen(value), err);
	if (rc == LAB_OK && text != NULL) {
		rc = dom_create_text(doc, text, strlen(text), &t, err);
		if (rc == LAB_OK)
			rc = dom_append(el, t, err);
	}
	if (rc == LAB_OK)
		rc = dom_append(str, el, err);
	*out = rc == LAB_OK ? str : NULL;
	return rc;
}

/* The token's attached reference (by its identifier) and unattached one
 * (by the EncryptedKeySHA1 key identifier). */
static int references(wss_token_store *s, entry *e,
		      const unsigned char id[WSS_SHA1_LEN], lab_err *err)
{
	char uri[1 + REF_LEN + 1];
	lab_buf b64 = LAB_BUF_INIT;
	int rc;

	uri[0] = '#';
	ref_name(id, uri + 1);
	rc = str_of(s->doc, "wsse:Reference", "URI", uri, NULL, &e->attached,
		    err);
	if (rc == LAB_OK && (lab_base64_encode(id, WSS_SHA1_LEN, 0, &b64) !=
				     LAB_OK ||
			     lab_buf_putc(&b64, '\0') != LAB_OK))
		rc = lab_fail(err, LAB_ENOMEM, "out of memory storing a token");
	if (rc == LAB_OK)
		rc = str_of(s->doc, "wsse:KeyIdentifier", "ValueType", EK_SHA1,
			    b64.data, &e->unattached, err);
	lab_buf_free(&b64);
	return rc;
}

int wss_tokens_put(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN],
		   const unsigned char *key, size_t key_len, lab_err *err)
{
	entry *e;
	int rc;

	rc = wss_tokens_check_key_len(key_len, err);
	if (rc != LAB_OK)
		return rc;
	if (s->n == s->cap) {
		size_t cap = s->cap != 0 ? s->cap * 2 : 16;
		entry **items = lab_realloc(s->items, cap * sizeof *items);

		if (items == NULL)
			return lab_fail(err, LAB_ENOMEM,
					"out of memory storing a token");
		s->items = items;
		s->cap = cap;
	}
	e = lab_malloc(sizeof *e + key_len);
	if (e == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory storing a token");
	e->expires_ms = now_ms() + LIFETIME_MS;
	e->key_len = key_len;
	if (key_len > 0)
		memcpy(e->key, key, key_len);
	rc = references(s, e, id, err);
	if (rc != LAB_OK) {
		/* Elements already made stay in the arena until the store
		 * goes: a document frees nothing sooner. */
		lab_free(e);
		return rc;
	}
	s->items[s->n++] = e;
	return LAB_OK;
}

/* OMElement.getFirstElement(). */
static const dom_node *first_element(const dom_node *n)
{
	const dom_node *c = dom_first_child(n);

	while (c != NULL && dom_node_type(c) != DOM_ELEMENT)
		c = dom_next_sibling(c);
	return c;
}

/*
 * getIdFromSTR(): the identifier a SecurityTokenReference names, as a
 * fresh string the caller frees, or NULL (no child, a child it does not
 * know, or no memory).  Only the Reference form is stored with a value
 * here; a KeyInfo child's text, the Java's other case, never occurs.
 */
static char *id_from_str(const wss_token_store *s, const dom_node *str)
{
	const dom_node *child = first_element(str);
	const char *ds, *key_info, *uri;
	const dom_attr *a;
	char *id;

	if (child == NULL)
		return NULL;
	/* new QName(WSConstants.SIG_NS, "KeyInfo"), every call. */
	ds = dom_intern_find(s->doc, WSS_NS_DS, strlen(WSS_NS_DS));
	key_info = dom_intern_find(s->doc, "KeyInfo", 7);
	if (ds != NULL && key_info != NULL && dom_is(child, ds, key_info))
		return NULL;
	if (!dom_is(child, s->wsse, s->reference))
		return NULL;
	a = dom_attr_get_str(child, NULL, "URI");
	if (a == NULL)
		return NULL;
	uri = a->value;
	if (a->len > 0 && uri[0] == '#')
		uri++;
	id = lab_malloc(strlen(uri) + 1);
	if (id != NULL)
		strcpy(id, uri);
	return id;
}

/* Whether the reference str names `want`. */
static int names(const wss_token_store *s, const dom_node *str,
		 const char *want)
{
	char *got = id_from_str(s, str);
	int same = got != NULL && strcmp(got, want) == 0;

	lab_free(got);
	return same;
}

const unsigned char *wss_tokens_get(wss_token_store *s,
				    const unsigned char id[WSS_SHA1_LEN],
				    size_t *key_len)
{
	char want[REF_LEN + 1];
	entry *found = NULL;
	size_t i;

	s->expired = 0;
	for (i = 0; i < s->n; i++)
		if (s->items[i]->expires_ms < now_ms())
			s->expired++;
	ref_name(id, want);
	for (i = 0; i < s->n; i++) {
		entry *e = s->items[i];

		if (names(s, e->attached, want))
			found = e;
		if (names(s, e->unattached, want))
			found = e;
	}
	if (found == NULL)
		return NULL;
	*key_len = found->key_len;
	return found->key;
}

void wss_tokens_done(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN])
{
	(void)s;
	(void)id;
}

size_t wss_tokens_count(const wss_token_store *s)
{
	return s->n;
}

size_t wss_tokens_expired(const wss_token_store *s)
{
	return s->expired;
}
