/*
 * serialize.c - writes a tree back as XML text, as it was read.
 *
 * Escaping is the minimum that keeps the text well-formed and keeps
 * attribute values from being renormalised on the next parse (the same
 * set C14N escapes), so parse -> serialize -> parse is a fixed point and
 * a document already in that form comes back byte for byte.  A subtree is
 * written as it stands: declarations its prefixes need from ancestors are
 * not added (the pipeline uses C14N, not this, for anything it hashes).
 * Content the emit axis kept the source of is written as those bytes.
 * Into a buffer with a writer (util/buf.h) as well: nothing here reads
 * back, patches or keeps a pointer into the output across a reserve, and
 * room is reserved a piece at a time, never for a whole large value.
 * dom_serialize_marked says where one text went, for a caller that
 * writes its characters last.
 * Not for: pretty printing, encodings other than UTF-8.
 */
#include <string.h>

#include "dom/emit.h"
#include "util/cpu.h"
#include "util/escscan.h"
#include "dom/deferred.h"

/*
 * Appends without lab_buf_put's per-call NUL: while the bytes fit, one
 * compare and one copy; dom_serialize terminates the buffer once.
 */
static inline int put(lab_buf *b, const char *p, size_t n)
{
	if (n < b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		return LAB_OK;
	}
	return lab_buf_put(b, p, n);
}

#define PUT_LIT(b, lit) put((b), (lit), sizeof(lit) - 1)

/*
 * The replacements as tables: a byte's entry is 0 when it is copied, else
 * the index of its replacement.
 */
static const lab_esc_rep reps[] = {
	{"", 0}, {"&amp;", 5}, {"&lt;", 4}, {"&gt;", 4}, {"&#13;", 5},
	{"&quot;", 6}, {"&#9;", 4}, {"&#10;", 5},
};
static const unsigned char esc_text[256] = {
	['&'] = 1, ['<'] = 2, ['>'] = 3, ['\r'] = 4,
};
static const unsigned char esc_attr[256] = {
	['&'] = 1, ['<'] = 2, ['"'] = 5, ['\t'] = 6, ['\n'] = 7, ['\r'] = 4,
};

/* Values up to this long are escaped straight into reserved room (their
 * worst case); longer ones a chunk of this much input at a time, so a
 * 2 MB value does not reserve 12 MB, with one room check per chunk. */
enum { ESC_DIRECT = 4096 };

#if LAB_X86_VECTORS
#define LOAD32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STORE32(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))

/*
 * lab_esc_put_blocks (util/escscan.h) with 32-byte blocks, two a step
 * while nothing needs replacing, for CPUs with AVX2 (the caller checks):
 * the same loop, stores, backing up and room, leaving fewer than 32
 * bytes.
 */
__attribute__((target("avx2"), always_inline)) static inline char *
blocks32(char *o, const char **sp, const char *end, int attr,
	 const unsigned char *t)
{
	const char *s = *sp;

#define MARKS32(v)                                                       \
	LAB_ESC_MARKS((v), attr, _mm256_or_si256, _mm256_cmpeq_epi8,    \
		      _mm256_set1_epi8, _mm256_movemask_epi8)
	LAB_ESC_BLOCK_LOOP(32, __m256i, LOAD32, STORE32, MARKS32)
#undef MARKS32
	*sp = s;
	return o;
}

__attribute__((target("avx2"))) static char *blocks32_text(char *o,
							    const char **sp,
							    const char *end)
{
	return blocks32(o, sp, end, 0, esc_text);
}

__attribute__((target("avx2"))) static char *blocks32_attr(char *o,
							    const char **sp,
							    const char *end)
{
	return blocks32(o, sp, end, 1, esc_attr);
}
#endif

/* put_escaped_long for one set: `attr` a constant, so the block test is
 * the set's compares alone. */
