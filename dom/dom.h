/*
 * dom.h - the DOM that the WS-Security pipeline (wss/) is written against,
 * and the only way it touches a tree.
 *
 * The internals behind these functions are chosen at build time (see
 * variants/ and docs/design.md): how attributes are stored and looked up, where
 * user data lives, how the tree is built from the parser, what
 * dom_attributes() returns.  Callers see the same behaviour whichever
 * variant is linked; only time and memory differ.
 *
 * Model.  A document owns every node, string and attribute made in it; they
 * live in the document's arena and go away together in dom_doc_free().
 * Names and namespace URIs are interned per document, so two names are
 * equal exactly when their pointers are (see dom_intern()).  Namespace
 * declarations are not attributes: an element lists the ones it declares
 * (dom_ns_decls()), and dom_ns_lookup() resolves a prefix in scope.
 * Attributes are small records, not nodes.
 *
 * Not for: validation, XPath, DTDs (an internal subset is read for its
 * entities and attribute defaults and then dropped; nothing external is
 * ever fetched), encodings other than UTF-8 on output.
 */
#ifndef DOM_H
#define DOM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/buf.h"
#include "util/err.h"

typedef struct dom_doc dom_doc;
typedef struct dom_node dom_node;

typedef enum dom_type {
	DOM_DOCUMENT = 1,
	DOM_ELEMENT,
	DOM_TEXT,
	DOM_CDATA,
	DOM_COMMENT,
	DOM_PI
} dom_type;

/*
 * A qualified name: `local`, `ns` and `prefix` interned (NULL when there
 * is no namespace or prefix).  The record itself is interned per document
 * too, so elements and attributes hold one pointer for all three, and two
 * names are the same exactly when their records are.
 */
typedef struct dom_name {
	const char *local;
	const char *ns;
	const char *prefix;
} dom_name;

/*
 * ---- interned names, for the XML writers ----
 * Every name and namespace URI in a tree is interned per document
 * (dom/names.h): one copy, its length stored in front of it.  What
 * follows is what both XML writers (dom/serialize.c, wss/c14n.c) need of
 * that: the length without a scan, canonical XML's two orders, and a
 * name written out; inline, as they ask it of every name they write.
 */

/* Header stored just before an interned string's bytes. */
typedef struct dom_name_hdr {
	uint32_t len;
	uint32_t hash;
} dom_name_hdr;

/* Length of an interned string: inline, as both XML writers ask it for
 * every name they write. */
static inline size_t dom_names_len(const char *interned)
{
	const dom_name_hdr *h = (const dom_name_hdr *)(const void *)interned - 1;

	return h->len;
}

/*
 * Canonical XML's two orders, as qsort compares: namespace declarations
 * by prefix, the default (NULL) first; attributes by namespace URI, none
 * (NULL) first, then by local name.  wss/c14n.c sorts by them, and a
 * parser that answers dom/parser.h's question checks that bytes already
 * are in them.  strcmp's order, which on UTF-8 is the code points' order; most
 * names differ in their first byte, which then decides without a call.
 */
/* Not API: the step both orders share, here for their inlining. */
static inline int dom__names_cmp(const char *x, const char *y)
{
	if (*x != *y)
		return (unsigned char)*x - (unsigned char)*y;
	return strcmp(x, y);
}

static inline int dom_names_c14n_prefix_cmp(const char *x, const char *y)
{
	if (x == NULL || y == NULL)
		return (x != NULL) - (y != NULL);
	return dom__names_cmp(x, y);
}

static inline int dom_names_c14n_attr_cmp(const dom_name *x,
					  const dom_name *y)
{
	/* Interned: the same pointer is the same URI. */
	if (x->ns != y->ns) {
		int r = dom_names_c14n_prefix_cmp(x->ns, y->ns);

		if (r != 0)
			return r;
	}
	return dom__names_cmp(x->local, y->local);
}

/*
 * An attribute: its interned name; `value` is NUL-terminated, `len` bytes
 * long.  Pointers to attributes stay valid until the element's attributes
 * change.  Read the name through the accessors below.
 */
typedef struct dom_attr {
	const dom_name *name;
	const char *value;
	size_t len;
} dom_attr;

static inline const char *dom_attr_local(const dom_attr *a)
{
	return a->name->local;
}

static inline const char *dom_attr_ns(const dom_attr *a)
{
	return a->name->ns;
}

static inline const char *dom_attr_prefix(const dom_attr *a)
{
	return a->name->prefix;
}

