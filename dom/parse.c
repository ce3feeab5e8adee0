/*
 * parse.c - the public entry points of parsing: whole documents and
 * fragments in context.  The work is the parser variant's (dom/parser.h);
 * this file owns the input limit, the shape of the result and cleanup.
 */
#include <string.h>

#include "dom/build.h"
#include "dom/emit.h"
#include "dom/feed.h"
#include "dom/parser.h"
#include "dom/internal.h"

/* The limits with every zero field replaced by its default. */
static dom_limits dom__limits(const dom_limits *lim)
{
	dom_limits l = {0};

	if (lim != NULL)
		l = *lim;
	if (l.max_input == 0)
		l.max_input = DOM_DEFAULT_MAX_INPUT;
	if (l.max_depth == 0 || l.max_depth > 256)
		l.max_depth = 256;
	if (l.max_attrs == 0)
		l.max_attrs = 10000;
	if (l.max_ns == 0)
		l.max_ns = 256;
	if (l.max_name == 0)
		l.max_name = 50000;
	if (l.max_text == 0)
		l.max_text = (size_t)1 << 30;
	return l;
}

static int parse_whole(const char *buf, size_t len, const dom_limits *lim,
		       int signing, dom_feed *feed, dom_doc **out,
		       lab_err *err)
{
	dom_limits l = dom__limits(lim);
	dom_doc *doc = NULL;
	dom_canon own;
	int rc;

	*out = NULL;
	if (len > l.max_input)
		return lab_fail(err, LAB_EMALFORMED,
				"input is %zu bytes, over the limit of %zu",
				len, l.max_input);
	if (len == 0)
		return lab_fail_at(err, LAB_EMALFORMED, 1, 1, "document is empty");
	rc = dom__doc_new(len, &doc, err);
	if (rc != LAB_OK)
		return rc;
	doc->feed = feed;
	rc = dom__parse_tree(doc, &doc->node, buf, len, &l,
			     dom__emit_question(&own),
			     dom__build_defer(signing), err);
	doc->feed = NULL;
	if (rc == LAB_OK && dom_doc_element(doc) == NULL)
		rc = lab_fail(err, LAB_EMALFORMED, "document has no element");
	if (rc != LAB_OK) {
		dom_doc_free(doc);
		return rc;
	}
	*out = doc;
	return LAB_OK;
}

/* parse_whole, the feed closed however it ends. */
static int parse_doc(const char *buf, size_t len, const dom_limits *lim,
		     int signing, dom_feed *feed, dom_doc **out, lab_err *err)
{
	int rc = parse_whole(buf, len, lim, signing, feed, out, err);

	if (feed != NULL)
		dom__feed_close(feed, rc == LAB_OK);
	return rc;
}

void dom_init(void)
{
	dom__parser_init();
}

int dom_parse(const char *buf, size_t len, const dom_limits *lim,
	      dom_doc **out, lab_err *err)
{
	return parse_doc(buf, len, lim, 0, NULL, out, err);
}

int dom_parse_signing(const char *buf, size_t len, const dom_limits *lim,
		      dom_doc **out, lab_err *err)
{
	return parse_doc(buf, len, lim, DOM__DEFER_SIGNING, NULL, out, err);
}

int dom_parse_feeds(void)
{
	dom_canon q;

	return (dom__build_defer(DOM__DEFER_SIGNING) & DOM__DEFER_SIGNING) != 0 &&
	       dom__emit_question(&q) != NULL;
}

int dom_parse_signing_fed(const char *buf, size_t len, const dom_limits *lim,
			  dom_feed *feed, dom_doc **out, lab_err *err)
{
	return parse_doc(buf, len, lim, DOM__DEFER_SIGNING, feed, out, err);
}

