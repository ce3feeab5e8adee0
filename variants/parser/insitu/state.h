/*
 * state.h - the insitu parser's state and the small helpers its files
 * share.  The parser is parse.c (the document, text, tags and
 * attributes: the hot path, one file so that it inlines) with markup.c
 * (comments, CDATA, PIs, the XML declaration), ns.c (namespace bindings,
 * and attribute uniqueness by prefix or namespace), scan.c (error reports
 * and the full name scanner), canon.c (dom/parser.h's question) and
 * tee.c (a document's own canonical copy), all in this folder.
 * Not for: anything outside the insitu parser (insitu.h has the byte
 * classes and the input, which are ideas of their own).
 */
#ifndef DOM_INSITU_PARSE_H
#define DOM_INSITU_PARSE_H

#include <string.h>

#include "variants/parser/insitu/insitu.h"
#include "dom/deferred.h"
#include "dom/feed.h"
#include "dom/parser.h"
#include "dom/userdata.h"

#define XMLNS_NS "http://www.w3.org/2000/xmlns/"

typedef struct frame {
	dom_node *node;
	dom_node *last;    /* its last child so far, NULL: none */
	const char *qname; /* the start tag's name, in the text */
	size_t qlen;
	size_t nbind;      /* bindings in scope outside this element */
} frame;

typedef struct binding {
	const char *prefix; /* NULL: the default namespace */
	const char *uri;    /* doc->empty: undeclared */
} binding;

/*
 * A qualified name as it appears in the text (tag names are never
 * rewritten, so the first occurrence can stand for later ones), and the
 * name records it resolved to as an element name [0] and an attribute
 * name [1], good while the bindings are those of `scope`.
 */
typedef struct qmemo {
	const char *src;
	size_t len;
	const char *prefix, *local;
	const dom_name *name[2];
	uint32_t scope[2];
	struct qmemo *next; /* the memo of the name read after it, last time */
} qmemo;

typedef struct rawattr {
	const char *prefix; /* interned, NULL for none; unused by decls */
	const char *local;  /* interned; for a decl the prefix it binds */
	const char *ns;     /* a decl's URI */
	const dom_name *name; /* resolved; unused by decls */
	qmemo *memo;        /* where its spelling was split; unused by decls */
	char *value;
	size_t vlen;
	const char *end;    /* just past it, where errors about it point */
	int decl;           /* xmlns or xmlns:p */
} rawattr;

/*
 * A start tag found canonical that declared nothing: its name records,
 * the bindings it was checked under, and whether its attributes were in
 * order (else perm, as dom__insitu_canon_tag's answer 2 gives it).  A
 * document repeats its tags, and the same tag under the same bindings
 * gets the same answer; the parser keeps CANON_SLOTS of them, by element
 * name.  CANON_PERM: the most attributes a tag can have put in order.
 */
enum { CANON_MEMO = 6, CANON_SLOTS = 32, CANON_PERM = 16, CANON_APEX = 8 };
_Static_assert((int)CANON_PERM <= (int)DOM_FEED_PERM,
	       "a tag the check pass puts in order fits a feed's note");
typedef struct canon_memo {
	const dom_name *name; /* NULL: none */
	uint32_t scope;
	int sorted;
	size_t n;
	const dom_name *attrs[CANON_MEMO];
	uint8_t perm[CANON_MEMO];
} canon_memo;