/* A namespace declaration: prefix NULL for the default namespace; uri ""
 * for xmlns="" (undeclaring the default). Both interned. */
typedef struct dom_nsdecl {
	const char *prefix;
	const char *uri;
} dom_nsdecl;

/*
 * What dom_attributes() returns: `count` attributes in document order.
 * Release it with dom_attr_list_release() whichever variant is linked:
 * it may own a fresh array or be a view of the element's own.
 */
typedef struct dom_attr_list {
	const dom_attr *items;
	size_t count;
	void *owned;
} dom_attr_list;

/* The default of dom_limits.max_input, which readers of the input apply
 * while reading, before a parser sees it. */
#define DOM_DEFAULT_MAX_INPUT ((size_t)1 << 30)

/* Bounds the parser enforces; zero fields take the defaults. */
typedef struct dom_limits {
	size_t max_input;   /* bytes of input (default 1 GiB) */
	size_t max_depth;   /* element nesting (default 256, as general parsers cap it) */
	size_t max_attrs;   /* attributes per element (default 10000) */
	size_t max_name;    /* bytes in a name (default 50000) */
	size_t max_text;    /* bytes in one text node or value (default 1 GiB) */
	/* namespace declarations in scope at an element (default 256): a
	 * prefix is looked up among them, by the parser and by c14n in turn */
	size_t max_ns;
} dom_limits;

/* ---- documents ------------------------------------------------------ */

/*
 * Sets up the process-wide parser state now: under the general parser,
 * its library's initialisation and the entity loader that refuses
 * everything external.  Every parse does it on first use; a component
 * that installs an entity loader of its own in that library
 * (harness/refpeer/ref.c, for xmlsec1) calls it first, so the loader it
 * saves and chains to is domlab's refusing one whatever thread got there
 * first.
 */
void dom_init(void);

/* An empty document (no root element yet) to build a tree in; free it
 * with dom_doc_free.  LAB_ENOMEM is its only failure. */
int dom_doc_new(dom_doc **out, lab_err *err);

/* Runs every user-data free callback still pending, then frees everything. */
void dom_doc_free(dom_doc *doc);

/*
 * Parses `len` bytes (UTF-8 or any encoding the parser detects) through the
 * parser variant.  Errors are LAB_EMALFORMED with line and column in `err`.
 */
int dom_parse(const char *buf, size_t len, const dom_limits *lim,
	      dom_doc **out, lab_err *err);

/*
 * dom_parse for a sender that signs the Body next (wss_send_doc): the
 * same document, errors and limits.  Under build=deferred, deferred
 * content (a header block's, a Body child's) that is its own exclusive
 * canonical form but for the order of its attributes has them put in
 * that order where it stands, during the parse, so the digest and the
 * encryption take its bytes as they are instead of reading it again;
 * built later, that content has its attributes in canonical order.  On
 * every other build, dom_parse.
 */
int dom_parse_signing(const char *buf, size_t len, const dom_limits *lim,
		      dom_doc **out, lab_err *err);

/*
 * dom_parse_signing that tells feed (dom/feed.h; NULL: nothing) what it
 * reads as it reads, for a thread that streams the canonical bytes of
 * the feed's stretch meanwhile; the feed is closed when it returns.
 */
struct dom_feed;
int dom_parse_signing_fed(const char *buf, size_t len, const dom_limits *lim,
			  struct dom_feed *feed, dom_doc **out, lab_err *err);

/* 1 when dom_parse_signing_fed tells its feed what it reads on this
 * build (build=deferred with emit=canonical, whose parse puts tags in
 * order); 0 where a feed would only learn, at the parse's end, that it
 * failed. */
int dom_parse_feeds(void);

/*
 * Parses `len` bytes of element content (elements, text, comments...) as
 * if it stood inside `parent`, so prefixes in scope there resolve, and
 * inserts what it read before `ref` (NULL: at the end).  On failure parent
 * is unchanged.  Decryption uses it to put plaintext back in place.
 */
int dom_parse_into(dom_node *parent, dom_node *ref, const char *buf,
		   size_t len, const dom_limits *lim, lab_err *err);

