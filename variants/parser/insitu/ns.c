/*
 * ns.c - namespaces in the insitu parser: the bindings a start
 * tag's declarations make (checked as libxml2 checks them), looking a
 * prefix up in them, and the two uniqueness rules for a tag's attributes
 * (no name twice, no (namespace, local) twice).
 * Not for: resolving names on the hot path, which the spelling memo in
 * variants/parser/insitu/parse.c answers without coming here.
 */
#include "variants/parser/insitu/state.h"

#include "dom/hash.h"

/*
 * The first attribute whose key (k1, k2) an earlier one has, or -1.
 * byns: the key is (namespace, local) and declarations are left out;
 * else it is (prefix, local), declarations keyed apart by `ps`.
 */
long dom__insitu_duplicate(parser *ps, size_t n, int byns)
{
	size_t i, j, mask;

#define K1(a) (byns ? (const void *)(a)->name->ns \
		    : (a)->decl ? (const void *)ps : (const void *)(a)->prefix)
#define K2(a) ((const void *)(a)->local)
#define SKIP(a) (byns && (a)->decl)
	if (n <= 8) {
		for (i = 1; i < n; i++) {
			if (SKIP(&ps->attrs[i]))
				continue;
			for (j = 0; j < i; j++)
				if (!SKIP(&ps->attrs[j]) &&
				    K1(&ps->attrs[j]) == K1(&ps->attrs[i]) &&
				    K2(&ps->attrs[j]) == K2(&ps->attrs[i]))
					return (long)i;
		}
		return -1;
	}
	if (grow((void **)&ps->seen, &ps->capseen, 4 * n, sizeof *ps->seen) != 0)
		return -2;
	mask = 1;
	while (mask < 2 * n)
		mask <<= 1;
	memset(ps->seen, 0, mask * sizeof *ps->seen);
	mask--;
	for (i = 0; i < n; i++) {
		const rawattr *a = &ps->attrs[i];

		if (SKIP(a))
			continue;
		for (j = dom__hash_ptrs(K1(a), K2(a), NULL) & mask; ps->seen[j] != 0;
		     j = (j + 1) & mask) {
			const rawattr *b = &ps->attrs[ps->seen[j] - 1];

			if (K1(b) == K1(a) && K2(b) == K2(a))
				return (long)i;
		}
		ps->seen[j] = (uint32_t)i + 1;
	}
	return -1;
#undef K1
#undef K2
#undef SKIP
}

const char *dom__insitu_lookup(const parser *ps, const char *prefix)
{
	size_t i = ps->nbinds;

	if (prefix == ps->doc->xml_prefix)
		return ps->doc->xml_ns;
	while (i-- > 0)
		if (ps->binds[i].prefix == prefix)
			return ps->binds[i].uri;
	return NULL;
}

/* The declarations among n attributes: checked, bound, counted (*ndecls
 * kept, *nxmlns all the xmlns attributes). */
int dom__insitu_declare(parser *ps, size_t n, size_t *ndecls, size_t *nxmlns)
{
	dom_doc *doc = ps->doc;
	size_t i;

	*ndecls = 0;
	*nxmlns = 0;
	for (i = 0; i < n; i++) {
		rawattr *a = &ps->attrs[i];
		const char *uri;
		int is_xml = a->vlen == sizeof DOM_XML_NS - 1 &&
			     memcmp(a->value, DOM_XML_NS, a->vlen) == 0;

		if (!a->decl)
			continue;
		(*nxmlns)++;
		if (a->local == doc->xml_prefix) {
			if (!is_xml)
				return MALFORMED(ps, a->end, "the xml prefix "
						 "cannot be bound to another "
						 "namespace");
			/* Always in scope: libxml2 records no declaration. */
			a->decl = 2;
			continue;
		}
		if (a->local != NULL && strcmp(a->local, "xmlns") == 0)
			return MALFORMED(ps, a->end, "the xmlns prefix cannot be "
					 "declared");
		if (is_xml || (a->vlen == sizeof XMLNS_NS - 1 &&
			       memcmp(a->value, XMLNS_NS, a->vlen) == 0))
			return MALFORMED(ps, a->end, "the namespace '%s' cannot "
					 "be declared", a->value);
		if (!dom__insitu_uri_chars(a->value, a->vlen))
			return MALFORMED(ps, a->end, "namespace name '%s' is not "
					 "a URI", a->value);
		if (a->local != NULL && a->vlen == 0)
			return MALFORMED(ps, a->end, "prefix '%s' cannot be bound "
					 "to an empty namespace", a->local);
		uri = intern(ps, a->value, a->vlen);
		if (uri == NULL ||
		    grow((void **)&ps->binds, &ps->capbinds, ps->nbinds + 1,
			 sizeof *ps->binds) != 0)
			return nomem(ps);
		a->ns = uri;
		/* Noted as read, so that content left unbuilt counts too. */
		dom__note_ns(doc, uri);
		ps->binds[ps->nbinds].prefix = a->local;
		ps->binds[ps->nbinds].uri = uri;
		ps->nbinds++;
		ps->scope++;
		/* Bounds the work of each lookup (dom__insitu_lookup, c14n's
		 * stacks) and libxml2's; the same limit on both parsers. */
		if (ps->nbinds > ps->lim->max_ns)
			return MALFORMED(ps, a->end, "%zu namespace declarations "
					 "in scope, over the limit of %zu",
					 ps->nbinds, ps->lim->max_ns);
		(*ndecls)++;
	}
	return LAB_OK;
}