typedef struct parser {
	dom_doc *doc;
	const dom_limits *lim;
	lab_err *err;
	dom_insitu_input in;
	char *end;          /* the text's terminating NUL */
	frame *stack;       /* stack[0] is the parent given; depth open */
	size_t depth;
	binding *binds;
	size_t nbinds, capbinds;
	/* Changes with every binding made or dropped, so a name resolved
	 * under one value resolves the same while it holds.  32 bits do:
	 * each change takes a declaration, and max_input bounds those. */
	uint32_t scope;
	/* dom/parser.h's question, when asked (ask != NULL): canon stays 1
	 * while everything read in the content could be exc-c14n output;
	 * binds[canon_binds..] are the content's own declarations, which
	 * are then the ones rendered (variants/parser/insitu/canon.c).  canon_lost: a
	 * dependency more than dom_canon holds. */
	int canon;
	int canon_lost;
	size_t canon_binds;
	dom_canon *ask;
	canon_memo canon_seen[CANON_SLOTS];
	uint8_t canon_perm[CANON_PERM];
	/* The same question about each child of a whole document's root
	 * element, when the caller asks it (own, NULL: not asked; its
	 * rendered bindings in own_rendered): the answer is written as the
	 * content is read, into own_out, with the input copied up to
	 * own_copied (an offset into the text, as are the content's start
	 * own_from) and each start tag's attributes in canonical order
	 * (tee.c). */
	dom_canon *own;
	dom_nsdecl own_rendered[CANON_APEX];
	lab_buf own_out;
	size_t own_from, own_copied;
	/* The gaps in own_out where deferred content goes (tee.c). */
	dom_canon_gap *own_gaps;
	size_t own_ngaps, own_capgaps;
	rawattr *attrs;
	size_t capattrs;
	uint32_t *seen;     /* duplicate check: attribute index + 1, 0 free */
	size_t capseen;
	int rooted;         /* the root element has been read */
	/* build=deferred (variants/build/deferred.c): defer, whether this
	 * parse defers content, that of the elements at defer_depth; outer,
	 * the bindings copied for the children of outer_of. */
	int defer;
	size_t defer_depth;
	int one;            /* reading one deferred element's content */
	const dom_node *outer_of;
	const dom_nsdecl *outer;
	qmemo *last;           /* the memo of the last tag or attribute name */
	qmemo xmlns_name;      /* an element's name "xmlns" (split_qname) */
	/* Last, as they are the most of the parser (18 KB) and only tags
	 * and declarations read them: a deferred element's content of text
	 * alone is built without clearing them (parse.c's parser_for). */
	const char *memo[256]; /* recently interned names, by a cheap hash */
	qmemo qnames[256];     /* the same for qualified names in tags */
} parser;