/*
 * Replaces `old` by the nodes parsed from the `len` bytes at text->data +
 * at, as content of old's parent (the context of dom_parse_into), and
 * takes text's memory: *text is empty on return, whatever the result, and
 * the document wipes the bytes (decrypted plaintext) before it frees them.
 * When the `at` bytes in front can hold the start tag of the wrapper the
 * fragment is parsed in, the bytes are not copied (around them the text
 * is overwritten and may grow).  On failure the parent is unchanged.
 * Decryption puts plaintext where its EncryptedData was with it.  When
 * the document keeps the bytes (dom/emit.h) and old was the parent's only
 * child, dom_serialize writes the parent's content as these bytes until
 * the document next changes.
 * An ID index that dom_get_by_id built before the call is updated for the
 * IDs that leave with old and come with the fragment instead of being
 * rebuilt, so decrypting N elements does not cost N walks of the tree.
 * A text with a writer (util/buf.h) is LAB_EUSAGE.
 */
int dom_replace_parsed(dom_node *old, lab_buf *text, size_t at, size_t len,
		       const dom_limits *lim, lab_err *err);

/*
 * What dom_replace_parsed_held tells a caller that asks (watch not NULL),
 * whose other thread may be reading the fragment's bytes already (and
 * goes on while the parse reads them: wss/digest_ahead.h hashes them):
 * `parsing` where they lie, before the parse reads them, when they have
 * not moved; `done` once on every path, before the bytes are written
 * (moved forward included), wiped or kept.  From the call to `done` the
 * fragment's bytes are only read; after it, they are the document's.
 */
typedef struct dom_parse_watch {
	void (*parsing)(void *ctx, const char *p, size_t n);
	void (*done)(void *ctx);
	void *ctx;
} dom_parse_watch;

/*
 * dom_replace_parsed for bytes the document holds: text[0..cap), from
 * dom_text_take, with the fragment at [at, at + len).  The fragment moves
 * forward within them when the wrapper's start tag does not fit in front,
 * and is copied only when cap cannot hold both.  Kept or not, the
 * document wipes them when it lets go of them, from the first up to the
 * fragment's end (where it was parsed) and the wrapper's end tag after
 * it; it never frees them (they are its own memory).
 */
int dom_replace_parsed_held(dom_node *old, char *text, size_t cap, size_t at,
			    size_t len, const dom_limits *lim,
			    const dom_parse_watch *watch, lab_err *err);

/* A number that changes whenever the document does (a node, attribute
 * or namespace declaration added, removed or changed; building deferred
 * content is not a change): what was read of the document stands while
 * it stays the same. */
uint64_t dom_doc_generation(const dom_doc *doc);

/*
 * What canonical content bytes assume of the apex's context, for one
 * prefix (NULL: the default namespace) the content uses without binding
 * it itself: its binding in scope at the apex and the binding the apex's
 * start tag renders for it (NULL: none).  Where both still hold, every
 * declaration inside is rendered or left out as the bytes have it.
 */
typedef struct dom_canon_dep {
	const char *prefix;
	const char *in_scope;
	const char *rendered;
} dom_canon_dep;

/*
 * The Exclusive XML Canonicalization (without PrefixList, with or
 * without comments: it holds none) of el's content with el as the apex,
 * when the document keeps it (dom/emit.h, dom/parser.h): the bytes
 * dom_replace_parsed parsed into el, or, for a child of the root element
 * of a parsed document, its source with each start tag's attributes in
 * canonical order, where the parser was asked for it; the parser proved them
 * canonical, and nothing inside el has changed since.  *deps (*ndeps of
 * them) is what they assume of el's context: they stand for the content
 * only where each holds, which the caller checks (wss/c14n.c, against
 * the bindings it has in scope and rendered at the apex).  Else NULL.  A
 * digest of el's subtree can then take them instead of walking the
 * nodes.
 */
const char *dom_canonical_content(const dom_node *el, size_t *len,
				  const dom_canon_dep **deps, size_t *ndeps);

/*
 * The same bytes without a whole copy, for a digest that streams them.
 * Peek: whether they are kept for el, with *len their count and the
 * deps known so far (NULL: not kept).  Write: hands them to
 * write(ctx, ...) in order, in pieces -- the parser's copy where it
 * holds them, and content it deferred (build=deferred) read again for
 * its canonical form through a window of `window` bytes -- and sets
 * *ndeps to the count of the deps (the array peek returned), which such
 * content may add to.  1: all of them, which stand for the content only
 * where every dep holds; 0: not kept, or deferred content turned out not
 * canonical: the bytes are let go and what write got must be discarded
 * (a digest restarts and walks); -1: write failed.
 */
const dom_canon_dep *dom_canonical_content_peek(const dom_node *el,
					       size_t *len, size_t *ndeps);
int dom_canonical_content_write(const dom_node *el, size_t window,
				lab_buf_write_fn write, void *ctx,
				size_t *ndeps);