static inline __attribute__((always_inline)) int escape_long(
	lab_buf *b, const char *s, size_t len, int attr)
{
	const unsigned char *t = attr ? esc_attr : esc_text;
	const char *end = s + len;
#if LAB_X86_VECTORS
	int wide = lab_cpu_has(LAB_CPU_AVX2);
#endif
	const char *stop;
	char *o;
	size_t n;

	/* The output is at least len bytes: room for all of them at once
	 * (growing a chunk at a time would copy the buffer at every
	 * doubling), then a check per chunk for what replacements add.  A
	 * writer's buffer takes a chunk at a time: its room is a window. */
	if (!lab_buf_has_writer(b) &&
	    len + LAB_ESC_ROOM(ESC_DIRECT) >= b->cap - b->len &&
	    lab_buf_reserve(b, len + LAB_ESC_ROOM(ESC_DIRECT)) != LAB_OK)
		return LAB_ENOMEM;
	/* Each chunk leaves its last few bytes (under 16) to the next. */
	while (end - s >= 16) {
		n = (size_t)(end - s) < ESC_DIRECT ? (size_t)(end - s)
						   : ESC_DIRECT;
		if (LAB_ESC_ROOM(n) >= b->cap - b->len &&
		    lab_buf_reserve(b, LAB_ESC_ROOM(n)) != LAB_OK)
			return LAB_ENOMEM;
		o = b->data + b->len;
		stop = s + n;
#if LAB_X86_VECTORS
		if (wide)
			o = attr ? blocks32_attr(o, &s, stop)
				 : blocks32_text(o, &s, stop);
#endif
		o = lab_esc_put_blocks(o, &s, stop, attr, t, reps);
		b->len = (size_t)(o - b->data);
	}
	n = (size_t)(end - s);
	if (LAB_ESC_ROOM(n) >= b->cap - b->len &&
	    lab_buf_reserve(b, LAB_ESC_ROOM(n)) != LAB_OK)
		return LAB_ENOMEM;
	b->len = (size_t)(lab_esc_put(b->data + b->len, s, n, attr, t, reps) -
			  b->data);
	return LAB_OK;
}

static int put_escaped_long(lab_buf *b, const char *s, size_t len, int attr)
{
	return attr ? escape_long(b, s, len, 1) : escape_long(b, s, len, 0);
}

/* Appends s, replacing the bytes that need it; `attr` picks the set. */
static inline __attribute__((always_inline)) int put_escaped(
	lab_buf *b, const char *s, size_t len, int attr)
{
	if (len > ESC_DIRECT)
		return put_escaped_long(b, s, len, attr);
	/* Strictly less: the terminator's byte stays free. */
	if (LAB_ESC_ROOM(len) >= b->cap - b->len &&
	    lab_buf_reserve(b, LAB_ESC_ROOM(len)) != LAB_OK)
		return LAB_ENOMEM;
	b->len = (size_t)(lab_esc_put(b->data + b->len, s, len, attr,
				      attr ? esc_attr : esc_text, reps) -
			  b->data);
	return LAB_OK;
}

/*
 * A name with `lead` before it and `tail` after it (each a few bytes, or
 * none), with one room check while they fit.
 */
static inline __attribute__((always_inline)) int put_name3(
	lab_buf *b, const char *lead, size_t nlead, const char *prefix,
	const char *local, const char *tail, size_t ntail)
{
	size_t pl = prefix != NULL ? dom_names_len(prefix) : 0;
	size_t ll = dom_names_len(local);

	if (nlead + pl + 1 + ll + ntail < b->cap - b->len) {
		char *o = lab_put_qname(b->data + b->len, lead, nlead,
					prefix, pl, local, ll, tail,
					ntail);

		b->len = (size_t)(o - b->data);
		return LAB_OK;
	}
	if (put(b, lead, nlead) != LAB_OK ||
	    (prefix != NULL &&
	     (put(b, prefix, pl) != LAB_OK || PUT_LIT(b, ":") != LAB_OK)) ||
	    put(b, local, ll) != LAB_OK)
		return LAB_ENOMEM;
	return put(b, tail, ntail);
}

