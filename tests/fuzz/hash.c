/*
 * hash.c - libFuzzer target: the hash axis (dom/hash.h).  Output never
 * depends on the hash, only where entries sit in the tables: so every
 * input is parsed under three hashes, hash=fixed's function, hash=keyed's
 * SipHash-1-3 under a key taken from the input's first 16 bytes, and a
 * constant, under which every entry of every table collides.  The
 * verdict (and the refusal's message), the serialized tree and what the
 * tables answer -- each attribute found by its name, each ID value's
 * element and count -- must be the same under the three.
 *
 * The target supplies the axis itself: both choices' files are compiled
 * in here under other names, and the definitions below, which stand in
 * for the variant's, pick one per parse.  A table lives in one document
 * and the document is freed before the hash changes.
 * Not for: the key's source (dom/hash_key.c) or the token store's table
 * (the receive targets fill it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"
#include "dom/hash.h"
#include "wss/profile.h"

/* The two choices under names of their own. */
#define dom__hash_choice fixed_choice
#define dom__hash_key_unset fixed_key_unset
#define dom__hash_set_key fixed_set_key
#define dom__hash_bytes fixed_bytes
#define dom__hash_ptrs fixed_ptrs
#include "variants/hash/fixed.c"
#undef dom__hash_choice
#undef dom__hash_key_unset
#undef dom__hash_set_key
#undef dom__hash_bytes
#undef dom__hash_ptrs
#define dom__hash_choice keyed_choice
#define dom__hash_key_unset keyed_key_unset
#define dom__hash_set_key keyed_set_key
#define dom__hash_bytes keyed_bytes
#define dom__hash_ptrs keyed_ptrs
#include "variants/hash/keyed.c"
#undef dom__hash_choice
#undef dom__hash_key_unset
#undef dom__hash_set_key
#undef dom__hash_bytes
#undef dom__hash_ptrs

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FIXED, KEYED, CONSTANT, HASHES };

static int hash_now;

/* The axis as the library sees it.  Not keyed: no key is drawn from the
 * OS; the keyed hash takes the input's. */
const char dom__hash_choice[] = "fuzz";

int dom__hash_key_unset(unsigned char k[16], lab_err *err)
{
	(void)k;
	(void)err;
	return LAB_OK;
}

void dom__hash_set_key(const unsigned char k[16])
{
	(void)k;
}

uint32_t dom__hash_bytes(const void *p, size_t len)
{
	if (hash_now == FIXED)
		return fixed_bytes(p, len);
	return hash_now == KEYED ? keyed_bytes(p, len) : 7;
}

uint32_t dom__hash_ptrs(const void *a, const void *b, const void *c)
{
	if (hash_now == FIXED)
		return fixed_ptrs(a, b, c);
	return hash_now == KEYED ? keyed_ptrs(a, b, c) : 7;
}

/* Whether a is an ID attribute, as dom/ids.c decides: Id in no
 * namespace or in wsu's, or ID in no namespace.  An Id in any other
 * namespace is an attribute like the rest. */
static int is_id(const dom_attr *a)
{
	const char *local = dom_attr_local(a), *ns = dom_attr_ns(a);

	if (strcmp(local, "Id") == 0)
		return ns == NULL || strcmp(ns, WSS_NS_WSU) == 0;
	return strcmp(local, "ID") == 0 && ns == NULL;
}

/* Whether el carries id as an ID attribute. */
static int carries(const dom_node *el, const char *id)
{
	size_t i;

	for (i = 0; i < dom_attr_count(el); i++)
		if (is_id(dom_attr_at(el, i)) &&
		    strcmp(dom_attr_at(el, i)->value, id) == 0)
			return 1;
	return 0;
}

/* What the tables answer about el's attributes, appended to out: each is
 * found by its name, and each ID value gives an element that carries it
 * (el itself when it is the only one; else abort) and its count. */
static void answers(dom_doc *doc, const dom_node *el, lab_buf *out)
{
	size_t i, count;

	for (i = 0; i < dom_attr_count(el); i++) {
		const dom_attr *a = dom_attr_at(el, i);
		const dom_node *by;

		if (dom_attr_get(el, dom_attr_ns(a), dom_attr_local(a)) != a)
			abort();
		if (!is_id(a))
			continue;
		by = dom_get_by_id(doc, a->value, &count);
		if (by == NULL || !carries(by, a->value) ||
		    (count == 1 && by != el) ||
		    lab_buf_printf(out, " %zu", count) != LAB_OK)
			abort();
	}
}

/* The verdict, the serialized tree and the tables' answers under hash h. */
static void trace(const uint8_t *data, size_t size, int h, lab_buf *out)
{
	dom_doc *doc = NULL;
	const dom_node *n, *root;
	lab_err err;

	hash_now = h;
	if (dom_parse((const char *)data, size, NULL, &doc, &err) != LAB_OK) {
		if (lab_buf_printf(out, "refused: %s", err.msg) != LAB_OK)
			abort();
		return;
	}
	if (dom_serialize(dom_doc_node(doc), out, &err) != LAB_OK)
		abort();
	root = dom_doc_element(doc);
	for (n = root; n != NULL;) {
		const dom_node *next = dom_first_child(n);

		if (dom_node_type(n) == DOM_ELEMENT)
			answers(doc, n, out);
		while (next == NULL && n != root) {
			next = dom_next_sibling(n);
			n = dom_parent(n);
		}
		n = next;
	}
	dom_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char k[16] = {0};
	lab_buf t[HASHES] = {LAB_BUF_INIT, LAB_BUF_INIT, LAB_BUF_INIT};
	int h;

	memcpy(k, data, size < sizeof k ? size : sizeof k);
	keyed_set_key(k);
	for (h = 0; h < HASHES; h++) {
		trace(data, size, h, &t[h]);
		if (h > 0 && (t[h].len != t[0].len ||
			      memcmp(t[h].data, t[0].data, t[0].len) != 0))
			abort();
	}
	for (h = 0; h < HASHES; h++)
		lab_buf_free(&t[h]);
	return 0;
}