dom_node *dom_doc_node(dom_doc *doc);      /* the document node */
dom_node *dom_doc_element(dom_doc *doc);   /* the root element, or NULL */
/* 1 when the parsed input had a document type declaration (a general
 * parser reads one, and SOAP forbids it; the SOAP profile's own parser
 * refuses it at parse time). */
int dom_doc_has_dtd(const dom_doc *doc);
dom_doc *dom_node_doc(const dom_node *n);

/* Interns s[0..len) in the document; NULL only when memory runs out.
 * The result is NUL-terminated and compares by pointer. */
const char *dom_intern(dom_doc *doc, const char *s, size_t len);

/* The interned copy of s if the document has one, else NULL: a name the
 * document never saw cannot match anything in it.  No allocation. */
const char *dom_intern_find(const dom_doc *doc, const char *s, size_t len);

/* Bytes and allocations the document holds (for --stats). */
typedef struct dom_doc_stats {
	size_t elements, attributes, nsdecls, texts, others;
	size_t arena_used;  /* bytes handed out by the arena */
	size_t arena_held;  /* bytes of arena chunks */
	size_t allocs;      /* arena allocations */
} dom_doc_stats;

/* Counts doc's nodes (a walk of the tree) and reads its arena's totals. */
void dom_doc_stats_get(dom_doc *doc, dom_doc_stats *out);

/* The length of the text the document was parsed from, 0 for one made
 * by dom_doc_new: a size hint for buffers that will hold a copy of much
 * of it, so they need not grow by doubling. */
size_t dom_doc_source_len(const dom_doc *doc);

/* ---- nodes: creation --------------------------------------------------- */

/*
 * Each makes a node owned by doc and attached nowhere: insert it with
 * dom_append, dom_insert_before or dom_replace.  Strings are copied into
 * the document.  LAB_ENOMEM when memory runs out.
 * `qname` is "prefix:local" or "local"; ns NULL or "" means no namespace
 * (LAB_EUSAGE for an empty name, more than one colon, or a prefix
 * without a namespace).
 */
int dom_create_element(dom_doc *doc, const char *ns, const char *qname,
		       dom_node **out, lab_err *err);
int dom_create_text(dom_doc *doc, const char *s, size_t len, dom_node **out,
		    lab_err *err);
/* A text node of `len` bytes the caller writes at *buf (NUL already at
 * [len]) before it is read: a large value is made in place, not copied. */
int dom_create_text_buf(dom_doc *doc, size_t len, char **buf, dom_node **out,
			lab_err *err);
/*
 * A text node holding the base64 (RFC 4648, one line, padded) of `n`
 * bytes given in pieces: dom_b64_put each piece in order, then
 * dom_b64_end.  The DOM writes every character itself, so the text holds
 * nothing that needs escaping, and dom_serialize hands it on as it
 * stands: no scan, and to a buffer with a writer (lab_buf_init_writer)
 * no copy -- what a 2 MB CipherValue costs to write out.  The node is
 * made at its final size first; until dom_b64_end its characters are
 * not all written (and it is serialized escaped, as any text).  A
 * dom_b64's fields are the DOM's; it holds no memory of its own.
 */
typedef struct dom_b64 {
	char *o;                /* where the next quantum goes */
	size_t left;            /* bytes still to come */
	dom_node *text;
	unsigned char carry[3]; /* bytes not yet a whole quantum */
	size_t ncarry;
} dom_b64;

int dom_create_text_b64(dom_doc *doc, size_t n, dom_b64 *w, dom_node **out,
			lab_err *err);
/* LAB_EUSAGE for more bytes than announced, LAB_ENOMEM when the
 * encoder's tables cannot be made; after either, dom_b64_end fails. */
int dom_b64_put(dom_b64 *w, const void *p, size_t n);
/* After the last piece: LAB_EUSAGE unless exactly the bytes announced
 * came, all put; then the text is whole. */
int dom_b64_end(dom_b64 *w, lab_err *err);
int dom_create_cdata(dom_doc *doc, const char *s, size_t len, dom_node **out,
		     lab_err *err);
int dom_create_comment(dom_doc *doc, const char *s, size_t len,
		       dom_node **out, lab_err *err);
/* target and data NUL-terminated. */
int dom_create_pi(dom_doc *doc, const char *target, const char *data,
		  dom_node **out, lab_err *err);

/* ---- nodes: reading ---------------------------------------------------- */

