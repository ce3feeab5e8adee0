/*
 * internal.h - the layout of documents and nodes, shared by dom/ and the
 * variants under variants/, and the building blocks the build variants use.
 * Nothing outside dom/ and variants/ includes it: the pipeline sees dom.h.
 *
 * Layout follows pugixml's lesson: a small common node, type-specific
 * tails, strings in the document's arena, sibling links where the last
 * child is reachable from the first (first->prev) without a pointer of its
 * own, and no document pointer either: a node finds its document through
 * the arena chunk it lives in (`where`, see dom__doc()).  Hot fields first.
 */
#ifndef DOM_INTERNAL_H
#define DOM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/nsuri.h"
#include "dom/arena.h"
#include "dom/dom.h"
#include "dom/names.h"

struct dom_node {
	dom_node *first;   /* first child */
	dom_node *next;    /* next sibling, NULL after the last */
	dom_node *prev;    /* previous sibling; the first child's is the last */
	dom_node *parent;
	uint32_t len;      /* text: value length; element: namespace decls */
	uint8_t type;      /* dom_type */
	uint8_t flags;
	uint16_t where;    /* its place in its arena chunk (dom__arena_of) */
};

/*
 * Text, CDATA, comment, PI.  `target` is the PI's (interned); the other
 * three are allocated without it (dom__chars_size), 8 bytes a node less
 * on the commonest node there is, so only PI code may touch it.
 */
typedef struct dom_chars {
	dom_node base;
	const char *value;
	const char *target;
} dom_chars;

static inline size_t dom__chars_size(int type)
{
	return type == DOM_PI ? sizeof(dom_chars)
			      : offsetof(dom_chars, target);
}

/*
 * The attributes of one element: an array in document order, which every
 * attrs variant keeps (serialization and dom_attributes() read it), plus
 * whatever lookup index the variant builds in `index`.
 */
typedef struct dom_attrs {
	dom_attr *items;
	uint32_t count;
	uint32_t cap;
	void *index;
} dom_attrs;

typedef struct dom_element {
	dom_node base;
	const dom_name *name;
	dom_nsdecl *nsdecls; /* base.len of them */
	dom_attrs attrs;
} dom_element;

/* The xml declaration as read, so it can be written back. */
typedef struct dom_decl {
	const char *version;  /* NULL: the input had no declaration */
	int8_t standalone;    /* -1 absent, 0 no, 1 yes */
	uint8_t encoding;     /* 1: an encoding was declared (written as UTF-8) */
	uint8_t dtd;          /* 1: the input had a document type declaration */
} dom_decl;

typedef struct dom_ids dom_ids;
typedef struct dom_deferred dom_deferred;

/* At most this many dom_canon_dep for one content (dom/parser.h). */
enum { DOM_CANON_DEPS = 8 };

/*
 * A part of a canonical copy still to be written: the content of el,
 * unbuilt (build=deferred), len bytes that go at offset `at` of the
 * copy.  Its record's bindings (dom/deferred.h) from the inside-th on
 * were declared inside the apex, the copy's own.
 */
typedef struct dom_canon_gap {
	size_t at, len;
	const dom_node *el;
	size_t inside;
	/* The element's bytes are their canonical form as they stand: a
	 * parse for signing put them in order (dom/parser.h). */
	int ready;
} dom_canon_gap;

/* Bytes kept for el's content (the emit axis, dom/emit.h): while the
 * document's gen is still `gen`, when `exact`, the bytes it was parsed
 * from; while `canonical`, its exc-c14n with el as the apex, under
 * deps[0..ndeps). */
typedef struct dom_kept {
	const dom_node *el; /* NULL: nothing kept */
	size_t at, len;     /* the content: buf.data[at .. at + len) */
	uint64_t gen;
	lab_buf buf;
	int exact;
	int canonical;      /* cleared by any change inside el */
	size_t ndeps;
	dom_canon_dep deps[DOM_CANON_DEPS];
	/* The parts still to be written (dom/kept.c fills them when the
	 * copy is first asked for), gapped bytes in all. */
	dom_canon_gap *gaps;
	size_t ngaps, gapped;
} dom_kept;

struct dom_doc {
	dom_arena arena;
	dom_names names;
	void *node_slot;        /* the userdata slot in front of `node` */
	dom_node node;          /* the document node */
	const char *xml_prefix; /* interned "xml" */
	const char *xml_ns;     /* interned XML namespace URI */
	const char *empty;      /* interned "" */
	void *ud;               /* the userdata variant's state */
	dom_ids *ids;           /* lazily built ID index */
	uint64_t gen;           /* bumped by every change to the tree */
	dom_kept kept;
	dom_decl decl;
	size_t source_len;       /* bytes it was parsed from (0: built) */
	dom_deferred *deferred;  /* build=deferred's records (dom/deferred.h) */
	/* During a parse for signing only: what it tells another thread
	 * (dom/feed.h); NULL: nothing. */
	struct dom_feed *feed;
	/* A relative namespace URI was declared in it (dom__note_ns); the
	 * element may since have gone, so dom_ns_relative looks again. */
	uint8_t relative_ns;
	/* Arena bytes a fragment was copied into (decrypted plaintext, parsed
	 * by variants/parser/insitu): wiped when the document is freed. */
	struct dom_wipe {
		char *p;
		size_t n;
	} *wipe;
	size_t nwipe;
};