/* el's start tag; `open`: it has content, whether built or not. */
static int start_tag(lab_buf *b, const dom_element *el, int open)
{
	uint32_t i;

	if (put_name3(b, "<", 1, el->name->prefix, el->name->local,
		      "", 0) != LAB_OK)
		return LAB_ENOMEM;
	for (i = 0; i < el->base.len; i++) {
		const dom_nsdecl *d = &el->nsdecls[i];

		if ((d->prefix ? PUT_LIT(b, " xmlns:") : PUT_LIT(b, " xmlns")) ||
		    (d->prefix != NULL &&
		     put(b, d->prefix, dom_names_len(d->prefix))) ||
		    put(b, "=\"", 2) ||
		    put_escaped(b, d->uri, dom_names_len(d->uri), 1) ||
		    PUT_LIT(b, "\""))
			return LAB_ENOMEM;
	}
	for (i = 0; i < el->attrs.count; i++) {
		const dom_attr *a = &el->attrs.items[i];
		const char *p = dom_attr_prefix(a), *l = dom_attr_local(a);
		size_t pl = p != NULL ? dom_names_len(p) : 0;
		size_t ll = dom_names_len(l);

		/* Usually the whole attribute fits: one room check (strictly
		 * less, for the terminator). */
		if (a->len <= ESC_DIRECT &&
		    LAB_ESC_ATTR_ROOM(pl, ll, a->len) < b->cap - b->len) {
			char *o = lab_esc_put_attr(b->data + b->len, p, pl, l,
						   ll, a->value, a->len,
						   esc_attr, reps);

			b->len = (size_t)(o - b->data);
			continue;
		}
		if (put_name3(b, " ", 1, p, l, "=\"", 2) ||
		    put_escaped(b, a->value, a->len, 1) || PUT_LIT(b, "\""))
			return LAB_ENOMEM;
	}
	return open ? PUT_LIT(b, ">") : PUT_LIT(b, "/>");
}

static int leaf(lab_buf *b, const dom_node *n)
{
	const dom_chars *c = dom__chars(n);

	switch (n->type) {
	case DOM_TEXT:
		/* The DOM's own base64 (dom_create_text_b64): nothing to
		 * escape, and a large one goes to a writer uncopied. */
		if (n->flags & DOM__PLAIN)
			return put(b, c->value, n->len);
		return put_escaped(b, c->value, n->len, 0);
	case DOM_CDATA:
		return PUT_LIT(b, "<![CDATA[") ||
		       put(b, c->value, n->len) ||
		       PUT_LIT(b, "]]>");
	case DOM_COMMENT:
		return PUT_LIT(b, "<!--") ||
		       put(b, c->value, n->len) ||
		       PUT_LIT(b, "-->");
	case DOM_PI:
		return PUT_LIT(b, "<?") ||
		       put(b, c->target, dom_names_len(c->target)) ||
		       (n->len > 0 && PUT_LIT(b, " ")) ||
		       put(b, c->value, n->len) || PUT_LIT(b, "?>");
	default:
		return LAB_OK;
	}
}

static inline int end_tag(lab_buf *b, const dom_node *n)
{
	const dom_element *e = dom__el(n);

	return put_name3(b, "</", 2, e->name->prefix, e->name->local, ">", 1);
}

/* What a serialization carries along: what the emit axis kept (el's
 * content is bytes[0..len)), and the text whose characters the caller
 * asked to find in the output (mark; NULL: none), written at `at`. */
typedef struct walk {
	const dom_node *el;
	const char *bytes;
	size_t len;
	const dom_node *mark;
	size_t at;
	int marked; /* mark written, each character as it stands */
} walk;

/* A leaf, and where it went if it is the mark. */
static int leaf_at(lab_buf *b, const dom_node *n, walk *w)
{
	size_t from = b->len;
	int rc = leaf(b, n);

	if (n == w->mark && rc == LAB_OK) {
		w->at = from;
		w->marked = b->len - from == n->len;
	}
	return rc;
}

/* An element whose content is still bytes, and they may stand for it
 * (dom/deferred.h): written whole, without building it.  1 written, 0
 * not, or LAB_ENOMEM. */
static int deferred(lab_buf *b, const dom_node *n)
{
	size_t len;
	const char *src = (n->flags & DOM__DEFERRED)
				  ? dom__deferred_source(n, &len) : NULL;

	if (src == NULL)
		return 0;
	if (start_tag(b, dom__el(n), 1) != LAB_OK || put(b, src, len) != LAB_OK ||
	    end_tag(b, n) != LAB_OK)
		return LAB_ENOMEM;
	return 1;
}

