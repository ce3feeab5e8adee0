/*
 * c14n.c - Exclusive XML Canonicalization 1.0 and Canonical XML 1.0 of a
 * document or a subtree, through dom.h.
 *
 * Two stacks carry the state down the tree: the namespace bindings in
 * scope, and the bindings already rendered by output ancestors.  Whether
 * to render a declaration on an element is then one rule for both modes:
 * render a candidate prefix when the value in scope differs from the value
 * rendered above.  The modes differ only in the candidates: inclusive
 * takes what the element declares (at the apex, everything in scope);
 * exclusive takes the prefixes the element visibly utilizes plus the
 * PrefixList.  Names are interned, so "differs" is a pointer compare.
 *
 * The walk is iterative (a hand-built tree has no depth bound) and output
 * is buffered before it reaches the sink, so a digest sees large updates;
 * a run longer than the buffer goes to the sink whole.  Between a tee's
 * apex tags the buffer is, where it has room, the free end of the content
 * buffer itself, so the content is mostly written once and digested from
 * where it stays.  A value up to a few KB is escaped straight into the
 * buffer under one room check for its worst case (util/escscan.h);
 * longer ones in runs.  Siblings of one kind repeat themselves, so the
 * walk remembers the last attribute order it sorted and, per prefix, its
 * namespace answers while the stacks stand.
 */
#include "wss/c14n.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/escscan.h"

enum { OUT_BUF = 16384 };

typedef struct ns_stack {
	dom_nsdecl *items;
	size_t len, cap;
	unsigned long ver; /* changes with every push and every pop */
} ns_stack;

/* A prefix's binding in scope and the one rendered above, as found at
 * the two stacks' versions sv and rv. */
typedef struct ns_memo {
	const char *prefix;
	unsigned long sv, rv;
	const char *in_scope, *above;
} ns_memo;

/* Slot 0 is the default namespace's (asked about on every unprefixed
 * element); prefixes hash to the others. */
enum { NS_MEMO = 1 + 16 };

typedef struct frame {
	size_t scope_len;    /* scope.len before the element's declarations */
	size_t rendered_len; /* rendered.len before what it rendered */
	/* The element's name and its parts' lengths, for its end tag. */
	const char *prefix, *local;
	size_t pl, ll;
} frame;

/* One attribute of the last sorted list: its name and where it was. */
typedef struct order_item {
	const dom_name *name;
	size_t at;
} order_item;

typedef struct c14n {
	const wss_c14n_opts *o;
	const dom_node *top;
	wss_sink_fn sink;
	void *ctx;
	lab_err *err;
	int rc;                  /* first failure; output stops there */
	size_t len;              /* bytes in buf */
	ns_stack scope;
	ns_stack rendered;
	frame *frames;
	size_t nframes, cap_frames;
	const char **listed;     /* PrefixList, interned; NULL = #default */
	size_t nlisted;
	dom_nsdecl *cand;            /* scratch: candidate declarations */
	const dom_nsdecl **ns_out;   /* scratch: declarations to render */
	const dom_attr **attr_out;   /* scratch: attributes to render */
	size_t cap_cand, cap_ns, cap_attr;
	order_item *order;           /* the last sorted attribute list */
	size_t norder, cap_order;
	const char *xml_prefix;
	const char *xml_ns;
	/* Siblings without declarations ask the same two questions about
	 * the same prefixes: their answers, kept while the stacks stand. */
	ns_memo memo[NS_MEMO];
	lab_buf *content;        /* wss_c14n_tee's copy of top's content */
	int capturing;           /* between top's start and end tags */
	int pieces;              /* wss_c14n_pieces: kept bytes in pieces */
	/* Where output gathers, OUT_BUF bytes of room: buf, or while
	 * capturing the content buffer past its len. */
	char *out;
	/* The most of buf held at once: wiped at the end, as canonical
	 * forms of decrypted content are plaintext. */
	size_t held;
	char buf[OUT_BUF];
} c14n;

static void nomem(c14n *c)
{
	if (c->rc == LAB_OK)
		c->rc = lab_fail(c->err, LAB_ENOMEM, "out of memory in c14n");
}

/* Stops gathering output in the content buffer. */
static void stop_capture(c14n *c)
{
	c->capturing = 0;
	c->out = c->buf;
}

