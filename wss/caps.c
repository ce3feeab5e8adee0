/*
 * caps.c - the pre-authentication caps (caps.h): their defaults, flags
 * and refusal, and the bounded size measure SignedInfo is held to.
 * Not for: deciding where a cap is checked; the stages do (xenc.c,
 * dsig.c, keyid.c, wsse.c), each before the work it bounds.  Also the
 * fixed bound on one field's size.
 */
#include "wss/caps.h"

#include <string.h>

static const struct {
	const char *flag;
	size_t def;
	const char *what;
} info[WSS_NCAPS] = {
	{"--max-encrypted-keys", 5, "EncryptedKeys in the Security header"},
	{"--max-data-refs", 100, "DataReferences in one ReferenceList"},
	{"--max-data-refs-total", 200, "DataReferences in the Security header"},
	{"--max-references", 30, "References in SignedInfo"},
	{"--max-transforms", 5, "Transforms in one Reference"},
	{"--max-signedinfo", 65536, "bytes in SignedInfo"},
};

size_t wss_cap(const wss_caps *caps, wss_cap_kind k)
{
	return caps != NULL && caps->max[k] != 0 ? caps->max[k] : info[k].def;
}

const char *wss_cap_flag(wss_cap_kind k)
{
	return info[k].flag;
}

wss_cap_kind wss_cap_by_flag(const char *flag)
{
	int k;

	for (k = 0; k < WSS_NCAPS; k++)
		if (strcmp(flag, info[k].flag) == 0)
			break;
	return (wss_cap_kind)k;
}

int wss_cap_refuse(const wss_caps *caps, wss_cap_kind k, lab_err *err)
{
	size_t n = wss_cap(caps, k);

	return lab_fail(err, LAB_ESECURITY,
			"more than %zu %s: over the limit of %zu (%s)", n,
			info[k].what, n, info[k].flag);
}

/* What n adds to its subtree's written size: markup and content. */
static size_t own_size(const dom_node *n)
{
	const dom_nsdecl *ns;
	size_t len = 0, count, i;

	if (dom_node_type(n) != DOM_ELEMENT) {
		(void)dom_value(n, &len);
		return len;
	}
	/* <q>, </q>; each ` q="v"`; each ` xmlns:p="u"`. */
	len = 2 * dom_qname(n, NULL, 0) + 5;
	for (i = 0; i < dom_attr_count(n); i++) {
		const dom_attr *a = dom_attr_at(n, i);
		const char *p = dom_attr_prefix(a);

		len += (p != NULL ? strlen(p) + 1 : 0) +
		       strlen(dom_attr_local(a)) + a->len + 4;
	}
	ns = dom_ns_decls(n, &count);
	for (i = 0; i < count; i++)
		len += (ns[i].prefix != NULL ? strlen(ns[i].prefix) + 1 : 0) +
		       strlen(ns[i].uri) + 9;
	return len;
}

int wss_cap_size_within(const dom_node *top, size_t limit)
{
	const dom_node *n = top;
	size_t total = 0;

	while (n != NULL) {
		const dom_node *next = dom_first_child(n);

		total += own_size(n);
		if (total > limit)
			return 0;
		while (next == NULL && n != top) {
			next = dom_next_sibling(n);
			n = dom_parent(n);
		}
		n = next;
	}
	return 1;
}

int wss_field_within(const dom_node *el, size_t max, const char *why,
		     lab_err *err)
{
	const dom_node *n = dom_first_child(el);
	size_t total = 0, len;

	/* Every text below el, as dom_text_content reads it. */
	while (n != NULL && total <= max) {
		const dom_node *next = dom_first_child(n);

		if (dom_node_type(n) == DOM_TEXT ||
		    dom_node_type(n) == DOM_CDATA) {
			(void)dom_value(n, &len);
			total += len;
		}
		while (next == NULL && n != el) {
			next = dom_next_sibling(n);
			n = dom_parent(n);
		}
		n = next;
	}
	if (total <= max)
		return LAB_OK;
	return lab_fail(err, LAB_ESECURITY,
			"<%s> holds more than %zu characters: over the limit of "
			"%zu (%s)",
			dom_local_name(el), max, max, why);
}