/* The subtree at top, iteratively: end tags are written on the way up. */
static int subtree(lab_buf *b, const dom_node *top, walk *k)
{
	const dom_node *n = top;

	for (;;) {
		int rc = n->type == DOM_ELEMENT ? deferred(b, n) : 0;

		if (rc == LAB_ENOMEM)
			return rc;
		if (rc == 1) {
			/* written: on to the next sibling */
		} else if (n->type == DOM_ELEMENT) {
			dom__need(n);
			if (start_tag(b, dom__el(n), n->first != NULL) != LAB_OK)
				return LAB_ENOMEM;
			if (n->first != NULL && n != k->el) {
				n = n->first;
				continue;
			}
			if (n->first != NULL &&
			    (put(b, k->bytes, k->len) != LAB_OK ||
			     end_tag(b, n) != LAB_OK))
				return LAB_ENOMEM;
		} else if (leaf_at(b, n, k) != LAB_OK) {
			return LAB_ENOMEM;
		}
		/* Close every element we finish on the way to a next sibling. */
		while (n != top && n->next == NULL) {
			n = n->parent;
			if (end_tag(b, n) != LAB_OK)
				return LAB_ENOMEM;
		}
		if (n == top)
			return LAB_OK;
		n = n->next;
	}
}

static int document(lab_buf *b, const dom_doc *doc, walk *k)
{
	const dom_decl *d = &doc->decl;
	const dom_node *n;

	if (d->version != NULL) {
		if (lab_buf_puts(b, "<?xml version=\"") ||
		    lab_buf_puts(b, d->version) || PUT_LIT(b, "\"") ||
		    (d->encoding && lab_buf_puts(b, " encoding=\"UTF-8\"")) ||
		    (d->standalone >= 0 &&
		     lab_buf_puts(b, d->standalone ? " standalone=\"yes\""
						   : " standalone=\"no\"")) ||
		    lab_buf_puts(b, "?>\n"))
			return LAB_ENOMEM;
	}
	/* Top-level nodes one per line, as xmllint writes them: the text
	 * between them is not part of the document. */
	for (n = doc->node.first; n != NULL; n = n->next)
		if (subtree(b, n, k) != LAB_OK || PUT_LIT(b, "\n") != LAB_OK)
			return LAB_ENOMEM;
	return LAB_OK;
}

/* dom_serialize, finding w->mark on the way. */
static int serialize(const dom_node *n, lab_buf *out, walk *w, lab_err *err)
{
	const dom_doc *doc = dom__doc(n);
	int rc;

	w->bytes = dom__emit_bytes(doc, &w->el, &w->len);
	rc = n->type == DOM_DOCUMENT ? document(out, doc, w)
				     : subtree(out, n, w);

	/* put() leaves room for the terminator but does not write it. */
	if (out->data != NULL)
		out->data[out->len] = '\0';
	if (rc == LAB_OK && dom__deferred_failed(doc))
		rc = LAB_ENOMEM;
	if (rc == LAB_OK)
		rc = lab_buf_flush(out);
	/* The writes say LAB_ENOMEM for any failure; the buffer knows. */
	if (rc != LAB_OK && lab_buf_error(out) != LAB_OK)
		return lab_fail(err, lab_buf_error(out),
				"the output's writer failed while serializing");
	if (rc != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory while serializing");
	return LAB_OK;
}

int dom_serialize(const dom_node *n, lab_buf *out, lab_err *err)
{
	walk w = {0};

	return serialize(n, out, &w, err);
}

int dom_serialize_marked(const dom_node *n, const dom_node *mark,
			 lab_buf *out, size_t *at, lab_err *err)
{
	walk w = {0};
	size_t from = out->len;
	int rc = lab_buf_need_plain(out, "dom_serialize_marked", err);

	w.mark = mark;
	if (rc == LAB_OK && (mark == NULL || mark->type != DOM_TEXT))
		rc = lab_fail(err, LAB_EUSAGE,
			      "dom_serialize_marked marks a text node");
	if (rc == LAB_OK)
		rc = serialize(n, out, &w, err);
	if (rc == LAB_OK && !w.marked)
		rc = lab_fail(err, LAB_EUSAGE,
			      "the marked text was not written as it stands");
	/* Nothing of a refused output stays. */
	if (rc != LAB_OK && !lab_buf_has_writer(out))
		lab_buf_truncate(out, from);
	*at = w.at;
	return rc;
}