/*
 * While capturing, output gathers in the content buffer when it has
 * OUT_BUF bytes to spare, else in buf and is copied at the flush: the
 * content then grows only as its bytes need (as lab_buf_put grows it,
 * doubling), and the copies are only of the stretch before each growth.
 */
static void gather(c14n *c)
{
	const lab_buf *b = c->content;

	c->out = !lab_buf_has_writer(b) && b->cap - b->len > OUT_BUF
			 ? b->data + b->len
			 : c->buf;
}

/* The sink; while capturing, the bytes also join the content: in place
 * when they were gathered there, else copied. */
static void emit(c14n *c, const char *p, size_t n)
{
	lab_buf *b = c->content;
	int r = c->sink(c->ctx, p, n);

	if (r != 0) {
		c->rc = lab_fail(c->err, r, "c14n output was refused");
		return;
	}
	if (!c->capturing)
		return;
	if (p == c->out && p != c->buf) {
		b->len += n;
		b->data[b->len] = '\0';
	} else if (lab_buf_put(b, p, n) != LAB_OK) {
		if (lab_buf_error(b) != LAB_OK)
			c->rc = lab_fail(c->err, LAB_EIO,
					 "the content's writer failed");
		nomem(c);
		return;
	}
	gather(c);
}

static void flush(c14n *c)
{
	if (c->rc != LAB_OK || c->len == 0)
		return;
	if (c->len > c->held)
		c->held = c->len;
	emit(c, c->out, c->len);
	c->len = 0;
}

/* Beyond what fits the buffer: whole buffers straight to the sink. */
static void put_slow(c14n *c, const char *p, size_t n)
{
	if (n >= OUT_BUF) {
		flush(c);
		if (c->rc == LAB_OK)
			emit(c, p, n);
		return;
	}
	while (n > 0 && c->rc == LAB_OK) {
		size_t room = OUT_BUF - c->len, k = n < room ? n : room;

		memcpy(c->out + c->len, p, k);
		c->len += k;
		p += k;
		n -= k;
		if (c->len == OUT_BUF)
			flush(c);
	}
}

/* Most writes fit: one compare and one copy. */
static inline void put(c14n *c, const char *p, size_t n)
{
	if (n <= OUT_BUF - c->len) {
		memcpy(c->out + c->len, p, n);
		c->len += n;
		return;
	}
	put_slow(c, p, n);
}

/*
 * C14N's replacements (section 2.3), as tables: the byte's entry is 0
 * when it is copied, else the index of its replacement.
 */
static const lab_esc_rep reps[] = {
	{"", 0}, {"&amp;", 5}, {"&lt;", 4}, {"&gt;", 4}, {"&#xD;", 5},
	{"&quot;", 6}, {"&#x9;", 5}, {"&#xA;", 5},
};
static const unsigned char esc_text[256] = {
	['&'] = 1, ['<'] = 2, ['>'] = 3, ['\r'] = 4,
};
static const unsigned char esc_attr[256] = {
	['&'] = 1, ['<'] = 2, ['"'] = 5, ['\t'] = 6, ['\n'] = 7, ['\r'] = 4,
};

/* Values up to this long are escaped straight into the buffer (flushed
 * first when their worst case does not fit); longer ones in runs. */
enum { ESC_DIRECT = (OUT_BUF - 8) / 6 };

/* A long value: unescaped runs through put, which hands runs longer
 * than the buffer to the sink whole. */
static void put_escaped_long(c14n *c, const char *s, size_t n, int attr)
{
	const unsigned char *t = attr ? esc_attr : esc_text;
	const char *end = s + n;

	while (s < end) {
		const char *run = s;

		s = lab_esc_scan(s, end, attr, t);
		put(c, run, (size_t)(s - run));
		if (s == end)
			break;
		put(c, reps[t[(unsigned char)*s]].s,
		    reps[t[(unsigned char)*s]].n);
		s++;
	}
}

static inline __attribute__((always_inline)) void put_escaped(
	c14n *c, const char *s, size_t n, int attr)
{
	if (n > ESC_DIRECT) {
		put_escaped_long(c, s, n, attr);
		return;
	}
	if (LAB_ESC_ROOM(n) > OUT_BUF - c->len) {
		flush(c);
		if (c->rc != LAB_OK)
			return;
	}
	c->len = (size_t)(lab_esc_put(c->out + c->len, s, n, attr,
				      attr ? esc_attr : esc_text, reps) -
			  c->out);
}

/* A name of known lengths (pl is 0 without a prefix) with `lead` before
 * it and `tail` after it (each a few bytes, or none): one room check for
 * the common case. */
