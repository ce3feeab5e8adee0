/*
 * tree.c - documents and nodes: creation, navigation, insertion and
 * removal.  Attributes, namespaces, IDs, parsing and output have files of
 * their own.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "dom/attrs.h"
#include "dom/build.h"
#include "dom/deferred.h"
#include "dom/emit.h"
#include "dom/internal.h"
#include "dom/userdata.h"

static_assert(offsetof(dom_doc, node) - offsetof(dom_doc, node_slot) ==
		      sizeof(void *),
	      "the document node's userdata slot must sit right before it");

int dom__doc_new(size_t hint, dom_doc **out, lab_err *err)
{
	dom_doc *doc;
	size_t size;
	int rc = dom__hash_ready(err);

	*out = NULL;
	if (rc != LAB_OK)
		return rc;
	rc = LAB_ENOMEM;
	doc = lab_calloc(1, sizeof *doc);
	if (doc == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	/* Our tree of an XML text takes about 1.5x its bytes; a parse that
	 * builds only part of it starts smaller (dom/build.h). */
	size = dom__build_arena_start(hint + hint / 2);
	dom__arena_init(&doc->arena, size);
	dom__names_init(&doc->names);
	doc->node.type = DOM_DOCUMENT;
	doc->decl.standalone = -1;
	doc->source_len = hint;
	doc->xml_prefix = dom_intern(doc, "xml", 3);
	doc->xml_ns = dom_intern(doc, DOM_XML_NS, sizeof DOM_XML_NS - 1);
	doc->empty = dom_intern(doc, "", 0);
	if (doc->xml_prefix == NULL || doc->xml_ns == NULL || doc->empty == NULL)
		goto fail;
	rc = dom__ud_doc_init(doc, err);
	if (rc != LAB_OK)
		goto fail;
	rc = dom__ud_node_created(doc, &doc->node);
	if (rc != LAB_OK)
		goto fail;
	*out = doc;
	return LAB_OK;
fail:
	dom_doc_free(doc);
	return lab_fail(err, rc, "cannot create a document: %s",
			lab_strerror(rc));
}

int dom_doc_new(dom_doc **out, lab_err *err)
{
	return dom__doc_new(0, out, err);
}

int dom__wipe_later(dom_doc *doc, char *p, size_t n)
{
	struct dom_wipe *w;

	if ((doc->nwipe & (doc->nwipe + 1)) == 0) {
		w = lab_realloc(doc->wipe, (2 * doc->nwipe + 1) * sizeof *w);
		if (w == NULL)
			return LAB_ENOMEM;
		doc->wipe = w;
	}
	doc->wipe[doc->nwipe].p = p;
	doc->wipe[doc->nwipe++].n = n;
	return LAB_OK;
}

void dom_doc_free(dom_doc *doc)
{
	size_t i;

	if (doc == NULL)
		return;
	dom__ud_doc_release(doc);
	dom__ids_free(doc);
	dom__deferred_free(doc);
	dom__emit_release(doc);
	dom__names_free(&doc->names);
	for (i = 0; i < doc->nwipe; i++)
		explicit_bzero(doc->wipe[i].p, doc->wipe[i].n);
	lab_free(doc->wipe);
	dom__arena_free(&doc->arena);
	lab_free(doc);
}

size_t dom_doc_source_len(const dom_doc *doc)
{
	return doc->source_len;
}

dom_node *dom_doc_node(dom_doc *doc)
{
	return &doc->node;
}

int dom_doc_has_dtd(const dom_doc *doc)
{
	return doc->decl.dtd;
}

dom_node *dom_doc_element(dom_doc *doc)
{
	dom_node *n;

	for (n = doc->node.first; n != NULL; n = n->next)
		if (n->type == DOM_ELEMENT)
			return n;
	return NULL;
}

dom_doc *dom_node_doc(const dom_node *n)
{
	return dom__doc(n);
}

const char *dom_intern(dom_doc *doc, const char *s, size_t len)
{
	return dom__names_intern(&doc->names, &doc->arena, s, len);
}

const char *dom_intern_find(const dom_doc *doc, const char *s, size_t len)
{
	return dom__names_find(&doc->names, s, len);
}

/* ---- creation ---- */

_Static_assert(sizeof(void *) + sizeof(dom_element) <= DOM_ARENA_SMALL,
	       "nodes are placed in their chunks (dom__doc)");

static void *new_node(dom_doc *doc, size_t size, dom_type type)
{
	uint16_t where;
	dom_node *n = dom__node_alloc(doc, size, &where);

	if (n == NULL)
		return NULL;
	memset(n, 0, size);
	n->type = (uint8_t)type;
	n->where = where;
	if (dom__ud_node_created(doc, n) != LAB_OK)
		return NULL;
	return n;
}

