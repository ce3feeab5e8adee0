/*
 * test_diff.c - differential: the same bytes parsed by dom_parse and by
 * libxml2's own tree builder (xmlReadMemory, NONET | NOENT, blanks kept)
 * must give the same tree: node types, names, namespace URIs and
 * prefixes, namespace declarations in order, attribute (ns, local,
 * prefix, value) sets, and character data.  Run over every generator
 * kind, 50 random seeds, the data/roundtrip files and 300 documents
 * made of the constructs a parser gets wrong (markup_seeds): under
 * parser=insitu this is what checks domlab's own parser against libxml2.
 * Not tested here: serialization (test_roundtrip.c), or the DTD-less
 * limits and refusals, where domlab is stricter on purpose.
 */
#include <dirent.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>

#include "tests/util.h"

static const char *xs(const xmlChar *s)
{
	return (const char *)s;
}

/* libxml2's DTD node has no counterpart in our tree. */
static xmlNodePtr skip_dtd(xmlNodePtr x)
{
	while (x != NULL && x->type == XML_DTD_NODE)
		x = x->next;
	return x;
}

static dom_type type_of(xmlElementType t)
{
	switch (t) {
	case XML_ELEMENT_NODE: return DOM_ELEMENT;
	case XML_TEXT_NODE: return DOM_TEXT;
	case XML_CDATA_SECTION_NODE: return DOM_CDATA;
	case XML_COMMENT_NODE: return DOM_COMMENT;
	case XML_PI_NODE: return DOM_PI;
	default: return (dom_type)0;
	}
}

static void same_decls(const dom_node *o, xmlNodePtr x)
{
	size_t n, i = 0;
	const dom_nsdecl *d = dom_ns_decls(o, &n);
	xmlNsPtr ns;

	for (ns = x->nsDef; ns != NULL; ns = ns->next, i++) {
		if (!CHECK_MSG(i < n, "<%s>: fewer namespace declarations",
			       xs(x->name)))
			return;
		CHECK_EQ_STR(d[i].prefix, xs(ns->prefix));
		CHECK_EQ_STR(d[i].uri, ns->href != NULL ? xs(ns->href) : "");
	}
	CHECK_MSG(i == n, "<%s>: %zu namespace declarations, want %zu",
		  xs(x->name), n, i);
}

static void same_attrs(const dom_node *o, xmlNodePtr x)
{
	xmlAttrPtr a;
	size_t n = 0;

	for (a = x->properties; a != NULL; a = a->next, n++) {
		const char *ns = a->ns != NULL ? xs(a->ns->href) : NULL;
		const dom_attr *at = dom_attr_get_str(o, ns, xs(a->name));
		xmlChar *v;

		if (!CHECK_MSG(at != NULL, "<%s>: no attribute {%s}%s",
			       xs(x->name), ns ? ns : "", xs(a->name)))
			continue;
		CHECK_EQ_STR(dom_attr_prefix(at), a->ns != NULL ? xs(a->ns->prefix)
						       : NULL);
		v = xmlNodeListGetString(x->doc, a->children, 1);
		CHECK_EQ_MEM(at->value, at->len, v != NULL ? xs(v) : "",
			     v != NULL ? strlen(xs(v)) : 0);
		xmlFree(v);
	}
	CHECK_EQ_INT(dom_attr_count(o), n);
}

static void same_node(const dom_node *o, xmlNodePtr x);

static void same_children(const dom_node *o, xmlNodePtr x)
{
	const dom_node *c = dom_first_child(o);
	xmlNodePtr xc = skip_dtd(x->children);

	for (; c != NULL && xc != NULL;
	     c = dom_next_sibling(c), xc = skip_dtd(xc->next))
		same_node(c, xc);
	CHECK_MSG(c == NULL && xc == NULL, "<%s>: %s children than libxml2",
		  x->name != NULL ? xs(x->name) : "document",
		  c != NULL ? "more" : "fewer");
}

/* Recursion is bounded by libxml2's own depth cap of 256. */
static void same_node(const dom_node *o, xmlNodePtr x)
{
	const char *v;
	size_t len;

	if (!CHECK_MSG(dom_node_type(o) == type_of(x->type),
		       "node type %d, libxml2 has %d", (int)dom_node_type(o),
		       (int)x->type))
		return;
	if (x->type == XML_ELEMENT_NODE) {
		CHECK_EQ_STR(dom_local_name(o), xs(x->name));
		CHECK_EQ_STR(dom_ns_uri(o), x->ns ? xs(x->ns->href) : NULL);
		CHECK_EQ_STR(dom_prefix(o), x->ns ? xs(x->ns->prefix) : NULL);
		same_decls(o, x);
		same_attrs(o, x);
		same_children(o, x);
		return;
	}
	if (x->type == XML_PI_NODE)
		CHECK_EQ_STR(dom_local_name(o), xs(x->name));
	v = dom_value(o, &len);
	CHECK_EQ_MEM(v, len, x->content ? xs(x->content) : "",
		     x->content ? strlen(xs(x->content)) : 0);
}