static inline __attribute__((always_inline)) void put_qname(
	c14n *c, const char *lead, size_t nlead, const char *prefix,
	size_t pl, const char *local, size_t ll, const char *tail,
	size_t ntail)
{
	if (nlead + pl + 1 + ll + ntail <= OUT_BUF - c->len) {
		char *o = lab_put_qname(c->out + c->len, lead, nlead,
					prefix, pl, local, ll, tail,
					ntail);

		c->len = (size_t)(o - c->out);
		return;
	}
	put(c, lead, nlead);
	if (prefix != NULL) {
		put(c, prefix, pl);
		put(c, ":", 1);
	}
	put(c, local, ll);
	put(c, tail, ntail);
}

/* The same for interned names, whose length is stored with them. */
static inline __attribute__((always_inline)) void put_name3(
	c14n *c, const char *lead, size_t nlead, const char *prefix,
	const char *local, const char *tail, size_t ntail)
{
	put_qname(c, lead, nlead, prefix,
		  prefix != NULL ? dom_names_len(prefix) : 0, local,
		  dom_names_len(local), tail, ntail);
}

static void put_name(c14n *c, const char *prefix, const char *local)
{
	put_name3(c, "", 0, prefix, local, "", 0);
}

/* ---- namespace stacks ---- */

static int push(ns_stack *s, const char *prefix, const char *uri)
{
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		dom_nsdecl *p = lab_realloc(s->items, cap * sizeof *p);

		if (p == NULL)
			return -1;
		s->items = p;
		s->cap = cap;
	}
	s->items[s->len].prefix = prefix;
	s->items[s->len].uri = uri;
	s->len++;
	s->ver++;
	return 0;
}

/* Pushes a binding in scope. */
static int bind_ns(c14n *c, const char *prefix, const char *uri)
{
	if (push(&c->scope, prefix, uri) != 0)
		return lab_fail(c->err, LAB_ENOMEM, "out of memory in c14n");
	return LAB_OK;
}

/* One object for "no namespace", so unbound compares equal to unbound. */
static const char unbound[] = "";

/* The nearest binding of prefix, `unbound` for none: an absent default
 * and xmlns="" mean the same to C14N. */
static const char *lookup(const ns_stack *s, const char *prefix)
{
	size_t i = s->len;

	while (i-- > 0)
		if (s->items[i].prefix == prefix)
			return s->items[i].uri[0] != '\0' ? s->items[i].uri
							  : unbound;
	return unbound;
}

/* ---- scratch arrays ---- */

/* Grows *arrayp (elements of `size` bytes) to hold need; kept between
 * elements so the walk allocates only while lists get longer. */
static int reserve(void *arrayp, size_t *cap, size_t need, size_t size)
{
	void **array = arrayp;
	void *p;

	if (need <= *cap)
		return 0;
	p = lab_realloc(*array, need * 2 * size);
	if (p == NULL)
		return -1;
	*array = p;
	*cap = need * 2;
	return 0;
}

static int cmp_ns(const void *a, const void *b)
{
	const dom_nsdecl *x = *(const dom_nsdecl *const *)a;
	const dom_nsdecl *y = *(const dom_nsdecl *const *)b;

	return dom_names_c14n_prefix_cmp(x->prefix, y->prefix);
}

static inline int cmp_attr(const void *a, const void *b)
{
	return dom_names_c14n_attr_cmp((*(const dom_attr *const *)a)->name,
				       (*(const dom_attr *const *)b)->name);
}

/* An element's attributes are few: insertion sort with the compare
 * inlined beats qsort's indirect call per comparison; long lists still
 * take qsort. */