/* Notes p[0..n) of doc's arena for dom_doc_free to wipe; LAB_ENOMEM. */
int dom__wipe_later(dom_doc *doc, char *p, size_t n);

#define DOM_XML_NS "http://www.w3.org/XML/1998/namespace"

/* The document n belongs to: the one around it for the document node,
 * else the one whose arena n was placed in. */
static inline dom_doc *dom__doc(const dom_node *n)
{
	const char *p = n->type == DOM_DOCUMENT
		? (const char *)n - offsetof(dom_doc, node)
		: (const char *)dom__arena_of(n, n->where) -
			  offsetof(dom_doc, arena);

	return (dom_doc *)(uintptr_t)p;
}

/* dom_node.flags: an element's content is still bytes (build=deferred);
 * a text's value holds no byte output escapes (dom_b64_end: written by
 * the DOM's base64 encoder alone; its value only ever changes to
 * empty, dom_text_take). */
enum { DOM__DEFERRED = 1, DOM__PLAIN = 2 };

/* Builds el's deferred content (dom/deferred.c). */
void dom__deferred_build(dom_node *el);

/* Before n's children are read: builds them if they are deferred. */
static inline void dom__need(const dom_node *n)
{
	if (n->flags & DOM__DEFERRED)
		dom__deferred_build((dom_node *)(uintptr_t)n);
}

static inline dom_element *dom__el(const dom_node *n)
{
	return (dom_element *)(uintptr_t)n;
}

static inline dom_chars *dom__chars(const dom_node *n)
{
	return (dom_chars *)(uintptr_t)n;
}

/* ---- building blocks for the build variants and the tree code ---- */

/* Every declaration put on an element passes here, so that C14N can tell
 * a document with a relative namespace URI (util/nsuri.h) without a
 * walk: the parsers call it as they read declarations. */
static inline void dom__note_ns(dom_doc *doc, const char *uri)
{
	if (!doc->relative_ns && lab_nsuri_relative(uri))
		doc->relative_ns = 1;
}

/* A document with an arena sized for an input of `hint` bytes. */
int dom__doc_new(size_t hint, dom_doc **out, lab_err *err);

/* The name record for already-interned parts; NULL when memory runs out. */
static inline const dom_name *dom__name(dom_doc *doc, const char *ns,
					const char *prefix, const char *local)
{
	return dom__names_qname(&doc->names, &doc->arena, ns, prefix, local);
}

/* Nodes with interned names; not yet linked anywhere. */
dom_element *dom__new_element(dom_doc *doc, const dom_name *name);
dom_chars *dom__new_chars(dom_doc *doc, dom_type type, const char *s,
			  size_t len);
/*
 * The same without the copy: s[len] must be NUL and s must live as long
 * as the document (the insitu parser's text, which is in its arena).
 */
dom_chars *dom__new_chars_ref(dom_doc *doc, dom_type type, const char *s,
			      size_t len);

/* Links child as parent's last child; no checks (the parser's path). */
void dom__link_last(dom_node *parent, dom_node *child);

/* Space for n attributes and n namespace declarations, set by the caller. */
int dom__reserve_attrs(dom_element *el, uint32_t n);
int dom__reserve_nsdecls(dom_element *el, uint32_t n);

/* Called once the parser has filled el->attrs.items[0..count). */
int dom__attrs_built(dom_element *el, lab_err *err);

/*
 * Interns a name given as (namespace URI, "p:l" or "l"): *ns NULL for
 * none (ns NULL or ""), *prefix NULL for none.  A prefix without a
 * namespace is LAB_EUSAGE.
 */
int dom__intern_name(dom_doc *doc, const char *ns, const char *qname,
		     const char **ins, const char **prefix,
		     const char **local, lab_err *err);

void dom__ids_free(dom_doc *doc);

/*
 * dom_replace_parsed's change, for the ID index: `old` (detached, its
 * subtree intact) gave way to the siblings from `first` up to `stop`
 * (exclusive, NULL: to the end); `gen` is the document's change counter
 * before the replacement.  An index that was current then is updated for
 * the IDs that left and came instead of being rebuilt at the next
 * lookup; any other is left to be rebuilt.
 */
void dom__ids_replaced(dom_doc *doc, uint64_t gen, dom_node *old,
		       dom_node *first, const dom_node *stop);

/* A change made at `gen` (the counter before it) that adds and removes
 * no ID: an index current then stays current. */
void dom__ids_unchanged(dom_doc *doc, uint64_t gen);

/*
 * The node after c in document order within top's subtree, or NULL.
 * Every whole-tree walk uses it: iteration, not recursion, because a tree
 * built through the API has no depth bound and must not overflow the stack.
 */
static inline dom_node *dom__walk_next_built(const dom_node *c,
					     const dom_node *top)
{
	if (c->first != NULL)
		return c->first;
	while (c != top && c->next == NULL)
		c = c->parent;
	return c == top ? NULL : c->next;
}

/* The same over the whole tree: deferred content is built on the way.
 * dom__walk_next_built walks what is built only (releasing user data:
 * content never built holds none). */
static inline dom_node *dom__walk_next(const dom_node *c, const dom_node *top)
{
	dom__need(c);
	return dom__walk_next_built(c, top);
}

/* Marks the document changed: for the ID index and for kept bytes. */
static inline void dom__touch(dom_doc *doc)
{
	doc->gen++;
}

#endif