static void compare(const char *buf, size_t len, int options)
{
	dom_doc *doc = T_PARSE_N(buf, len);
	xmlDocPtr x = xmlReadMemory(buf, (int)len, NULL, NULL, options);

	if (CHECK_MSG(x != NULL, "libxml2 refused the document") &&
	    doc != NULL)
		same_children(dom_doc_node(doc), (xmlNodePtr)x);
	xmlFreeDoc(x);
	dom_doc_free(doc);
}

enum { OPTIONS = XML_PARSE_NONET | XML_PARSE_NOENT };

static void gen_kinds(void)
{
	size_t i;

	for (i = 0; i < t_gen_ncases; i++) {
		lab_buf in = LAB_BUF_INIT;

		t_context("%s", t_gen_cases[i].name);
		if (T_GEN(&t_gen_cases[i].opts, &in))
			compare(in.data, in.len, OPTIONS);
		lab_buf_free(&in);
	}
}

static void random_seeds(void)
{
	uint64_t seed;

	for (seed = 5000; seed < 5050; seed++) {
		lab_gen_opts o = {LAB_GEN_RANDOM, 0, 0, seed, 0};
		lab_buf in = LAB_BUF_INIT;

		o.count = 20 + (size_t)(seed % 7) * 40;
		t_context("random seed %llu", (unsigned long long)seed);
		if (T_GEN(&o, &in))
			compare(in.data, in.len, OPTIONS);
		lab_buf_free(&in);
	}
}

/*
 * Random documents built from the pieces a parser gets wrong: every
 * reference form, line ends (CR, CRLF) in text, values, comments, PIs and
 * CDATA, white space in attribute values, the xml prefix, prefixes bound,
 * rebound and shadowed, xmlns="" and non-ASCII names.
 */
typedef struct rng {
	uint64_t s;
} rng;

static unsigned pick(rng *r, unsigned n)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (unsigned)(r->s % n);
}

static void chars(lab_buf *b, rng *r, char quote)
{
	static const char *const pieces[] = {
		"text", " ", "\t", "\n", "\r\n", "\r", "&amp;", "&lt;", "&gt;",
		"&quot;", "&apos;", "&#9;", "&#xA;", "&#13;", "&#x1F600;",
		"&#233;", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", ">",
		"]x", "'", "\"", "a]]b", "\x7f",
	};
	unsigned i, n = pick(r, 6);

	for (i = 0; i < n; i++) {
		const char *p = pieces[pick(r, sizeof pieces / sizeof pieces[0])];

		if (quote != 0 && p[0] == quote && p[1] == '\0')
			p = quote == '"' ? "&quot;" : "&apos;";
		lab_buf_puts(b, p);
	}
}

static void misc(lab_buf *b, rng *r)
{
	switch (pick(r, 5)) {
	case 0:
		lab_buf_puts(b, "<!-- c -\r\n- -->");
		break;
	case 1:
		lab_buf_puts(b, "<?pi  data\r\nmore ?>");
		break;
	case 2:
		lab_buf_puts(b, "<?empty?>");
		break;
	case 3:
		lab_buf_puts(b, "<!---->");
		break;
	default:
		lab_buf_puts(b, "\r\n ");
	}
}

static void element(lab_buf *b, rng *r, int depth)
{
	static const char *const names[] = {
		"a", "p:b", "q:c", "d", "\xc3\xa9l\xc3\xa9ment", "x-y.z_1", "p:e",
	};
	static const char *const decls[] = {
		"", " xmlns=\"urn:d\"", " xmlns=\"\"", " xmlns:p=\"urn:p2\"",
		" xmlns:q=\"urn:p\"", " xmlns:p=\"urn:q&amp;\"",
		" xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"",
	};
	static const char *const prefixes[] = {"", "p:", "q:", "xml:"};
	static const char *const locals[] = {"x", "y", "lang", "z"};
	const char *name = names[pick(r, sizeof names / sizeof names[0])];
	unsigned i, n;

	lab_buf_printf(b, "<%s", name);
	if (depth == 0)
		lab_buf_puts(b, " xmlns:p=\"urn:p\" xmlns:q=\"urn:q\"");
	else
		lab_buf_puts(b, decls[pick(r, sizeof decls / sizeof decls[0])]);
	/* Distinct local names: no duplicate even when p and q share a URI. */
	for (i = 0, n = pick(r, 5); i < n; i++) {
		char quote = pick(r, 2) ? '"' : '\'';

		lab_buf_printf(b, "%s%s%s%s=%c", pick(r, 3) ? " " : "\r\n\t",
			       prefixes[pick(r, 4)], locals[i],
			       pick(r, 2) ? "" : " ", quote);
		chars(b, r, quote);
		lab_buf_putc(b, quote);
	}
	if (pick(r, 5) == 0) {
		lab_buf_puts(b, pick(r, 2) ? "/>" : " />");
		return;
	}
	lab_buf_putc(b, '>');
	for (i = 0, n = pick(r, 6); i < n; i++) {
		switch (pick(r, 6)) {
		case 0:
			/* Text after it: libxml2's tree merges adjacent
			 * CDATA sections, which ours keeps apart. */
			lab_buf_puts(b, "<![CDATA[ <&]\r\n]> ]]]]>t");
			break;
		case 1:
			misc(b, r);
			break;
		case 2:
			if (depth < 6) {
				element(b, r, depth + 1);
				break;
			}
			/* fall through */
		default:
			chars(b, r, 0);
		}
	}
	lab_buf_printf(b, "</%s\r\n>", name);
}