dom_element *dom__new_element(dom_doc *doc, const dom_name *name)
{
	dom_element *el = new_node(doc, sizeof *el, DOM_ELEMENT);

	if (el != NULL)
		el->name = name;
	return el;
}

dom_chars *dom__new_chars(dom_doc *doc, dom_type type, const char *s,
			  size_t len)
{
	dom_chars *c;
	char *v;

	if (len > UINT32_MAX)
		return NULL;
	c = new_node(doc, dom__chars_size(type), type);
	if (c == NULL)
		return NULL;
	v = dom__arena_strndup(&doc->arena, s, len);
	if (v == NULL)
		return NULL;
	c->value = v;
	c->base.len = (uint32_t)len;
	return c;
}

dom_chars *dom__new_chars_ref(dom_doc *doc, dom_type type, const char *s,
			      size_t len)
{
	dom_chars *c;

	if (len > UINT32_MAX)
		return NULL;
	c = new_node(doc, dom__chars_size(type), type);
	if (c == NULL)
		return NULL;
	c->value = s;
	c->base.len = (uint32_t)len;
	return c;
}

int dom__intern_name(dom_doc *doc, const char *ns, const char *qname,
		     const char **ins, const char **prefix,
		     const char **local, lab_err *err)
{
	const char *colon = strchr(qname, ':');

	*ins = NULL;
	*prefix = NULL;
	if (qname[0] == '\0' || colon == qname ||
	    (colon != NULL && (colon[1] == '\0' || strchr(colon + 1, ':'))))
		return lab_fail(err, LAB_EUSAGE, "'%s' is not a qualified name",
				qname);
	if (colon != NULL && (ns == NULL || ns[0] == '\0'))
		return lab_fail(err, LAB_EUSAGE,
				"prefixed name '%s' needs a namespace", qname);
	if (colon != NULL) {
		*prefix = dom_intern(doc, qname, (size_t)(colon - qname));
		qname = colon + 1;
		if (*prefix == NULL)
			goto nomem;
	}
	*local = dom_intern(doc, qname, strlen(qname));
	if (*local == NULL)
		goto nomem;
	if (ns != NULL && ns[0] != '\0') {
		*ins = dom_intern(doc, ns, strlen(ns));
		if (*ins == NULL)
			goto nomem;
	}
	return LAB_OK;
nomem:
	return lab_fail(err, LAB_ENOMEM, "out of memory");
}