int dom__insitu_fail_at(parser *ps, const char *at, int code,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define MALFORMED(ps, at, ...) \
	dom__insitu_fail_at((ps), (at), LAB_EMALFORMED, __VA_ARGS__)

/* What is wrong with the byte at r, which no scanning loop accepted. */
int dom__insitu_bad_char(parser *ps, const char *r, const char *where);

/* scan_name's slow path: any name, or the error. */
int dom__insitu_scan_name_slow(parser *ps, char **pp, char **colon,
			       const char *what);

/* After "<!--", "<![CDATA[", "<?" and "<?xml" + white space. */
int dom__insitu_comment(parser *ps, char **pp);
int dom__insitu_cdata(parser *ps, char **pp);
int dom__insitu_pi(parser *ps, char **pp);
int dom__insitu_xml_decl(parser *ps, char **pp);

/*
 * Whether the reference at r ("&...") is written as exc-c14n writes the
 * character it stands for, in an attribute value (attr) or in text.
 */
int dom__insitu_canon_ref(const char *r, int attr);

/*
 * Whether the start tag just read -- element `name`, the n attributes in
 * ps->attrs, declarations bound, nbind the bindings before them -- has
 * the declarations and the order exc-c14n gives it: 1 yes, 0 no, 2 yes
 * once its attributes are in ps->canon_perm's order.  Its spacing and
 * quoting are checked as it is read.
 */
int dom__insitu_canon_tag(parser *ps, const dom_name *name, size_t n,
			  size_t nbind);

/*
 * The copy of a whole document's children of the root element in
 * canonical form (tee.c, emit=canonical).  own_start: such a child's
 * start tag (name, n attributes, empty or not) was read up to p.
 * own_reorder: a start tag inside it, its name ending at name_end, is
 * canonical once its n attributes are in ps->canon_perm's order (0: no
 * memory, which only ends the question).  own_end: its end tag starts
 * at lt ("</").
 */
void dom__insitu_own_start(parser *ps, const dom_name *name, size_t n,
			   int empty, const char *p);
int dom__insitu_own_reorder(parser *ps, const char *name_end, size_t n);

/*
 * The content of el, deferred, from the text's offset from to to: a gap
 * in the copy (dom/parser.h), filled when a digest asks for the copy --
 * with the bytes as they stand when `ready` (the check pass put them in
 * order and their dependencies are taken).  0: no memory, which only
 * ends the question.
 */
int dom__insitu_own_gap(parser *ps, size_t from, size_t to,
			const dom_node *el, int ready);

/* The input from where the copy stands to the text's offset to, added
 * to the copy (the end of a gap's content).  0: no memory. */
int dom__insitu_own_rest(parser *ps, size_t to);

/*
 * own_reorder's copy for a tag whose n attributes end at ends[0..n)
 * (each begins at the end before it, the first at name_end: one space,
 * the name, '=', the quoted value), written in perm's order: the check
 * pass's (check/), which keeps no ps->attrs, when it fills a gap.
 */
int dom__insitu_own_permute(parser *ps, const char *name_end,
			    const char *const *ends, const uint8_t *perm,
			    size_t n);
void dom__insitu_own_end(parser *ps, const char *lt);

/*
 * The check pass's third note, when asked (dom__parse_canon): ok,
 * whether the content's bytes, with each start tag's attributes put in
 * order into the copy (own_out), are its exclusive canonical form
 * provided that no element in it renders a declaration, that is,
 * provided each prefix its element names use, prefix[0..n) (NULL: the
 * default namespace), is bound in scope as rendered around it (the
 * caller's check, dom/deferred.c).  The content declares none, and an
 * attribute with a prefix is a no.
 */
typedef struct check_canon {
	int reorder;  /* in: tags may be put in order (else they are a no) */
	/* in: put in order where they stand, after the pass
	 * (dom__insitu_order_in_place), not into the copy: the tags to put
	 * in order, noted in tags[0..ntags) (check/reorder.c's note_tag;
	 * the caller frees tags). */
	int in_place;
	uint8_t *tags;
	size_t ntags, captags;
	int ok;
	size_t n;
	const char *prefix[DOM__CANON_PREFIXES];
} check_canon;

/*
 * build=deferred's check pass (check/): 1 when the content from p to
 * the end tag of the element open at ps->depth is well-formed and within
 * the limits, with *end at that end tag's '<', *ids whether an attribute
 * in it is named Id or ID, *exact whether its bytes are dom_serialize's
 * for it, and canon's note unless canon is NULL; 0 when it is not sure,
 * and the content must be built.
 */
int dom__insitu_check(parser *ps, const char *p, const char **end, int *ids,
		      int *exact, check_canon *canon);

/*
 * The tags an in_place check pass that answered yes with its note noted,
 * their attributes put in C14N's order where they stand in the text: the
 * content is then its canonical form as it stands.  Needs no memory.
 */
void dom__insitu_order_in_place(parser *ps, const check_canon *canon);

/*
 * build=deferred: the elements whose content is deferred are those at
 * DEFER_DEPTH, the root's grandchildren -- in a SOAP message each header
 * block and each child of the Body (variants/build/deferred.c says why)
 * -- and in a fragment (dom_replace_parsed: a decrypted Body's content,
 * a header block) each element at its top, at FRAGMENT_DEFER_DEPTH
 * under the wrapper: the elements that take the place of a Body child
 * or a header block.
 */
enum { DEFER_DEPTH = 3, FRAGMENT_DEFER_DEPTH = 2 };

/*
 * defer.c: the element just opened at the defer depth, its content
 * starting at *pp and its bindings before its start tag nbind: checked
 * and recorded with *pp at its end tag's '<', or left to the building
 * pass when the check is not sure.
 */
int dom__insitu_defer(parser *ps, char **pp, size_t nbind);

/* parse.c: the content loop from p, to the end of the text or, for a
 * deferred element's content (ps->one), to its end tag. */
int dom__insitu_content(parser *ps, char *p);



/*
 * Whether content under the open elements, declaring nothing and using
 * the n prefixes given on its element names, renders no declaration in
 * exclusive C14N with ps->ask's apex: each prefix's binding in scope is
 * the one rendered around it.  The answer's dependencies on the apex go
 * into ps->ask as a tag's do (canon.c).
 */
int dom__insitu_canon_uses(parser *ps, const char *const *prefix, size_t n);

/* The URI bound to prefix (NULL: the default namespace), or NULL. */
const char *dom__insitu_lookup(const parser *ps, const char *prefix);

/* The declarations among n attributes: checked, bound, counted (*ndecls
 * kept, *nxmlns all the xmlns attributes). */
int dom__insitu_declare(parser *ps, size_t n, size_t *ndecls,
			size_t *nxmlns);

/*
 * The first attribute whose key an earlier one has, or -1 (-2: out of
 * memory).  byns: the key is (namespace, local) and declarations are
 * left out; else it is (prefix, local), declarations keyed apart.
 */
long dom__insitu_duplicate(parser *ps, size_t n, int byns);

static inline int nomem(parser *ps)
{
	return lab_fail(ps->err, LAB_ENOMEM, "out of memory");
}

static inline int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = lab_realloc(*p, n * size);
	if (q == NULL)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

static inline char *skip_space(char *p)
{
	while (dom__is((unsigned char)*p, IS_SPACE))
		p++;
	return p;
}

/*
 * Past the run of IS_ATTR bytes at q, 16 bytes a test where SSE2 is
 * there; q itself elsewhere.  The attribute value's twin of
 * dom__insitu_skip_text (variants/parser/insitu/insitu.h), with the same contract: the
 * caller's table loop finishes the run, so the table stays the
 * definition.  The bytes that end a run are those outside IS_ATTR: below
 * 0x20 (TAB and LF too: they become spaces), 0x80 and above, either
 * quote, '&' and '<'.
 */
static inline const char *skip_attr(const char *q)
{
#if defined(__SSE2__)
	const __m128i sp = _mm_set1_epi8(0x20), dq = _mm_set1_epi8('"'),
		      sq = _mm_set1_epi8('\''), amp = _mm_set1_epi8('&'),
		      lt = _mm_set1_epi8('<');

	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		/* Signed: 0x80 and above compare below 0x20 as well. */
		__m128i m = _mm_or_si128(
			_mm_or_si128(_mm_cmplt_epi8(v, sp), _mm_cmpeq_epi8(v, dq)),
			_mm_or_si128(_mm_cmpeq_epi8(v, sq),
				     _mm_or_si128(_mm_cmpeq_epi8(v, amp),
						  _mm_cmpeq_epi8(v, lt))));
		int bits = _mm_movemask_epi8(m);

		if (bits != 0)
			return q + __builtin_ctz((unsigned)bits);
		q += 16;
	}
#else
	return q;
#endif
}