static void markup_seeds(void)
{
	static const char *const decls[] = {
		"", "<?xml version=\"1.0\"?>",
		"<?xml version='1.0' encoding='UTF-8' standalone='yes'?>\r\n",
		"\xef\xbb\xbf<?xml version=\"1.0\" standalone=\"no\" ?>",
	};
	uint64_t seed;

	for (seed = 1; seed <= 300; seed++) {
		rng r = {seed * 0x9e3779b97f4a7c15ULL};
		lab_buf in = LAB_BUF_INIT;

		lab_buf_puts(&in, decls[pick(&r, 4)]);
		misc(&in, &r);
		element(&in, &r, 0);
		misc(&in, &r);
		t_context("markup seed %llu: %.300s", (unsigned long long)seed,
			  in.data);
		compare(in.data, in.len, OPTIONS);
		lab_buf_free(&in);
	}
}

/*
 * Documents that repeat sequences of tag and attribute names and then
 * break them: insitu takes a name that comes where the same name came
 * last time without scanning it (variants/parser/insitu/parse.c, predicted()),
 * so a name continued past the predicted one, an element named xmlns
 * where an xmlns attribute comes next, a prefix rebound between repeats,
 * and more attribute names than the memo has slots must all still parse
 * as libxml2 parses them.
 */
static void name_sequences(void)
{
	static const char *const docs[] = {
		"<r><a/><xmlns/><a/><xmlns/><a xmlns=\"urn:x\"/></r>",
		"<r><a/><xmlns/><a/><xmlns/><a xmlns=\"urn:x\"><xmlns/></a></r>",
		("<r xmlns:a=\"urn:a\"><i x=\"1\"/><i x=\"2\"/><i xy=\"3\"/>"
		 "<i x=\"4\"/><i x:y=\"5\" xmlns:x=\"urn:x\"/><i x=\"6\"/>"
		 "<item/><i/><i x=\"7\"/><a:i x=\"8\"/><i x=\"9\"/></r>"),
		("<r xmlns:p=\"urn:1\"><p:e p:a=\"1\"/><p:e p:a=\"2\"/>"
		 "<p:e p:a=\"3\" xmlns:p=\"urn:2\"/><p:e p:a=\"4\"/>"
		 "<q xmlns:p=\"urn:3\"><p:e p:a=\"5\"/><p:e p:a=\"6\"/></q>"
		 "<p:e p:a=\"7\"/></r>"),
		("<r><longer-than-8:name longer-than-8:attr=\"v\" "
		 "xmlns:longer-than-8=\"urn:l\"/><longer-than-8:name "
		 "longer-than-8:attr=\"v\" xmlns:longer-than-8=\"urn:m\"/>"
		 "<longer-than-8:name longer-than-8:attribute=\"v\" "
		 "xmlns:longer-than-8=\"urn:m\"/></r>"),
		("<r><e e=\"1\"><e e=\"2\"/></e><e e=\"3\" f=\"4\"/>"
		 "<e e=\"5\" f=\"6\"/><f f=\"7\" e=\"8\"/></r>"),
	};
	lab_buf in = LAB_BUF_INIT;
	size_t i, j;

	for (i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		t_context("name sequence %zu: %s", i, docs[i]);
		compare(docs[i], strlen(docs[i]), OPTIONS);
	}
	/* An element named xmlns whose spelling shares a memo slot with a
	 * name predicted before it (every two-letter name, so one shares
	 * it whatever the slot function): the xmlns attribute after it is
	 * still a declaration. */
	for (i = 0; i < 26 * 26; i++) {
		char f[3] = {(char)('a' + i / 26), (char)('a' + i % 26), 0};

		lab_buf_printf(&in, "<r><a/><%s/><a/><%s/><a/><xmlns/>"
			       "<a xmlns=\"urn:x\"><b/></a></r>", f, f);
		t_context("element xmlns after %s", f);
		compare(in.data, in.len, OPTIONS);
		in.len = 0;
	}
	/* 300 attribute names on repeated tags: the memo's 256 slots are
	 * taken over while a tag's names are read. */
	lab_buf_puts(&in, "<r>");
	for (i = 0; i < 4; i++) {
		lab_buf_printf(&in, "<e%zu", i % 2);
		for (j = 0; j < 300; j++)
			lab_buf_printf(&in, " a%zu=\"%zu\"", (j * 7 + i) % 300,
				       j);
		lab_buf_puts(&in, "/>");
	}
	lab_buf_puts(&in, "</r>");
	t_context("300 attribute names");
	compare(in.data, in.len, OPTIONS);
	lab_buf_free(&in);
}