int dom_create_element(dom_doc *doc, const char *ns, const char *qname,
		       dom_node **out, lab_err *err)
{
	const char *prefix, *local, *ins;
	const dom_name *name;
	dom_element *el = NULL;
	int rc;

	*out = NULL;
	rc = dom__intern_name(doc, ns, qname, &ins, &prefix, &local, err);
	if (rc != LAB_OK)
		return rc;
	name = dom__name(doc, ins, prefix, local);
	if (name != NULL)
		el = dom__new_element(doc, name);
	if (el == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	*out = &el->base;
	return LAB_OK;
}

static int create_chars(dom_doc *doc, dom_type type, const char *s,
			size_t len, dom_node **out, lab_err *err)
{
	dom_chars *c = dom__new_chars(doc, type, s, len);

	*out = c != NULL ? &c->base : NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

int dom_create_text(dom_doc *doc, const char *s, size_t len, dom_node **out,
		    lab_err *err)
{
	return create_chars(doc, DOM_TEXT, s, len, out, err);
}

int dom_create_text_buf(dom_doc *doc, size_t len, char **buf, dom_node **out,
			lab_err *err)
{
	char *v = len < SIZE_MAX ? dom__arena_alloc(&doc->arena, len + 1) : NULL;
	dom_chars *c = v != NULL ? dom__new_chars_ref(doc, DOM_TEXT, v, len)
				 : NULL;

	*buf = NULL;
	*out = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	v[len] = '\0';
	*buf = v;
	*out = &c->base;
	return LAB_OK;
}

int dom_create_cdata(dom_doc *doc, const char *s, size_t len, dom_node **out,
		     lab_err *err)
{
	if (memmem(s, len, "]]>", 3) != NULL)
		return lab_fail(err, LAB_EUSAGE, "CDATA cannot contain ']]>'");
	return create_chars(doc, DOM_CDATA, s, len, out, err);
}

int dom_create_comment(dom_doc *doc, const char *s, size_t len,
		       dom_node **out, lab_err *err)
{
	if (memmem(s, len, "--", 2) != NULL || (len > 0 && s[len - 1] == '-'))
		return lab_fail(err, LAB_EUSAGE,
				"a comment cannot contain '--' or end in '-'");
	return create_chars(doc, DOM_COMMENT, s, len, out, err);
}

int dom_create_pi(dom_doc *doc, const char *target, const char *data,
		  dom_node **out, lab_err *err)
{
	const char *t;
	int rc;

	*out = NULL;
	if (target[0] == '\0' || strchr(target, ':') != NULL ||
	    strstr(data, "?>") != NULL)
		return lab_fail(err, LAB_EUSAGE, "bad processing instruction");
	t = dom_intern(doc, target, strlen(target));
	if (t == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = create_chars(doc, DOM_PI, data, strlen(data), out, err);
	if (rc == LAB_OK)
		dom__chars(*out)->target = t;
	return rc;
}

/* ---- reading ---- */

dom_type dom_node_type(const dom_node *n)
{
	return (dom_type)n->type;
}

dom_node *dom_parent(const dom_node *n)
{
	return n->parent;
}

dom_node *dom_first_child(const dom_node *n)
{
	dom__need(n);
	return n->first;
}

dom_node *dom_last_child(const dom_node *n)
{
	dom__need(n);
	return n->first != NULL ? n->first->prev : NULL;
}

dom_node *dom_next_sibling(const dom_node *n)
{
	return n->next;
}

dom_node *dom_prev_sibling(const dom_node *n)
{
	/* The first child's prev is the last child, not a sibling before it;
	 * a detached node's points at itself (or is unset). */
	return n->parent == NULL || n->parent->first == n ? NULL : n->prev;
}

const char *dom_local_name(const dom_node *n)
{
	if (n->type == DOM_ELEMENT)
		return dom__el(n)->name->local;
	if (n->type == DOM_PI)
		return dom__chars(n)->target;
	return NULL;
}

const char *dom_ns_uri(const dom_node *n)
{
	return n->type == DOM_ELEMENT ? dom__el(n)->name->ns : NULL;
}

const char *dom_prefix(const dom_node *n)
{
	return n->type == DOM_ELEMENT ? dom__el(n)->name->prefix : NULL;
}

const char *dom_value(const dom_node *n, size_t *len)
{
	if (n->type == DOM_ELEMENT || n->type == DOM_DOCUMENT) {
		if (len != NULL)
			*len = 0;
		return NULL;
	}
	if (len != NULL)
		*len = n->len;
	return dom__chars(n)->value;
}

char *dom_text_take(dom_node *n, size_t *len)
{
	dom_doc *doc = dom__doc(n);
	char *v;
	uint64_t gen;

	*len = 0;
	if ((n->type != DOM_TEXT && n->type != DOM_CDATA) || n->len == 0)
		return NULL;
	/* Every text's bytes are the document's, and its own: the arena's
	 * copy, or the insitu parser's text there. */
	v = (char *)(uintptr_t)dom__chars(n)->value;
	*len = n->len;
	dom__emit_changed(doc, n, DOM__CHANGE_OWN);
	gen = doc->gen;
	dom__touch(doc);
	dom__ids_unchanged(doc, gen);
	dom__chars(n)->value = doc->empty;
	n->len = 0;
	return v;
}

int dom_is(const dom_node *n, const char *ns, const char *local)
{
	return n->type == DOM_ELEMENT && dom__el(n)->name->local == local &&
	       dom__el(n)->name->ns == ns;
}

size_t dom_qname(const dom_node *n, char *out, size_t cap)
{
	const char *prefix = dom_prefix(n), *local = dom_local_name(n);
	size_t lp = prefix != NULL ? dom_names_len(prefix) + 1 : 0;
	size_t ll = local != NULL ? dom_names_len(local) : 0;

	if (lp + ll < cap) {
		if (lp > 0) {
			memcpy(out, prefix, lp - 1);
			out[lp - 1] = ':';
		}
		memcpy(out + lp, local != NULL ? local : "", ll);
		out[lp + ll] = '\0';
	}
	return lp + ll;
}

/* ---- changing ---- */

void dom__link_last(dom_node *parent, dom_node *child)
{
	dom_node *first = parent->first;

	child->parent = parent;
	child->next = NULL;
	if (first == NULL) {
		parent->first = child;
		child->prev = child;
	} else {
		child->prev = first->prev;
		first->prev->next = child;
		first->prev = child;
	}
}

static void unlink_node(dom_node *n)
{
	dom_node *parent = n->parent;

	if (parent == NULL)
		return;
	dom__emit_changed(dom__doc(n), n, DOM__CHANGE_LEAVES);
	if (parent->first == n) {
		parent->first = n->next;
		if (n->next != NULL)
			n->next->prev = n->prev;
	} else {
		n->prev->next = n->next;
		if (n->next != NULL)
			n->next->prev = n->prev;
		else
			parent->first->prev = n->prev;
	}
	n->parent = NULL;
	n->next = NULL;
	n->prev = n;
}

static int check_insert(dom_node *parent, dom_node *child, lab_err *err)
{
	const dom_node *a;

	if (dom__doc(parent) != dom__doc(child))
		return lab_fail(err, LAB_EUSAGE,
				"node belongs to another document");
	if (parent->type != DOM_ELEMENT && parent->type != DOM_DOCUMENT)
		return lab_fail(err, LAB_EUSAGE, "node cannot have children");
	if (child->type == DOM_DOCUMENT)
		return lab_fail(err, LAB_EUSAGE,
				"a document node cannot be a child");
	for (a = parent; a != NULL; a = a->parent)
		if (a == child)
			return lab_fail(err, LAB_EUSAGE,
					"node would become its own ancestor");
	return LAB_OK;
}

int dom_append(dom_node *parent, dom_node *child, lab_err *err)
{
	return dom_insert_before(parent, child, NULL, err);
}

int dom_insert_before(dom_node *parent, dom_node *child, dom_node *ref,
		      lab_err *err)
{
	int rc = check_insert(parent, child, err);

	if (rc != LAB_OK)
		return rc;
	if (ref != NULL && ref->parent != parent)
		return lab_fail(err, LAB_EUSAGE,
				"reference node is not a child of the parent");
	if (ref == child)
		return LAB_OK;
	/* The new child goes after the content the parent already has. */
	dom__need(parent);
	if (dom__deferred_failed(dom__doc(parent)))
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	unlink_node(child);
	dom__touch(dom__doc(parent));
	dom__emit_changed(dom__doc(parent), parent, DOM__CHANGE_CHILDREN);
	if (ref == NULL) {
		dom__link_last(parent, child);
		return LAB_OK;
	}
	child->parent = parent;
	child->next = ref;
	child->prev = ref->prev;
	if (parent->first == ref)
		parent->first = child;
	else
		ref->prev->next = child;
	ref->prev = child;
	return LAB_OK;
}

int dom_replace(dom_node *old, dom_node *with, lab_err *err)
{
	dom_node *parent = old->parent;
	int rc;

	if (parent == NULL)
		return lab_fail(err, LAB_EUSAGE, "node to replace is detached");
	if (old == with)
		return LAB_OK;
	rc = dom_insert_before(parent, with, old, err);
	if (rc == LAB_OK)
		dom_remove(old);
	return rc;
}

void dom_remove(dom_node *n)
{
	if (n->parent == NULL)
		return;
	unlink_node(n);
	dom__touch(dom__doc(n));
}

void dom_node_free(dom_node *n)
{
	if (n->type == DOM_DOCUMENT)
		return;
	dom_remove(n);
	dom__ud_subtree_release(n);
}

int dom_text_content(const dom_node *n, lab_buf *out)
{
	const dom_node *c = n;
	int rc = LAB_OK;

	/* lab_buf_put's own code: a writer's failure is LAB_EIO, not memory. */
	while (c != NULL && rc == LAB_OK) {
		if (c->type == DOM_TEXT || c->type == DOM_CDATA)
			rc = lab_buf_put(out, dom__chars(c)->value, c->len);
		c = dom__walk_next(c, n);
	}
	return rc;
}

void dom_doc_stats_get(dom_doc *doc, dom_doc_stats *out)
{
	const dom_node *c = &doc->node;

	memset(out, 0, sizeof *out);
	while (c != NULL) {
		switch (c->type) {
		case DOM_ELEMENT:
			out->elements++;
			out->attributes += dom__el(c)->attrs.count;
			out->nsdecls += c->len;
			break;
		case DOM_TEXT:
		case DOM_CDATA:
			out->texts++;
			break;
		case DOM_DOCUMENT:
			break;
		default:
			out->others++;
		}
		c = dom__walk_next(c, &doc->node);
	}
	out->arena_used = doc->arena.used;
	out->arena_held = doc->arena.held;
	out->allocs = doc->arena.allocs;
}

/* ---- user data: the userdata variant does the work ---- */

int dom_user_data_set(dom_node *n, const void *key, void *data,
		      dom_ud_free_fn free_fn, void *arg, lab_err *err)
{
	return dom__ud_set(n, key, data, free_fn, arg, err);
}

void *dom_user_data_get(const dom_node *n, const void *key)
{
	return dom__ud_get(n, key);
}