/* Navigation: NULL where there is no such node.  Constant time. */
dom_type dom_node_type(const dom_node *n);
dom_node *dom_parent(const dom_node *n);
dom_node *dom_first_child(const dom_node *n);
dom_node *dom_last_child(const dom_node *n);
dom_node *dom_next_sibling(const dom_node *n);
dom_node *dom_prev_sibling(const dom_node *n);

/* Elements: the interned parts of the name. PI: local is the target. */
const char *dom_local_name(const dom_node *n);
const char *dom_ns_uri(const dom_node *n);
const char *dom_prefix(const dom_node *n);

/* Text, CDATA, comment, PI data: the bytes and their length. */
const char *dom_value(const dom_node *n, size_t *len);

/*
 * The bytes of text or CDATA node n, for the caller to overwrite: n reads
 * as empty from then on (a change to the document, one that leaves an ID
 * index standing), and the *len bytes at the result stay the document's
 * until it is freed.  For a value read once and then replaced, such as a
 * CipherValue decoded and decrypted where it stands (then parsed with
 * dom_replace_parsed_held): no buffer the size of the value beside it.
 * NULL (*len 0) for other nodes and empty ones.
 */
char *dom_text_take(dom_node *n, size_t *len);

/* Element name test; ns (may be NULL) and local are interned. */
int dom_is(const dom_node *n, const char *ns, const char *local);

/* Writes "prefix:local" or "local" into out (NUL-terminated if it fits);
 * returns the length the full name needs. */
size_t dom_qname(const dom_node *n, char *out, size_t cap);

/* ---- nodes: changing ---------------------------------------------------- */

/* Each fails with LAB_EUSAGE when the node is from another document,
 * would become its own ancestor, or cannot have children. */
int dom_append(dom_node *parent, dom_node *child, lab_err *err);
int dom_insert_before(dom_node *parent, dom_node *child, dom_node *ref,
		      lab_err *err);
int dom_replace(dom_node *old, dom_node *with, lab_err *err);

/* Detaches n (and its subtree); it can be inserted again or freed. */
void dom_remove(dom_node *n);

/* Detaches n if attached and releases its subtree's user data.  The
 * memory itself returns with the document's arena. */
void dom_node_free(dom_node *n);

/* Text content of a subtree (text and CDATA in document order). */
int dom_text_content(const dom_node *n, lab_buf *out);

/* ---- attributes ------------------------------------------------------ */

/*
 * Lookups take interned names (dom_intern(), or names read off the tree):
 * the attrs variants compare pointers, and a string that was never
 * interned in this document matches nothing.  The _str forms take any
 * strings and pay a hash probe to find their interned copies.
 */
const dom_attr *dom_attr_get(const dom_node *el, const char *ns,
			     const char *local);
const dom_attr *dom_attr_get_str(const dom_node *el, const char *ns,
				 const char *local);
/* By qualified name as written ("wsu:Id", "Id"); any string. */
const dom_attr *dom_attr_get_qname(const dom_node *el, const char *qname);
/* The value, or NULL; interned names. */
const char *dom_attr_value(const dom_node *el, const char *ns,
			   const char *local);
/* 1 when el has the attribute, else 0; interned names. */
int dom_attr_has(const dom_node *el, const char *ns, const char *local);

/* Adds or replaces (ns, local of qname); qname carries the prefix to
 * write.  Any strings; ns NULL or "" for none. */
int dom_attr_set(dom_node *el, const char *ns, const char *qname,
		 const char *value, size_t len, lab_err *err);
/* 1 when removed, 0 when there was none; any strings. */
int dom_attr_remove(dom_node *el, const char *ns, const char *local);

size_t dom_attr_count(const dom_node *el);
/* i-th attribute in document order, i < dom_attr_count(). */
const dom_attr *dom_attr_at(const dom_node *el, size_t i);

/* The element's attribute list, as the attrlist variant builds it
 * (attrlist=copy: a fresh array, LAB_ENOMEM possible; cached: a view).
 * Every list is released with dom_attr_list_release, before the
 * element's attributes next change. */
int dom_attributes(const dom_node *el, dom_attr_list *out, lab_err *err);
void dom_attr_list_release(const dom_node *el, dom_attr_list *list);

/* ---- namespaces --------------------------------------------------------- */

/* What el itself declares, in document order. */
const dom_nsdecl *dom_ns_decls(const dom_node *el, size_t *count);

/* Adds a declaration to el (replacing one for the same prefix); any
 * strings, prefix NULL or "" for the default namespace. */