/* The data files; DTDATTR so libxml2 applies attribute defaults too. */
static void data_files(void)
{
	char dir[1024], path[1300];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	t_data_path(dir, sizeof dir, "roundtrip");
	d = opendir(dir);
	if (!CHECK_MSG(d != NULL, "cannot open %s", dir))
		return;
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		lab_buf in = LAB_BUF_INIT;

		if (len <= 4 || strcmp(e->d_name + len - 4, ".xml") != 0)
			continue;
		t_context("roundtrip/%s", e->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (!CHECK(t_read_file(path, &in) == 0))
			;
		else if (!t_reads_dtds() &&
			 memmem(in.data, in.len, "<!DOCTYPE", 9) != NULL)
			T_DTD_REFUSED(in.data, in.len, e->d_name);
		else
			compare(in.data, in.len, OPTIONS | XML_PARSE_DTDATTR);
		lab_buf_free(&in);
		n++;
	}
	closedir(d);
	t_context(NULL);
	CHECK_MSG(n >= 20, "only %zu files in %s", n, dir);
}

/*
 * The comparison must notice each kind of difference: pairs of documents
 * that differ in one respect, ours parsed by dom_parse and theirs by
 * libxml2, each giving at least one failed check.
 */
static const struct {
	const char *ours, *theirs;
} differ[] = {
	{"<a x=\"1\"/>", "<a x=\"2\"/>"},
	{"<a x=\"1\"/>", "<a y=\"1\"/>"},
	{"<a x=\"1\"/>", "<a x=\"1\" y=\"2\"/>"},
	{"<a xmlns:p=\"urn:1\" p:x=\"1\"/>", "<a xmlns:q=\"urn:1\" q:x=\"1\"/>"},
	{"<a xmlns:p=\"urn:1\" p:x=\"1\"/>", "<a xmlns:p=\"urn:2\" p:x=\"1\"/>"},
	{"<a xmlns=\"urn:1\"/>", "<a/>"},
	{"<p:a xmlns:p=\"urn:1\"/>", "<q:a xmlns:q=\"urn:1\"/>"},
	{"<a xmlns:p=\"urn:1\" xmlns:q=\"urn:2\"/>",
	 "<a xmlns:q=\"urn:2\" xmlns:p=\"urn:1\"/>"},
	{"<a>t</a>", "<a>u</a>"},
	{"<a>t</a>", "<a><![CDATA[t]]></a>"},
	{"<a><b/></a>", "<a><b/><b/></a>"},
	{"<a><b/></a>", "<a><c/></a>"},
	{"<a><?p d?></a>", "<a><?q d?></a>"},
	{"<a><!--c--></a>", "<a><!--d--></a>"},
};

static void detects_difference(void)
{
	size_t i;

	for (i = 0; i < sizeof differ / sizeof differ[0]; i++) {
		const char *t = differ[i].theirs;
		dom_doc *doc = T_PARSE(differ[i].ours);
		xmlDocPtr x = xmlReadMemory(t, (int)strlen(t), NULL, NULL,
					    OPTIONS);

		if (CHECK(doc != NULL && x != NULL)) {
			t_mute_begin();
			same_children(dom_doc_node(doc), (xmlNodePtr)x);
			CHECK_MSG(t_mute_end() > 0, "no difference seen "
				  "between %s and %s", differ[i].ours, t);
		}
		xmlFreeDoc(x);
		dom_doc_free(doc);
	}
}

const t_case tests_diff[] = {
	{"diff/gen_kinds", gen_kinds},
	{"diff/random_seeds", random_seeds},
	{"diff/data_files", data_files},
	{"diff/markup_seeds", markup_seeds},
	{"diff/name_sequences", name_sequences},
	{"diff/detects_difference", detects_difference},
	{NULL, NULL},
};