/* A non-ASCII character at *r, moved to *w; 0 or the error. */
static inline int copy_utf8(parser *ps, char **r, char **w, const char *where)
{
	size_t n = dom__insitu_utf8((const unsigned char *)*r);

	if (n == 0)
		return dom__insitu_bad_char(ps, *r, where);
	if (*w != *r)
		memmove(*w, *r, n);
	*r += n;
	*w += n;
	return LAB_OK;
}

/*
 * The QName at *pp; its end goes to *pp and the colon, if any, to
 * *colon.  Inline for the common case, ASCII names: a table loop per
 * part; anything else is scan_name_slow's.
 */
static inline int scan_name(parser *ps, char **pp, char **colon,
			    const char *what)
{
	char *p = *pp;

	*colon = NULL;
	if (!dom__is((unsigned char)*p, IS_NSTART))
		return dom__insitu_scan_name_slow(ps, pp, colon, what);
	while (dom__is((unsigned char)*++p, IS_NAME))
		;
	if (*p == ':' && dom__is((unsigned char)p[1], IS_NSTART)) {
		*colon = p++;
		while (dom__is((unsigned char)*++p, IS_NAME))
			;
	}
	if (*p == ':' || (unsigned char)*p >= 0x80 ||
	    (size_t)(p - *pp) > ps->lim->max_name)
		return dom__insitu_scan_name_slow(ps, pp, colon, what);
	*pp = p;
	return LAB_OK;
}