static void sort_attrs(const dom_attr **a, size_t n)
{
	size_t i, j;

	if (n > 16) {
		qsort((void *)a, n, sizeof *a, cmp_attr);
		return;
	}
	for (i = 1; i < n; i++) {
		const dom_attr *x = a[i];

		for (j = i; j > 0 && cmp_attr(&a[j - 1], &x) > 0; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

/*
 * el's attributes, sorted, into c->attr_out.  Siblings of one kind carry
 * the same names in the same order (the order depends on nothing else),
 * so the last list sorted is remembered and its order reused when every
 * name matches.
 */
static void order_attrs(c14n *c, const dom_attr_list *al)
{
	size_t n = al->count, i;

	if (n < 2) {
		if (n == 1)
			c->attr_out[0] = &al->items[0];
		return;
	}
	if (n == c->norder) {
		for (i = 0; i < n && al->items[i].name == c->order[i].name; i++)
			;
		if (i == n) {
			for (i = 0; i < n; i++)
				c->attr_out[i] = &al->items[c->order[i].at];
			return;
		}
	}
	for (i = 0; i < n; i++)
		c->attr_out[i] = &al->items[i];
	sort_attrs(c->attr_out, n);
	if (reserve(&c->order, &c->cap_order, n, sizeof *c->order) != 0) {
		nomem(c);
		return;
	}
	for (i = 0; i < n; i++) {
		c->order[i].name = al->items[i].name;
		c->order[i].at = (size_t)(c->attr_out[i] - al->items);
	}
	c->norder = n;
}

/* ---- namespace rendering ---- */

/* Adds prefix to the candidates unless it is already there. */
static void candidate(c14n *c, dom_nsdecl *cand, size_t *n, const char *prefix)
{
	size_t i;

	if (prefix != NULL && prefix == c->xml_prefix)
		return;
	for (i = 0; i < *n; i++)
		if (cand[i].prefix == prefix)
			return;
	cand[(*n)++].prefix = prefix;
}

/*
 * The value of prefix in scope when it has to be rendered (it differs
 * from the one rendered above), else NULL.
 */
static inline const char *to_render(c14n *c, const char *p)
{
	/* Interned names sit close together in the arena: the multiply
	 * spreads them over the slots. */
	ns_memo *m = &c->memo[p == NULL ? 0
				     : 1 + (((uint64_t)(uintptr_t)p *
					     0x9E3779B97F4A7C15u) >>
					    60)];

	if (m->prefix != p || m->sv != c->scope.ver ||
	    m->rv != c->rendered.ver || m->in_scope == NULL) {
		m->prefix = p;
		m->sv = c->scope.ver;
		m->rv = c->rendered.ver;
		m->in_scope = lookup(&c->scope, p);
		m->above = lookup(&c->rendered, p);
	}
	/* A listed prefix out of scope, or a prefix bound to nothing, has
	 * no namespace node to render. */
	if (m->in_scope[0] == '\0' && p != NULL)
		return NULL;
	return m->in_scope != m->above ? m->in_scope : NULL;
}

/* Exclusive without a PrefixList: does el use a prefix whose binding
 * has not been rendered above?  Usually not, and then the candidates
 * need not be gathered. */
static int excl_renders(c14n *c, const char *prefix, const dom_attr_list *al)
{
	size_t i;

	if ((prefix == NULL || prefix != c->xml_prefix) &&
	    to_render(c, prefix) != NULL)
		return 1;
	for (i = 0; i < al->count; i++) {
		const char *p = dom_attr_prefix(&al->items[i]);

		if (p != NULL && p != c->xml_prefix && to_render(c, p) != NULL)
			return 1;
	}
	return 0;
}

/*
 * Which declarations el renders, into c->ns_out (sorted), with their
 * values pushed on c->rendered.  `cand` has room for every candidate.
 */
static size_t render_ns(c14n *c, const dom_node *el, const char *prefix,
			const dom_attr_list *al, dom_nsdecl *cand, int apex)
{
	size_t n = 0, k = 0, i;

	if (c->o->exclusive) {
		if (c->nlisted == 0 && !excl_renders(c, prefix, al))
			return 0;
		candidate(c, cand, &n, prefix);
		for (i = 0; i < al->count; i++)
			if (dom_attr_prefix(&al->items[i]) != NULL)
				candidate(c, cand, &n,
					  dom_attr_prefix(&al->items[i]));
		for (i = 0; i < c->nlisted; i++)
			candidate(c, cand, &n, c->listed[i]);
	} else if (apex) {
		for (i = 0; i < c->scope.len; i++)
			candidate(c, cand, &n, c->scope.items[i].prefix);
	} else {
		size_t nd;
		const dom_nsdecl *d = dom_ns_decls(el, &nd);

		for (i = 0; i < nd; i++)
			candidate(c, cand, &n, d[i].prefix);
	}
	for (i = 0; i < n; i++) {
		const char *in_scope = to_render(c, cand[i].prefix);

		if (in_scope == NULL)
			continue;
		cand[i].uri = in_scope;
		if (push(&c->rendered, cand[i].prefix, in_scope) != 0) {
			nomem(c);
			return 0;
		}
		c->ns_out[k++] = &cand[i];
	}
	if (k > 1)
		qsort(c->ns_out, k, sizeof *c->ns_out, cmp_ns);
	return k;
}

/*
 * Inclusive C14N of a subtree renders, on the apex, the xml:* attributes
 * it inherits from ancestors outside the subtree (C14N 1.0, 2.4).
 */
static size_t inherited_xml(c14n *c, const dom_node *apex, size_t k)
{
	const dom_node *a;

	for (a = dom_parent(apex); a != NULL && dom_node_type(a) == DOM_ELEMENT;
	     a = dom_parent(a)) {
		size_t i, n = dom_attr_count(a);

		for (i = 0; i < n; i++) {
			const dom_attr *at = dom_attr_at(a, i);
			size_t j;

			if (dom_attr_ns(at) != c->xml_ns)
				continue;
			for (j = 0; j < k; j++)
				if (dom_attr_ns(c->attr_out[j]) == c->xml_ns &&
				    dom_attr_local(c->attr_out[j]) ==
					    dom_attr_local(at))
					break;
			if (j < k)
				continue;
			if (reserve(&c->attr_out, &c->cap_attr, k + 1,
				    sizeof *c->attr_out) != 0) {
				nomem(c);
				return k;
			}
			c->attr_out[k++] = at;
		}
	}
	return k;
}

static void start_element(c14n *c, const dom_node *el, int apex)
{
	dom_attr_list al;
	const dom_nsdecl *decls;
	size_t nd, nns, na, i, max;
	frame *f;
	int rc;

	if (c->nframes == c->cap_frames) {
		size_t cap = c->cap_frames ? c->cap_frames * 2 : 64;
		frame *p = lab_realloc(c->frames, cap * sizeof *p);

		if (p == NULL) {
			nomem(c);
			return;
		}
		c->frames = p;
		c->cap_frames = cap;
	}
	f = &c->frames[c->nframes++];
	f->scope_len = c->scope.len;
	f->rendered_len = c->rendered.len;
	f->prefix = dom_prefix(el);
	f->local = dom_local_name(el);
	f->pl = f->prefix != NULL ? dom_names_len(f->prefix) : 0;
	f->ll = dom_names_len(f->local);
	decls = dom_ns_decls(el, &nd);
	for (i = 0; i < nd; i++) {
		rc = bind_ns(c, decls[i].prefix, decls[i].uri);
		if (rc != LAB_OK) {
			c->rc = rc;
			return;
		}
	}
	rc = dom_attributes(el, &al, c->err);
	if (rc != LAB_OK) {
		c->rc = rc;
		return;
	}
	max = 1 + al.count + c->nlisted + c->scope.len;
	if (reserve(&c->cand, &c->cap_cand, max, sizeof *c->cand) != 0 ||
	    reserve(&c->ns_out, &c->cap_ns, max, sizeof *c->ns_out) != 0 ||
	    reserve(&c->attr_out, &c->cap_attr, al.count,
		    sizeof *c->attr_out) != 0) {
		nomem(c);
		goto out;
	}
	nns = render_ns(c, el, f->prefix, &al, c->cand, apex);
	if (apex && !c->o->exclusive) {
		/* The apex of an inclusive subtree adds inherited xml:*. */
		for (na = 0; na < al.count; na++)
			c->attr_out[na] = &al.items[na];
		na = inherited_xml(c, el, na);
		sort_attrs(c->attr_out, na);
	} else {
		order_attrs(c, &al);
		na = al.count;
	}

	put_qname(c, "<", 1, f->prefix, f->pl, f->local, f->ll, "", 0);
	for (i = 0; i < nns; i++) {
		const dom_nsdecl *d = c->ns_out[i];

		if (d->prefix != NULL) {
			put(c, " xmlns:", 7);
			put(c, d->prefix, dom_names_len(d->prefix));
		} else {
			put(c, " xmlns", 6);
		}
		put(c, "=\"", 2);
		put_escaped(c, d->uri, strlen(d->uri), 1);
		put(c, "\"", 1);
	}
	for (i = 0; i < na; i++) {
		const dom_attr *a = c->attr_out[i];
		const char *p = dom_attr_prefix(a), *l = dom_attr_local(a);
		size_t pl = p != NULL ? dom_names_len(p) : 0;
		size_t ll = dom_names_len(l);

		/* Usually the whole attribute fits: one room check. */
		if (a->len <= ESC_DIRECT &&
		    LAB_ESC_ATTR_ROOM(pl, ll, a->len) <= OUT_BUF - c->len) {
			char *o = lab_esc_put_attr(c->out + c->len, p, pl, l,
						   ll, a->value, a->len,
						   esc_attr, reps);

			c->len = (size_t)(o - c->out);
			continue;
		}
		put_qname(c, " ", 1, p, pl, l, ll, "=\"", 2);
		put_escaped(c, a->value, a->len, 1);
		put(c, "\"", 1);
	}
	put(c, ">", 1);
	if (apex && c->content != NULL) {
		flush(c);
		if (c->rc == LAB_OK) {
			c->capturing = 1;
			gather(c);
		}
	}
out:
	dom_attr_list_release(el, &al);
}

static void end_element(c14n *c, const dom_node *el)
{
	const frame *f = &c->frames[--c->nframes];

	if (el == c->top && c->content != NULL) {
		flush(c);
		stop_capture(c);
	}
	put_qname(c, "</", 2, f->prefix, f->pl, f->local, f->ll, ">", 1);
	if (c->scope.len != f->scope_len) {
		c->scope.len = f->scope_len;
		c->scope.ver++;
	}
	if (c->rendered.len != f->rendered_len) {
		c->rendered.len = f->rendered_len;
		c->rendered.ver++;
	}
}

/* Everything but elements (n is of type `type`); returns 0 when the
 * node is not output. */
static int leaf(c14n *c, const dom_node *n, dom_type type)
{
	size_t len;
	const char *v = dom_value(n, &len);

	switch (type) {
	case DOM_TEXT:
	case DOM_CDATA:
		put_escaped(c, v, len, 0);
		return 1;
	case DOM_COMMENT:
		if (!c->o->with_comments)
			return 0;
		put(c, "<!--", 4);
		put(c, v, len);
		put(c, "-->", 3);
		return 1;
	case DOM_PI:
		put(c, "<?", 2);
		put_name(c, NULL, dom_local_name(n));
		if (len > 0) {
			put(c, " ", 1);
			put(c, v, len);
		}
		put(c, "?>", 2);
		return 1;
	default:
		return 0;
	}
}

/*
 * The bytes that are top's content in exclusive canonical form, as the
 * document keeps them (dom_canonical_content: the parser proved it, and
 * nothing inside top has changed since): they stand for the walk below
 * top, whose own tags are made as always.  Whether that holds depends on
 * what top renders, so only where top is the apex of exclusive C14N
 * without PrefixList and no node inside is left out; and, checked by
 * holds() once top's start tag is written, where the bindings the bytes
 * assume are the apex's.  NULL: walk.  In pieces (wss_c14n_pieces) only
 * whether they are kept, "" then, and their deps so far.
 */
static int may_take_kept(const c14n *c, const dom_node *top)
{
	const dom_node *x;

	if (!c->o->exclusive || c->nlisted > 0)
		return 0;
	for (x = c->o->exclude; x != NULL; x = dom_parent(x))
		if (x == top)
			return 0;
	return 1;
}

static const char *as_parsed(const c14n *c, const dom_node *top, size_t *len,
			     const dom_canon_dep **deps, size_t *ndeps)
{
	*ndeps = 0;
	if (!may_take_kept(c, top))
		return NULL;
	if (c->pieces) {
		*deps = dom_canonical_content_peek(top, len, ndeps);
		return *deps != NULL ? "" : NULL;
	}
	return dom_canonical_content(top, len, deps, ndeps);
}

/* lookup()'s answer is the binding `want` (NULL: none). */
static int same_binding(const char *have, const char *want)
{
	if (have[0] == '\0')
		return want == NULL;
	return want != NULL && (have == want || strcmp(have, want) == 0);
}

/* Whether, with the apex's start tag written, each binding the kept
 * bytes assume is the one in scope and the one rendered. */
static int holds(const c14n *c, const dom_canon_dep *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!same_binding(lookup(&c->scope, d[i].prefix),
				  d[i].in_scope) ||
		    !same_binding(lookup(&c->rendered, d[i].prefix),
				  d[i].rendered))
			return 0;
	return 1;
}

/* A kept run goes to the sink and the content OUT_BUF bytes at a time:
 * a run may be the whole Body, and the content's writer (a send's seal:
 * cipher and base64) then reads each piece while the digest left it in
 * cache, instead of reading the whole run again from memory. */
static int piece(void *ctx, const char *p, size_t n)
{
	c14n *c = ctx;

	while (n > 0 && c->rc == LAB_OK) {
		size_t k = n < OUT_BUF ? n : OUT_BUF;

		emit(c, p, k);
		p += k;
		n -= k;
	}
	return c->rc != LAB_OK;
}

/*
 * The kept bytes for top's content, after its start tag: whole, or in
 * pieces.  Pieces come from content checked again as they are made, so
 * a dep it adds that does not hold, or content found not canonical,
 * is known only after the sink took bytes: WSS_C14N_AGAIN then.
 */
static void put_kept(c14n *c, const dom_node *top, const char *kept,
		     size_t len, const dom_canon_dep *deps, size_t ndeps)
{
	int r;

	if (!c->pieces) {
		put(c, kept, len);
		return;
	}
	flush(c);
	if (c->rc != LAB_OK)
		return;
	r = dom_canonical_content_write(top, OUT_BUF, piece, c, &ndeps);
	if (r == 0 || (r == 1 && !holds(c, deps, ndeps)))
		c->rc = WSS_C14N_AGAIN;
}

static void subtree(c14n *c, const dom_node *top)
{
	const dom_node *n = top;
	const dom_canon_dep *deps;
	size_t kept_len, ndeps;
	const char *kept = as_parsed(c, top, &kept_len, &deps, &ndeps);

	while (c->rc == LAB_OK) {
		const dom_node *next = NULL;

		if (n != c->o->exclude) {
			dom_type type = dom_node_type(n);

			if (type == DOM_ELEMENT) {
				start_element(c, n, n == top);
				if (n == top && kept != NULL &&
				    c->rc == LAB_OK && holds(c, deps, ndeps))
					put_kept(c, top, kept, kept_len, deps,
						 ndeps);
				else
					next = dom_first_child(n);
				if (next == NULL)
					end_element(c, n);
			} else if (type == DOM_TEXT) {
				/* The most frequent node, without leaf's call. */
				size_t len;
				const char *v = dom_value(n, &len);

				put_escaped(c, v, len, 0);
			} else {
				leaf(c, n, type);
			}
		}
		if (next != NULL) {
			n = next;
			continue;
		}
		while (n != top && (next = dom_next_sibling(n)) == NULL) {
			n = dom_parent(n);
			end_element(c, n);
		}
		if (n == top)
			return;
		n = next;
	}
}

/* Top-level comments and PIs are set off by a newline from the root. */
static void document(c14n *c, const dom_node *docnode)
{
	const dom_node *n;
	int after_root = 0;

	for (n = dom_first_child(docnode); n != NULL && c->rc == LAB_OK;
	     n = dom_next_sibling(n)) {
		if (n == c->o->exclude)
			continue;
		if (dom_node_type(n) == DOM_ELEMENT) {
			subtree(c, n);
			after_root = 1;
			continue;
		}
		if (after_root && (dom_node_type(n) == DOM_PI ||
				   (c->o->with_comments &&
				    dom_node_type(n) == DOM_COMMENT)))
			put(c, "\n", 1);
		if (leaf(c, n, dom_node_type(n)) && !after_root)
			put(c, "\n", 1);
	}
}

/* The bindings in scope above an apex, and the PrefixList, interned. */
static int prepare(c14n *c, const dom_node *top)
{
	dom_doc *doc = dom_node_doc(top);
	const dom_node *parent = dom_parent(top);
	size_t i;

	c->xml_prefix = dom_intern_find(doc, "xml", 3);
	c->xml_ns = dom_ns_lookup(top, c->xml_prefix);
	if (dom_node_type(top) == DOM_ELEMENT && parent != NULL &&
	    dom_node_type(parent) == DOM_ELEMENT) {
		dom_nsdecl *in;
		size_t n;
		int rc = dom_ns_in_scope(parent, &in, &n, c->err);

		if (rc != LAB_OK)
			return rc;
		for (i = 0; i < n && rc == LAB_OK; i++)
			rc = bind_ns(c, in[i].prefix, in[i].uri);
		lab_free(in);
		if (rc != LAB_OK)
			return rc;
	}
	if (!c->o->exclusive || c->o->nprefixes == 0)
		return LAB_OK;
	c->listed = lab_malloc(c->o->nprefixes * sizeof *c->listed);
	if (c->listed == NULL)
		return lab_fail(c->err, LAB_ENOMEM, "out of memory");
	for (i = 0; i < c->o->nprefixes; i++) {
		const char *p = c->o->prefixes[i];

		if (strcmp(p, "#default") == 0) {
			c->listed[c->nlisted++] = NULL;
			continue;
		}
		/* A prefix the document never saw cannot be in scope. */
		p = dom_intern_find(doc, p, strlen(p));
		if (p != NULL)
			c->listed[c->nlisted++] = p;
	}
	return LAB_OK;
}

/*
 * Canonical XML requires failure on a document with a relative namespace
 * URI anywhere in it, in the node-set or not (util/nsuri.h), and
 * libxml2's C14N checks every element's declarations: so does this.
 */
static int no_relative_ns(const dom_node *top, lab_err *err)
{
	const char *prefix, *uri = dom_ns_relative(top, &prefix);

	if (uri == NULL)
		return LAB_OK;
	return lab_fail(err, LAB_ESECURITY,
			"relative namespace URI \"%s\" (xmlns%s%s) declared "
			"in the document: C14N is undefined for it",
			uri, prefix != NULL ? ":" : "",
			prefix != NULL ? prefix : "");
}

int wss_c14n(const dom_node *top, const wss_c14n_opts *opts, wss_sink_fn sink,
	     void *ctx, lab_err *err)
{
	return wss_c14n_tee(top, opts, sink, ctx, NULL, err);
}

static int canonicalize(const dom_node *top, const wss_c14n_opts *opts,
			wss_sink_fn sink, void *ctx, lab_buf *content,
			int pieces, lab_err *err)
{
	c14n *c;
	int rc;

	if (dom_node_type(top) != DOM_DOCUMENT &&
	    dom_node_type(top) != DOM_ELEMENT)
		return lab_fail(err, LAB_EUSAGE,
				"c14n takes a document or an element");
	rc = no_relative_ns(top, err);
	if (rc != LAB_OK)
		return rc;
	/* Zeroed but for the output buffer (16 KB, per call). */
	c = lab_malloc(sizeof *c);
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	memset(c, 0, offsetof(c14n, buf));
	c->out = c->buf;
	c->o = opts;
	c->top = top;
	c->sink = sink;
	c->ctx = ctx;
	c->content = dom_node_type(top) == DOM_ELEMENT ? content : NULL;
	c->pieces = pieces;
	c->err = err;
	c->rc = prepare(c, top);
	if (c->rc == LAB_OK) {
		if (dom_node_type(top) == DOM_DOCUMENT)
			document(c, top);
		else if (top != opts->exclude)
			subtree(c, top);
		flush(c);
	}
	rc = c->rc;
	if (c->len > c->held)
		c->held = c->len;
	explicit_bzero(c->buf, c->held < OUT_BUF ? c->held : OUT_BUF);
	lab_free(c->scope.items);
	lab_free(c->rendered.items);
	lab_free(c->frames);
	lab_free(c->listed);
	lab_free(c->cand);
	lab_free((void *)c->ns_out);
	lab_free((void *)c->attr_out);
	lab_free(c->order);
	lab_free(c);
	return rc;
}

int wss_c14n_tee(const dom_node *top, const wss_c14n_opts *opts,
		 wss_sink_fn sink, void *ctx, lab_buf *content, lab_err *err)
{
	/* The content is gathered in place and kept: a plain buffer. */
	int rc = content != NULL ? lab_buf_need_plain(content, "wss_c14n_tee",
						      err)
				 : LAB_OK;

	return rc != LAB_OK ? rc
			    : canonicalize(top, opts, sink, ctx, content, 0,
					   err);
}

int wss_c14n_pieces(const dom_node *top, const wss_c14n_opts *opts,
		    wss_sink_fn sink, void *ctx, lab_buf *content, lab_err *err)
{
	return canonicalize(top, opts, sink, ctx, content, 1, err);
}

static int to_buf(void *ctx, const char *p, size_t n)
{
	return lab_buf_put(ctx, p, n);
}

int wss_c14n_buf(const dom_node *top, const wss_c14n_opts *opts,
		 lab_buf *out, lab_err *err)
{
	int rc = wss_c14n(top, opts, to_buf, out, err);

	if (rc == LAB_OK && lab_buf_flush(out) != LAB_OK)
		rc = lab_fail(err, LAB_EIO, "the output's writer failed");
	return rc;
}