/* "<dom-fragment xmlns:a="..." ...>": the bindings in scope at parent. */
static int wrapper_open(const dom_node *parent, lab_buf *b, lab_err *err)
{
	dom_nsdecl *scope = NULL;
	size_t count = 0, i;
	int rc;

	if (parent->type == DOM_ELEMENT) {
		rc = dom_ns_in_scope(parent, &scope, &count, err);
		if (rc != LAB_OK)
			return rc;
	}
	rc = lab_buf_puts(b, "<dom-fragment");
	for (i = 0; i < count && rc == LAB_OK; i++) {
		const char *p = scope[i].prefix, *u = scope[i].uri;

		rc = lab_buf_printf(b, p ? " xmlns:%s=\"" : " xmlns%s=\"",
				    p ? p : "");
		/* URIs may hold the characters attribute values escape; the
		 * runs between them go in whole. */
		while (*u != '\0' && rc == LAB_OK) {
			size_t run = strcspn(u, "\"&<");

			rc = lab_buf_put(b, u, run);
			u += run;
			if (*u == '\0' || rc != LAB_OK)
				break;
			rc = lab_buf_puts(b, *u == '"' ? "&quot;"
					  : *u == '&' ? "&amp;" : "&lt;");
			u++;
		}
		if (rc == LAB_OK)
			rc = lab_buf_putc(b, '"');
	}
	if (rc == LAB_OK)
		rc = lab_buf_putc(b, '>');
	lab_free(scope);
	if (rc != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

static const char wrapper_close[] = "</dom-fragment>";

static int check_into(const dom_node *parent, const dom_node *ref,
		      size_t len, const dom_limits *l, lab_err *err)
{
	if (parent->type != DOM_ELEMENT && parent->type != DOM_DOCUMENT)
		return lab_fail(err, LAB_EUSAGE, "node cannot have children");
	if (ref != NULL && ref->parent != parent)
		return lab_fail(err, LAB_EUSAGE,
				"reference node is not a child of the parent");
	if (len > l->max_input)
		return lab_fail(err, LAB_EMALFORMED,
				"input is %zu bytes, over the limit of %zu",
				len, l->max_input);
	return LAB_OK;
}

/* text[0..len): the wrapper's start tag (open_len bytes), the fragment,
 * the end tag; what it holds goes before ref.  canon and defer:
 * dom/parser.h. */
static int parse_wrapped(dom_node *parent, dom_node *ref, const char *text,
			 size_t len, size_t open_len, const dom_limits *l,
			 dom_canon *canon, int defer, lab_err *err)
{
	dom_doc *doc = dom__doc(parent);
	const dom_name *name;
	dom_element *holder;
	dom_node *wrapper, *c;
	int rc;

	/* A detached holder: if the parse fails, nothing reached parent. */
	name = dom__name(doc, NULL, NULL, doc->empty);
	holder = name != NULL ? dom__new_element(doc, name) : NULL;
	if (holder == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = dom__parse_tree(doc, &holder->base, text, len, l, canon, defer,
			     err);
	if (rc != LAB_OK) {
		/* Positions on the first line count from the wrapper's tag. */
		if (err != NULL && err->line == 1 && err->col > open_len)
			err->col -= open_len;
		dom_node_free(&holder->base);
		return rc;
	}
	wrapper = holder->base.first;
	while ((c = wrapper->first) != NULL) {
		rc = dom_insert_before(parent, c, ref, err);
		if (rc != LAB_OK)
			return rc;
	}
	return LAB_OK;
}

/* dom_parse_into, with the question `canon` asks (or NULL), deferring
 * content or not. */
static int parse_copy(dom_node *parent, dom_node *ref, const char *buf,
		      size_t len, const dom_limits *lim, dom_canon *canon,
		      int defer, lab_err *err)
{
	dom_limits l = dom__limits(lim);
	lab_buf text = LAB_BUF_INIT;
	size_t open_len;
	int rc = check_into(parent, ref, len, &l, err);

	if (rc == LAB_OK)
		rc = wrapper_open(parent, &text, err);
	if (rc != LAB_OK)
		goto out;
	open_len = text.len;
	if (lab_buf_put(&text, buf, len) != LAB_OK ||
	    lab_buf_puts(&text, wrapper_close) != LAB_OK) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	rc = parse_wrapped(parent, ref, text.data, text.len, open_len, &l,
			   canon, defer, err);
out:
	/* The copy may be decrypted plaintext (replace's fallback). */
	dom__emit_wipe(&text);
	return rc;
}

int dom_parse_into(dom_node *parent, dom_node *ref, const char *buf,
		   size_t len, const dom_limits *lim, lab_err *err)
{
	return parse_copy(parent, ref, buf, len, lim, NULL, 0, err);
}

/* Adds prefix's binding at el to r (*n so far) if it is rendered. */
static void rendered_by(const dom_node *el, const char *prefix,
			dom_nsdecl *r, size_t *n)
{
	const char *uri;
	size_t i;

	if (prefix != NULL && prefix == dom__doc(el)->xml_prefix)
		return;
	for (i = 0; i < *n; i++)
		if (r[i].prefix == prefix)
			return;
	uri = dom_ns_lookup(el, prefix);
	if (uri == NULL || uri[0] == '\0')
		return;
	r[*n].prefix = prefix;
	r[*n].uri = uri;
	(*n)++;
}

/*
 * What exclusive C14N without PrefixList renders on el's start tag when
 * el is the apex (wss/c14n.c): each prefix el visibly utilizes -- its
 * own, its attributes' -- bound to what is in scope.  Into *out
 * (the caller frees it).
 */
static int apex_rendered(const dom_node *el, dom_nsdecl **out, size_t *n,
			 lab_err *err)
{
	size_t count = dom_attr_count(el), i;
	dom_nsdecl *r = lab_malloc((count + 1) * sizeof *r);

	*out = r;
	*n = 0;
	if (r == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rendered_by(el, dom_prefix(el), r, n);
	for (i = 0; i < count; i++) {
		const char *p = dom_attr_prefix(dom_attr_at(el, i));

		if (p != NULL)
			rendered_by(el, p, r, n);
	}
	return LAB_OK;
}

/* The watch told its bytes are the document's again (dom/dom.h): once,
 * then *watch is NULL. */
static void release(const dom_parse_watch **watch)
{
	if (*watch != NULL)
		(*watch)->done((*watch)->ctx);
	*watch = NULL;
}

/*
 * Whether the fragment text[at..at+len) can be parsed where it lies, with
 * the wrapper's start tag (open bytes) in front and its end tag after:
 * an owned buffer grows at its end; the document's own bytes (cap 0)
 * cannot, so the fragment moves forward for the start tag when they hold
 * both (the watch released first), and *at follows it.  0: it must be
 * copied.
 */
static int in_place(lab_buf *text, size_t open, size_t *at, size_t len,
		    const dom_parse_watch **watch)
{
	size_t close = sizeof wrapper_close;	/* with its NUL */

	if (text->cap != 0)
		return open <= *at;
	if (open > *at && open + len + close <= text->len) {
		release(watch);
		memmove(text->data + open, text->data + *at, len);
		*at = open;
	}
	if (open > *at || *at + len + close > text->len)
		return 0;
	memcpy(text->data + *at + len, wrapper_close, close);
	return 1;
}

/* The parse replace() runs, the watch (if still there) told before it
 * and released after: the bytes text[at..at+len) are only read. */
static int parse_watched(dom_node *parent, dom_node *old, lab_buf *text,
			 size_t at, size_t len, size_t open_len, int inside,
			 const dom_limits *l, dom_canon *ask,
			 const dom_parse_watch **watch, lab_err *err)
{
	int rc;

	if (*watch != NULL)
		(*watch)->parsing((*watch)->ctx, text->data + at, len);
	if (!inside)
		rc = parse_copy(parent, old, text->data + at, len, l, ask,
				dom__build_defer(0), err);
	else
		rc = parse_wrapped(parent, old, text->data + at - open_len,
				   open_len + len + sizeof wrapper_close - 1,
				   open_len, l, ask, dom__build_defer(0), err);
	release(watch);
	return rc;
}

/* dom_replace_parsed and dom_replace_parsed_held: text owned, or the
 * document's own bytes (cap 0, len the bytes held). */
static int replace(dom_node *old, lab_buf *text, size_t at, size_t len,
		   const dom_limits *lim, const dom_parse_watch *watch,
		   lab_err *err)
{
	dom_limits l = dom__limits(lim);
	dom_node *parent = old->parent, *before, *after = old->next;
	lab_buf open = LAB_BUF_INIT;
	dom_canon canon, *ask = NULL;
	dom_nsdecl *rendered = NULL;
	uint64_t gen = dom__doc(old)->gen;
	int alone, inside, rc;

	if (parent == NULL) {
		rc = lab_fail(err, LAB_EUSAGE, "node to replace is detached");
		goto out;
	}
	if (at > text->len || len > text->len - at) {
		rc = lab_fail(err, LAB_EUSAGE, "fragment is not in the buffer");
		goto out;
	}
	memset(&canon, 0, sizeof canon);
	alone = parent->first == old && old->next == NULL;
	before = parent->first == old ? NULL : old->prev;
	rc = check_into(parent, old, len, &l, err);
	if (rc == LAB_OK)
		rc = wrapper_open(parent, &open, err);
	/* Whether the bytes are canonical matters only when they are kept. */
	if (rc == LAB_OK && alone && parent->type == DOM_ELEMENT) {
		rc = apex_rendered(parent, &rendered, &canon.nrendered, err);
		canon.rendered = rendered;
		ask = &canon;
	}
	if (rc != LAB_OK)
		goto out;
	inside = in_place(text, open.len, &at, len, &watch);
	/* Of the document's own bytes, only those up to the fragment's end
	 * and the wrapper's end tag were plaintext (what follows is the
	 * rest of their old value): wiped when let go, the rest left. */
	if (text->cap == 0 && at + len + sizeof wrapper_close < text->len)
		text->len = at + len + sizeof wrapper_close;
	if (inside) {
		if (text->cap != 0) {
			text->len = at + len;
			if (lab_buf_puts(text, wrapper_close) != LAB_OK) {
				rc = lab_fail(err, LAB_ENOMEM, "out of memory");
				goto out;
			}
		}
		memcpy(text->data + at - open.len, open.data, open.len);
	}
	rc = parse_watched(parent, old, text, at, len, open.len, inside,
			   &l, ask, &watch, err);
	if (rc != LAB_OK)
		goto out;
	dom_node_free(old);
	dom__ids_replaced(dom__doc(parent), gen, old,
			  before != NULL ? before->next : parent->first, after);
	/* Kept only when the bytes are all of the parent's content. */
	if (alone && parent->first != NULL)
		dom__emit_keep(dom__doc(parent), parent, text, at, len, 1,
			       ask);
out:
	release(&watch);
	dom__emit_wipe(text);
	lab_buf_free(&open);
	lab_free(rendered);
	return rc;
}

int dom_replace_parsed(dom_node *old, lab_buf *text, size_t at, size_t len,
		       const dom_limits *lim, lab_err *err)
{
	int rc = lab_buf_need_plain(text, "dom_replace_parsed", err);

	if (rc == LAB_OK)
		return replace(old, text, at, len, lim, NULL, err);
	lab_buf_free(text);
	return rc;
}

int dom_replace_parsed_held(dom_node *old, char *text, size_t cap, size_t at,
			    size_t len, const dom_limits *lim,
			    const dom_parse_watch *watch, lab_err *err)
{
	lab_buf held = {.data = text, .len = cap};

	return replace(old, &held, at, len, lim, watch, err);
}

uint64_t dom_doc_generation(const dom_doc *doc)
{
	return doc->gen;
}

const char *dom_canonical_content(const dom_node *el, size_t *len,
				  const dom_canon_dep **deps, size_t *ndeps)
{
	return dom__emit_canonical(dom__doc(el), el, len, deps, ndeps);
}

const dom_canon_dep *dom_canonical_content_peek(const dom_node *el,
					       size_t *len, size_t *ndeps)
{
	return dom__emit_canonical_peek(dom__doc(el), el, len, ndeps);
}

int dom_canonical_content_write(const dom_node *el, size_t window,
				lab_buf_write_fn write, void *ctx,
				size_t *ndeps)
{
	return dom__emit_canonical_write(dom__doc(el), el, window, write, ctx,
					 ndeps);
}