/* Whether a[0..n) == b[0..n), byte by byte: stops at the first
 * difference, so b may run into the text's terminating NUL. */
static inline int same(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/*
 * The same for two spans of the text, a word at a time: the padding
 * after the text (DOM_INSITU_PAD) makes reading up to 8 bytes past
 * either span safe.  The last word is masked to the n bytes that count.
 */
static inline int same_text(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	for (; n >= 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	if (n == 0)
		return 1;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return ((x ^ y) << (64 - 8 * n)) == 0;
#else
	return ((x ^ y) >> (64 - 8 * n)) == 0;
#endif
}

/*
 * A node of `size` bytes (a dom_element or dom_chars), its dom_node part
 * set and linked as the open element's last child; the caller sets the
 * rest of the tail.  This is tree.c's new_node and dom__link_last inline
 * for the parser's loop, which makes a node or two per tag: one bump, each
 * field stored once (no memset first) and the last child kept in the
 * frame rather than read through first->prev.  extra > 0 bytes go in the
 * same bump right after the node (a small element's attributes), aligned
 * as the node is.  NULL when memory runs out.
 */
static inline dom_node *new_child(parser *ps, size_t size, dom_type type,
				  uint32_t len, size_t extra)
{
	frame *f = &ps->stack[ps->depth];
	dom_node *parent = f->node, *last = f->last;
	uint16_t where;
	dom_node *n = dom__node_alloc(ps->doc, size + extra, &where);

	if (n == NULL)
		return NULL;
	n->first = NULL;
	n->next = NULL;
	n->parent = parent;
	n->len = len;
	n->type = (uint8_t)type;
	n->flags = 0;
	n->where = where;
	/* Before linking, as tree.c does: a node the userdata variant
	 * refused never enters the tree. */
	if (dom__ud_node_created(ps->doc, n) != LAB_OK)
		return NULL;
	if (last == NULL) {
		parent->first = n;
		n->prev = n;
	} else {
		last->next = n;
		n->prev = last;
		parent->first->prev = n;
	}
	f->last = n;
	return n;
}

static inline int add_chars(parser *ps, dom_type type, const char *target,
			    const char *s, size_t len)
{
	dom_chars *c;

	if (len > UINT32_MAX)
		return nomem(ps);
	c = (dom_chars *)(void *)new_child(ps, dom__chars_size(type), type,
					   (uint32_t)len, 0);
	if (c == NULL)
		return nomem(ps);
	c->value = s;
	if (type == DOM_PI)
		c->target = target;
	return LAB_OK;
}

/*
 * Interns s[0..n).  A document repeats a few names: a memo keyed by
 * length and end bytes answers most with one compare instead of a full
 * hash and probe of the document's table.
 */
static inline const char *intern(parser *ps, const char *s, size_t n)
{
	const char **m;

	if (n == 0)
		return ps->doc->empty;
	m = &ps->memo[(n * 7 + (unsigned char)s[0] * 31 +
		       (unsigned char)s[n - 1]) & 255];
	if (*m != NULL && dom_names_len(*m) == n && same(*m, s, n))
		return *m;
	*m = dom_intern(ps->doc, s, n);
	return *m;
}

/*
 * A quick mix of two pointers for may_clash's 64-bit filter in
 * variants/parser/insitu/parse.c, which a repeat only sends to the duplicate
 * check (a table through the hash axis): not a table, so not the axis's.
 */
static inline uint32_t hash2(const void *a, const void *b)
{
	uint64_t h = (uint64_t)(uintptr_t)a * 0x9e3779b97f4a7c15ULL ^
		     (uint64_t)(uintptr_t)b * 0xc2b2ae3d27d4eb4fULL;

	return (uint32_t)(h >> 32);
}

#endif