int dom_ns_declare(dom_node *el, const char *prefix, const char *uri,
		   lab_err *err);

/*
 * A relative namespace URI (util/nsuri.h) declared on an element of the
 * tree n is in (from its topmost ancestor: the whole document for a node
 * in it), its prefix in *prefix (NULL: the default); NULL when there is
 * none.  Canonical XML has no form for such a document, so C14N refuses
 * it.  Walks the tree only in a document where one was ever declared.
 */
const char *dom_ns_relative(const dom_node *n, const char **prefix);

/*
 * The URI bound to prefix (interned; NULL = default namespace) in scope at el, or
 * NULL when unbound ("" undeclares the default, and reads as NULL).  The
 * `xml` prefix is always bound.
 */
const char *dom_ns_lookup(const dom_node *el, const char *prefix);

/*
 * Every binding in scope at el, nearest declaration winning, into *out
 * (allocated with lab_malloc; caller lab_free()s it).  Undeclared defaults
 * (xmlns="") are left out.  The implicit xml binding is not listed.
 */
int dom_ns_in_scope(const dom_node *el, dom_nsdecl **out, size_t *count,
		    lab_err *err);

/* ---- IDs ------------------------------------------------------------------ */

/*
 * The element whose ID attribute (wsu:Id, Id or ID without namespace) has
 * this value, or NULL.  *count receives how many elements carry it, so a
 * caller can refuse duplicates (signature wrapping relies on them).  The
 * index behind it is built at the first lookup after a change to the
 * tree, except across dom_replace_parsed, which keeps it up to date.
 */
dom_node *dom_get_by_id(dom_doc *doc, const char *id, size_t *count);

/*
 * Calls fn(arg, el, value) for every ID attribute (as dom_get_by_id reads
 * them) of the elements in the subtrees of first and its following
 * siblings up to stop (exclusive; NULL: the last), in document order,
 * until fn returns non-zero, which it returns.  Deferred content is built
 * only where it holds an attribute named like an ID, so the work follows
 * the IDs, not the size of the content.
 */
typedef int (*dom_id_fn)(void *arg, dom_node *el, const char *value);
int dom_ids_each(dom_node *first, const dom_node *stop, dom_id_fn fn,
		 void *arg);

/* ---- user data --------------------------------------------------------- */

typedef void (*dom_ud_free_fn)(void *data, void *arg);

/*
 * Attaches data to n under key; keys compare by address, like tags.  A
 * previous value under the key is released with its free function first.
 * `free_fn(data, arg)` runs when the key is overwritten, the node is
 * freed or the document is.  data NULL removes the key.
 */
int dom_user_data_set(dom_node *n, const void *key, void *data,
		      dom_ud_free_fn free_fn, void *arg, lab_err *err);
/* The data attached under key, or NULL. */
void *dom_user_data_get(const dom_node *n, const void *key);

/* ---- output ---------------------------------------------------------------- */

/*
 * Writes the tree back as it was read: the XML declaration if the input
 * had one, names, namespace declarations and attributes in document
 * order, text escaped minimally; no indentation is added or removed.
 * Appends to out; when out has a writer (util/buf.h), the writer gets
 * the bytes in pieces as they are written and all of them before a
 * LAB_OK, and a writer's failure is LAB_EIO (the caller then discards
 * what the writer got).
 */
int dom_serialize(const dom_node *n, lab_buf *out, lab_err *err);
/*
 * dom_serialize into a buffer without a writer, and where the characters
 * of the text node `mark` begin in it (*at, an offset into out->data),
 * for a caller that writes them last: out and the text then change
 * together, and must keep their length.  LAB_EUSAGE for a buffer with a
 * writer, a mark that is no text or is not written, or whose characters
 * are not written as they stand (one of them escaped); a failure leaves
 * out as it was.
 */
int dom_serialize_marked(const dom_node *n, const dom_node *mark,
			 lab_buf *out, size_t *at, lab_err *err);

/* Which choice each axis of this build took. */
typedef struct dom_axis_choice {
	const char *axis;
	const char *choice;
} dom_axis_choice;

/* The DOM's axes in a fixed order; returns how many. */
size_t dom_variant_axes(const dom_axis_choice **out);

/* The variant this library was built as, the name `domlab variant`
 * prints and the Makefile builds into build/<name>/ ("best",
 * "best+attrs=vector"), and its preset ("best"): for an application that
 * links an installed variant and reports which.  Static strings. */
const char *dom_variant_name(void);
const char *dom_variant_preset(void);

#endif
