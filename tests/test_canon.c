/*
 * test_canon.c - content that stands for itself in a digest
 * (dom_canonical_content; parser=insitu with emit other than tree):
 * after dom_replace_parsed, exclusive C14N of the parent takes the kept
 * bytes instead of walking the nodes when the parser proved them
 * canonical; under emit=canonical, a document parsed whole keeps the
 * canonical form of its Body's content (attributes put in order) too.
 *
 * Each case replaces a placeholder by a fragment, canonicalizes the
 * parent, and compares with the same parent in the document parsed
 * whole, both as parsed and after a change inside that ends what it
 * kept (so a walk): the three must always agree.  Each case also says
 * whether the bytes are canonical, and the build must find exactly that
 * where it can answer: a "yes" too many is a digest over bytes that are
 * not the canonical form, a "no" too many an optimisation that silently
 * never runs.  Then the shortcut's limits: a PrefixList, inclusive C14N,
 * a left-out node inside, changes inside the content and around it;
 * and a parse for signing, which puts such content in order in place.
 * Not tested here: the walk itself (test_c14n.c, against libxml2's
 * suite) and signatures over it (test_wss.c).
 */
#include <stdio.h>

#include "dom/permute.h"
#include "tests/util.h"
#include "wss/c14n.h"

/* Hosts, each with a placeholder <x/> as the only child of Body. */
/* Body renders e and w; u is in scope and not rendered. */
static const char renders_prefixes[] =
	"<e:Env xmlns:e=\"urn:e\" xmlns:w=\"urn:w\" xmlns:u=\"urn:u\">"
	"<e:Body w:Id=\"b\"><x/></e:Body></e:Env>";
/* A default namespace in scope that Body does not render. */
static const char default_above[] =
	"<Env xmlns=\"urn:d\" xmlns:e=\"urn:e\"><e:Body><x/></e:Body></Env>";
/* Body renders the default namespace. */
static const char renders_default[] = "<Body xmlns=\"urn:d\"><x/></Body>";
/* Body renders five prefixes, one more than build=deferred's check pass
 * follows inside a Body child (DOM__CANON_PREFIXES). */
static const char renders_five[] =
	"<e:Env xmlns:e=\"urn:e\" xmlns:f=\"urn:f\" xmlns:g=\"urn:g\" "
	"xmlns:h=\"urn:h\" xmlns:i=\"urn:i\"><e:Body f:k=\"1\" g:k=\"1\" "
	"h:k=\"1\" i:k=\"1\"><x/></e:Body></e:Env>";
static const char *const hosts[] = {renders_prefixes, default_above,
				    renders_default, renders_five};

/*
 * canonical: 1 yes; ORDER once its attributes are put in order, which
 * only a document parsed whole does (and only for a tag without
 * declarations); 0 no.  BUILT added: yes only where a Body child's
 * content is built, no under build=deferred, whose check pass leaves to
 * the walk content it does not follow (an attribute with a prefix, more
 * prefixes than it notes), parsed whole or replaced.
 */
enum { ORDER = 2, BUILT = 4 };
typedef struct canon_case {
	int host;
	int canonical;
	const char *frag;
} canon_case;

static const canon_case cases[] = {
	/* Canonical. */
	{0, 1, "<a xmlns=\"urn:a\">t</a>"},
	{0, 1, "\n<m:a xmlns:m=\"urn:m\" x=\"1\" y=\"2\"><m:b>t&amp;&lt;&gt;"
	       "&#xD;\xc3\xa9</m:b></m:a>\n"},
	{0, 1, "<a b=\"&quot;&amp;&lt;&#x9;&#xA;&#xD;>'\"></a>"},
	{0, 1, "<a xmlns:p=\"urn:p\" xmlns:q=\"urn:q\" z=\"1\" p:b=\"3\" "
	       "q:a=\"2\"></a>"},
	{0, 1, "<e:x w:y=\"1\">t</e:x>"},
	{0, 1, "<m:a xmlns:m=\"urn:m\"><m:b xmlns:m=\"urn:n\"></m:b></m:a>"},
	{0, 1, "<a xml:lang=\"en\"></a>"},
	{0, 1, "<a xmlns=\"urn:a\"><b></b><c xmlns=\"\"></c></a>"},
	{0, 1, "text only &amp; more"},
	{1, 1, "<a xmlns=\"urn:d\"></a>"},
	{2, 1, "<a></a><b xmlns=\"\"></b>"},
	/* Forms exc-c14n never writes. */
	{0, 0, "<a xmlns=\"urn:a\"/>"},
	{0, 0, "<a  xmlns=\"urn:a\"></a>"},
	{0, 0, "<a xmlns=\"urn:a\" ></a>"},
	{0, 0, "<a\txmlns=\"urn:a\"></a>"},
	{0, 0, "<a xmlns =\"urn:a\"></a>"},
	{0, 0, "<a xmlns= \"urn:a\"></a>"},
	{0, 0, "<a xmlns='urn:a'></a>"},
	{0, 0, "<a xmlns=\"urn:a\"></a >"},
	{0, 0, "<a>x>y</a>"},
	{0, 0, "<a>&#65;</a>"},
	{0, 0, "<a>&apos;</a>"},
	{0, 0, "<a>&quot;</a>"},
	{0, 0, "<a>&#x9;</a>"},
	{0, 0, "<a>&#xd;</a>"},
	{0, 0, "<a b=\"&gt;\"></a>"},
	{0, 0, "<a b=\"&apos;\"></a>"},
	{0, 0, "<a>\r\n</a>"},
	{0, 0, "<a b=\"x\ty\"></a>"},
	{0, 0, "<a b=\"x\ny\"></a>"},
	{0, 0, "<a><!--c--></a>"},
	{0, 0, "<a><?p d?></a>"},
	{0, 0, "<a><![CDATA[x]]></a>"},
	/* Order. */
	{0, ORDER, "<a y=\"1\" x=\"2\"></a>"},
	{0, ORDER, "<a z=\"&amp;\" y=\"1\" x=\"&quot;\">t<b d=\"1\" c=\"2\">"
		   "</b><b c=\"3\" d=\"4\"></b><b d=\"5\" c=\"6\"></b></a>"},
	{0, ORDER, "<a><b d=\"1\" c=\"2\"></b><e z=\"1\" y=\"2\" x=\"3\"></e>"
		   "<b d=\"3\" c=\"4\"></b><e y=\"4\" x=\"5\" z=\"6\"></e></a>"},
	{0, ORDER | BUILT, "<m:a xmlns:m=\"urn:m\"><m:b m:z=\"1\" w:y=\"2\" "
			   "a=\"3\"></m:b></m:a>"},
	{1, ORDER, "<a xmlns=\"urn:d\"><b y=\"1\" x=\"2\"></b></a>"},
	{2, 0, "<a y=\"1\" x=\"2\"></a>"},
	{0, 0, "<a y=\"1\" x=\"2\"><b></b ></a>"},
	{0, 0, "<a xmlns:p=\"urn:p\" p:b=\"3\" z=\"1\"></a>"},
	{0, 0, "<a b=\"1\" xmlns=\"urn:a\"></a>"},
	{0, 0, "<m:a xmlns:n=\"urn:n\" xmlns:m=\"urn:m\" n:x=\"1\"></m:a>"},
	{0, 0, "<m:a xmlns:m=\"urn:m\" xmlns=\"urn:a\"><b></b></m:a>"},
	/* Declarations exc-c14n would not render, or would add. */
	{0, 0, "<a xmlns=\"urn:a\" xmlns:z=\"urn:z\"></a>"},
	{0, 0, "<e:x xmlns:e=\"urn:e\"></e:x>"},
	{0, 0, "<m:a xmlns:m=\"urn:m\"><m:b xmlns:m=\"urn:m\"></m:b></m:a>"},
	{0, 0, "<u:x></u:x>"},
	{0, 0, "<a u:y=\"1\"></a>"},
	{0, 0, "<a xmlns=\"\"></a>"},
	{0, 0, "<a xmlns:xml=\"http://www.w3.org/XML/1998/namespace\"></a>"},
	{1, 0, "<a></a>"},
	{2, 0, "<a xmlns=\"urn:d\"></a>"},
	/* The same inside a Body child, which build=deferred does not build
	 * to digest it (variants/parser/insitu/check/). */
	{0, 1, "<w><a></a>t&amp;&lt;&gt;&#xD;\xc3\xa9]<a b=\"&quot;&amp;&lt;"
	       "&#x9;&#xA;&#xD;>'\" c=\"\"></a></w>"},
	{0, 1, "<w><e:a></e:a><w:a></w:a></w>"},
	{1, 1, "<w xmlns=\"urn:d\"><a><b></b></a></w>"},
	{3, 1, "<w><f:a></f:a><g:a></g:a><h:a><i:a></i:a></h:a></w>"},
	{0, 0, "<w><a/></w>"},
	{0, 0, "<w><a><b/></a></w>"},
	{0, 0, "<w><a  b=\"1\"></a></w>"},
	{0, 0, "<w><a b=\"1\" ></a></w>"},
	{0, 0, "<w><a b=\"1\"\tc=\"2\"></a></w>"},
	{0, 0, "<w><a b = \"1\"></a></w>"},
	{0, 0, "<w><a b='1'></a></w>"},
	{0, 0, "<w>x>y</w>"},
	{0, 0, "<w>&#65;</w>"},
	{0, 0, "<w>&apos;</w>"},
	{0, 0, "<w>&#xd;</w>"},
	{0, 0, "<w>\r\n</w>"},
	{0, 0, "<w><a b=\"&gt;\"></a></w>"},
	{0, 0, "<w><a b=\"&#65;\"></a></w>"},
	{0, 0, "<w><a b=\"x\ty\"></a></w>"},
	{0, 0, "<w><a b=\"x\ny\"></a></w>"},
	{0, 0, "<w><u:a></u:a></w>"},
	{1, 0, "<e:w><a></a></e:w>"},
	{0, ORDER, "<w><a y=\"1\" x=\"2\"></a><a ab=\"1\" a=\"2\"></a></w>"},
	{0, ORDER, "<w><a y=\"1\" x=\"2\"></a><a y=\"1\" x=\"2\" b=\"3\">"
		   "</a><a y=\"1\"></a><a x=\"1\" y=\"2\"></a>"
		   "<a y=\"1\" x=\"2\"></a></w>"},
	{0, 0, "<w><a y=\"1\" x=\"2\"></a><a y=\"1\" x=\"2\"/></w>"},
	/* Elements read as the record of the one before (check/records.c):
	 * its tags put in order again, from the pieces of the one read. */
	{0, ORDER, "<w><a y=\"1\" x=\"2\">t</a>\n<a y=\"3>\" x=\"\">uu</a>"
		   "\n<a y=\"\" x=\"4\">v</a><a y=\"5\" x=\"6\" z=\"7\">t</a>"
		   "<a y=\"8\" x=\"9\">t</a></w>"},
	{0, ORDER, "<w><a y=\"1\" x=\"2\"><b>s</b><c e=\"3\" d=\"4\">t</c>"
		   "</a><a y=\"5\" x=\"6\"><b>ss</b><c e=\"7\" d=\"8\">tt</c>"
		   "</a><a y=\"9\" x=\"0\"><b>s</b><c e=\"1\" d=\"2\">u</c>"
		   "</a></w>"},
	{0, ORDER, "<w><a y=\"1\" x=\"2\">t</a><b d=\"1\" c=\"2\">u</b>"
		   "<a y=\"3\" x=\"4\">t</a><b d=\"5\" c=\"6\">u</b>"
		   "<a x=\"3\" y=\"4\">t</a><b d=\"7\" c=\"8\">v</b></w>"},
	{0, ORDER, "<w><a z=\"1\" y=\"2\"><a z=\"1\" y=\"2\"><a z=\"1\" "
		   "y=\"2\"><a z=\"1\" y=\"2\"><a z=\"1\" y=\"2\">t</a></a>"
		   "</a></a></a><a z=\"3\" y=\"4\"><a z=\"5\" y=\"6\"><a "
		   "z=\"7\" y=\"8\"><a z=\"9\" y=\"0\"><a z=\"1\" y=\"2\">u"
		   "</a></a></a></a></a></w>"},
	{0, 0, "<w><a y=\"1\" x=\"2\">t</a><a y=\"3\" x=\"4\">t>u</a></w>"},
	{0, 0, "<w><a y=\"1\" x=\"2\">t</a><a y=\"3\" x=\"4\">\r</a></w>"},
	{0, 1 | BUILT, "<w><a w:b=\"1\"></a></w>"},
	{0, 1 | BUILT, "<w><a xml:lang=\"en\"></a></w>"},
	{0, 1 | BUILT, "<w><a x=\"1\"></a><a x=\"1\" w:b=\"1\"></a></w>"},
	{3, 1 | BUILT, "<w><f:a></f:a><g:a></g:a><h:a></h:a><i:a></i:a>"
		       "<e:a></e:a></w>"},
};

static const wss_c14n_opts exc = {1, 0, NULL, 0, NULL};

/* The host with frag written in place of the placeholder, parsed with
 * dom_parse_signing when `signing`. */
static dom_doc *whole_as(const char *host, const char *frag, int signing)
{
	const char *x = strstr(host, "<x/>");
	lab_buf b = LAB_BUF_INIT;
	dom_doc *doc = NULL;
	lab_err err;

	if (!CHECK_OK(lab_buf_printf(&b, "%.*s%s%s", (int)(x - host), host,
				     frag, x + 4),
		      NULL))
		return NULL;
	if (!signing)
		doc = T_PARSE_N(b.data, b.len);
	else if (!CHECK_OK(dom_parse_signing(b.data, b.len, NULL, &doc, &err),
			   &err))
		doc = NULL;
	lab_buf_free(&b);
	return doc;
}

static dom_doc *whole(const char *host, const char *frag)
{
	return whole_as(host, frag, 0);
}

static dom_node *body_of(dom_doc *doc)
{
	return t_find(dom_doc_element(doc), "Body");
}

static const char *kept(dom_node *el, size_t *len)
{
	const dom_canon_dep *deps;
	size_t ndeps;

	return dom_canonical_content(el, len, &deps, &ndeps);
}

/* Ends what doc keeps for its Body with a change inside that leaves the
 * tree as it was (a comment added and taken away): C14N then walks. */
static void forget(dom_doc *doc)
{
	dom_node *body = body_of(doc), *c;
	size_t len;
	lab_err err;

	if (CHECK_OK(dom_create_comment(doc, "c", 1, &c, &err), &err) &&
	    CHECK_OK(dom_append(body, c, &err), &err))
		dom_node_free(c);
	CHECK(kept(body, &len) == NULL);
}

/* The host with frag written in, walked. */
static dom_doc *walked(const char *host, const char *frag)
{
	dom_doc *doc = whole(host, frag);

	if (doc != NULL)
		forget(doc);
	return doc;
}

/* C14N of the Body of both documents, under opts; exclude names an
 * element inside to leave out (NULL: none). */
static void same_c14n(dom_doc *doc, dom_doc *ref, const wss_c14n_opts *opts,
		      const char *exclude)
{
	lab_buf got = LAB_BUF_INIT, want = LAB_BUF_INIT;
	wss_c14n_opts o = *opts, r = *opts;
	dom_node *body = body_of(doc), *rbody = body_of(ref);
	lab_err err;

	if (exclude != NULL) {
		o.exclude = t_find(body, exclude);
		r.exclude = t_find(rbody, exclude);
	}
	if (CHECK_OK(wss_c14n_buf(body, &o, &got, &err), &err) &&
	    CHECK_OK(wss_c14n_buf(rbody, &r, &want, &err), &err))
		CHECK_EQ_MEM(got.data, got.len, want.data, want.len);
	lab_buf_free(&got);
	lab_buf_free(&want);
}

/* Whether this build can answer after dom_replace_parsed, and for a
 * document parsed whole. */
static int answers(void)
{
	return t_is_choice("parser", "insitu") && !t_is_choice("emit", "tree");
}

static int answers_whole(void)
{
	return t_is_choice("parser", "insitu") &&
	       t_is_choice("emit", "canonical");
}

/* Whether the case's answer is yes on this build, given the yes it
 * has where Body children's content is built. */
static int yes_here(const canon_case *k, int yes)
{
	return yes && ((k->canonical & BUILT) == 0 ||
		       !t_is_choice("build", "deferred"));
}

/* Whether a whole document's parse kept its Body's canonical form (the
 * copy under el) is want. */
static void kept_whole(dom_node *el, int want)
{
	size_t len;

	CHECK_EQ_INT(kept(el, &len) != NULL, want);
}

static void cases_agree(void)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const canon_case *k = &cases[i];
		dom_doc *doc = t_replaced(hosts[k->host], k->frag);
		dom_doc *all = whole(hosts[k->host], k->frag);
		dom_doc *sig = whole_as(hosts[k->host], k->frag, 1);
		dom_doc *ref = walked(hosts[k->host], k->frag);
		size_t len;
		const char *bytes;

		t_context("host %d, fragment %s", k->host, k->frag);
		if (doc == NULL || all == NULL || sig == NULL || ref == NULL)
			goto next;
		bytes = kept(body_of(doc), &len);
		CHECK_EQ_INT(bytes != NULL,
			     yes_here(k, answers() &&
					 (k->canonical & ~BUILT) == 1));
		if (bytes != NULL)
			CHECK_EQ_MEM(bytes, len, k->frag, strlen(k->frag));
		/* Parsed whole, only a Body inside the root element. */
		kept_whole(body_of(all),
			   yes_here(k, answers_whole() && k->canonical != 0 &&
					       k->host != 2));
		/* Parsed for signing: the same answer, the same C14N. */
		kept_whole(body_of(sig),
			   yes_here(k, answers_whole() && k->canonical != 0 &&
					       k->host != 2));
		same_c14n(doc, ref, &exc, NULL);
		same_c14n(all, ref, &exc, NULL);
		same_c14n(sig, ref, &exc, NULL);
next:
		dom_doc_free(doc);
		dom_doc_free(all);
		dom_doc_free(sig);
		dom_doc_free(ref);
	}
}

/*
 * Where the bytes, canonical as they are, are not what the walk would
 * write: a PrefixList renders more, inclusive C14N renders the scope, a
 * left-out node is in them.  Each must still come out as the walk's.
 */
static void shortcut_limits(void)
{
	static const char frag[] =
		"<a xmlns=\"urn:a\"><b xmlns:u=\"urn:u\" u:k=\"1\"></b>"
		"<c></c></a>";
	static const char *const listed[] = {"u", "#default"};
	const wss_c14n_opts with_list = {1, 0, listed, 2, NULL};
	const wss_c14n_opts inclusive = {0, 0, NULL, 0, NULL};
	const wss_c14n_opts comments = {1, 1, NULL, 0, NULL};
	dom_doc *docs[2] = {t_replaced(hosts[0], frag), whole(hosts[0], frag)};
	dom_doc *ref = walked(hosts[0], frag);
	size_t len, i;

	for (i = 0; i < 2; i++) {
		t_context("%s", i ? "parsed whole" : "replaced");
		if (docs[i] == NULL || ref == NULL)
			continue;
		if (i)
			kept_whole(body_of(docs[i]), answers_whole());
		else
			CHECK_EQ_INT(kept(body_of(docs[i]), &len) != NULL,
				     answers());
		same_c14n(docs[i], ref, &with_list, NULL);
		same_c14n(docs[i], ref, &inclusive, NULL);
		same_c14n(docs[i], ref, &comments, NULL);
		same_c14n(docs[i], ref, &exc, "c");
		same_c14n(docs[i], ref, &exc, NULL);
	}
	dom_doc_free(docs[0]);
	dom_doc_free(docs[1]);
	dom_doc_free(ref);
}

/* A change inside the content ends the bytes' standing, whatever it is;
 * here an attribute, a declaration, a node added, a node taken away. */
static void change_ends_it(void)
{
	static const char frag[] = "<a xmlns=\"urn:a\"><b></b><c></c></a>";
	int kind, whole_doc;

	for (whole_doc = 0; whole_doc < 2; whole_doc++)
		for (kind = 0; kind < 4; kind++) {
			dom_doc *doc = whole_doc ? whole(hosts[0], frag)
						 : t_replaced(hosts[0], frag);
			dom_doc *ref = whole(hosts[0], frag);
			dom_doc *both[2] = {doc, ref};
			size_t len, i;
			lab_err err;

			t_context("%s, change %d",
				  whole_doc ? "parsed whole" : "replaced", kind);
			if (doc == NULL || ref == NULL)
				goto next;
			for (i = 0; i < 2; i++) {
				dom_node *b = t_find(body_of(both[i]), "b");
				dom_node *t;

				if (kind == 0)
					CHECK_OK(dom_attr_set(b, NULL, "n", "v",
							      1, &err), &err);
				else if (kind == 1)
					CHECK_OK(dom_ns_declare(b, "z", "urn:z",
								&err), &err);
				else if (kind == 2 &&
					 CHECK_OK(dom_create_text(both[i], "t",
								  1, &t, &err),
						  &err))
					CHECK_OK(dom_append(b, t, &err), &err);
				else if (kind == 3)
					dom_node_free(t_find(body_of(both[i]),
							     "c"));
			}
			CHECK(kept(body_of(doc), &len) == NULL);
			forget(ref);
			same_c14n(doc, ref, &exc, NULL);
next:
			dom_doc_free(doc);
			dom_doc_free(ref);
		}
}

/*
 * Around the content, a change keeps the bytes, and the digest checks
 * the bindings they assume at the apex.  The content declares m as the
 * apex does not render it; once the Body has an attribute in m, the apex
 * renders m and the declaration inside goes: the bytes no longer hold,
 * and the output must be the walk's, which differs from them.  An
 * attribute elsewhere, or the default namespace declared on the Body
 * (which it does not render), changes nothing the bytes assume.
 */
static void apex_context(void)
{
	static const char text[] =
		"<e:Env xmlns:e=\"urn:e\" xmlns:m=\"urn:m\"><e:Body>"
		"<m:a xmlns:m=\"urn:m\">t</m:a></e:Body></e:Env>";
	static const char inside[] = "<m:a xmlns:m=\"urn:m\">t</m:a>";
	int kind;

	for (kind = 0; kind < 4; kind++) {
		dom_doc *doc = T_PARSE(text), *ref = T_PARSE(text);
		dom_doc *both[2] = {doc, ref};
		lab_buf out = LAB_BUF_INIT;
		size_t i;
		lab_err err;

		t_context("change %d", kind);
		if (doc == NULL || ref == NULL)
			goto next;
		for (i = 0; i < 2; i++) {
			dom_node *root = dom_doc_element(both[i]);

			if (kind == 0)
				CHECK_OK(dom_attr_set(root, NULL, "n", "v", 1,
						      &err), &err);
			else if (kind == 1)
				CHECK_OK(dom_ns_declare(body_of(both[i]), NULL,
							"urn:d", &err), &err);
			else if (kind == 2)
				CHECK_OK(dom_attr_set(body_of(both[i]), "urn:m",
						      "m:k", "1", 1, &err),
					 &err);
			else
				CHECK_OK(dom_ns_declare(root, "m", "urn:x",
							&err), &err);
		}
		kept_whole(body_of(doc), answers_whole());
		forget(ref);
		same_c14n(doc, ref, &exc, NULL);
		/* The walk drops the declaration once the apex renders m. */
		if (kind == 2 &&
		    CHECK_OK(wss_c14n_buf(body_of(ref), &exc, &out, &err), &err))
			CHECK(strstr(out.data, inside) == NULL);
		lab_buf_free(&out);
next:
		dom_doc_free(doc);
		dom_doc_free(ref);
	}
}

/* The Body taken out of the tree and put back: its bytes go with the
 * move (its context may be another), and the output is the walk's. */
static void move_ends_it(void)
{
	static const char text[] =
		"<e:Env xmlns:e=\"urn:e\"><e:Body><a y=\"1\" x=\"2\"></a>"
		"</e:Body></e:Env>";
	dom_doc *doc = T_PARSE(text), *ref = T_PARSE(text);
	dom_node *body;
	lab_err err;
	size_t len;

	if (doc == NULL || ref == NULL)
		goto out;
	body = body_of(doc);
	CHECK_EQ_INT(kept(body, &len) != NULL, answers_whole());
	dom_remove(body);
	CHECK(kept(body, &len) == NULL);
	CHECK_OK(dom_append(dom_doc_element(doc), body, &err), &err);
	forget(ref);
	same_c14n(doc, ref, &exc, NULL);
out:
	dom_doc_free(doc);
	dom_doc_free(ref);
}

/*
 * dom_parse_signing: where a Body child's content is canonical but for
 * the order of attributes, the deferred build puts them in that order
 * where they stand (so an element serialized as it was parsed, or built
 * later, has them so), and its C14N is the walk's, built or not; where
 * the content is not canonical, nothing is moved, on every build.
 */
static void signing_in_place(void)
{
	static const char sorts[] =
		"<w><a y=\"1\" x=\"2\">t</a><a y=\"3\" x=\"4\">u</a>"
		"<b d=\"1>\" c=\"\">v</b><a y=\"5\" x=\"6\">t</a></w>";
	static const char sorted[] =
		"<w><a x=\"2\" y=\"1\">t</a><a x=\"4\" y=\"3\">u</a>"
		"<b c=\"\" d=\"1>\">v</b><a x=\"6\" y=\"5\">t</a></w>";
	static const char refs[] =
		"<w><a y=\"1&amp;&lt;\" x=\"2\">t&amp;&lt;&gt;u</a>"
		"<b d=\"&amp;&amp;\" c=\"\">&lt;&lt;&lt;&lt;</b></w>";
	static const char *const stays[] = {
		"<w><a y=\"1\" x=\"2\">t</a><a y=\"3\" x=\"4\">u</a>"
		"<!--c--></w>",
		"<w><a y=\"1\" x=\"2\">t</a><a y=\"3\" x=\"4\">u</a>"
		"<a y=\"5\" x=\"6\"/></w>",
	};
	int moves = answers_whole() && t_is_choice("build", "deferred");
	dom_doc *sig = whole_as(hosts[0], sorts, 1);
	dom_doc *ref = walked(hosts[0], sorts);
	size_t i;

	if (sig != NULL && ref != NULL) {
		dom_node *w = dom_first_child(body_of(sig));

		same_c14n(sig, ref, &exc, NULL);
		CHECK_SERIALIZES(w, moves ? sorted : sorts);
	}
	dom_doc_free(sig);
	dom_doc_free(ref);
	/* Built before the digest asks (the build rewrites a reference's
	 * bytes where they stand): the digest does not take them. */
	sig = whole_as(hosts[0], refs, 1);
	ref = walked(hosts[0], refs);
	if (sig != NULL && ref != NULL) {
		CHECK(t_find(dom_first_child(body_of(sig)), "b") != NULL);
		same_c14n(sig, ref, &exc, NULL);
	}
	dom_doc_free(sig);
	dom_doc_free(ref);
	for (i = 0; i < sizeof stays / sizeof stays[0]; i++) {
		sig = whole_as(hosts[0], stays[i], 1);
		ref = walked(hosts[0], stays[i]);
		t_context("%s", stays[i]);
		if (sig != NULL && ref != NULL) {
			CHECK_SERIALIZES(dom_first_child(body_of(sig)), stays[i]);
			same_c14n(sig, ref, &exc, NULL);
		}
		dom_doc_free(sig);
		dom_doc_free(ref);
	}
}

/*
 * A tag whose attributes take more than 64 KB is noted bare and read
 * again when it is put in order (check/reorder.c's TAG_LONG): the same
 * order, the same digest, and its neighbours, noted the short way, too.
 */
static void signing_long_tag(void)
{
	enum { LONG = 70000 };
	int moves = answers_whole() && t_is_choice("build", "deferred");
	lab_buf v = LAB_BUF_INIT, in = LAB_BUF_INIT, want = LAB_BUF_INIT;
	dom_doc *sig = NULL, *ref = NULL;
	size_t i;

	for (i = 0; i < LONG; i++)
		if (!CHECK_OK(lab_buf_put(&v, i % 7 == 0 ? " " : "v", 1), NULL))
			goto out;
	if (!CHECK_OK(lab_buf_printf(&in,
				     "<w><a z=\"%s\" b=\"1\" y=\"2\">t</a>"
				     "<a y=\"3\" x=\"4\">u</a></w>",
				     v.data),
		      NULL) ||
	    !CHECK_OK(lab_buf_printf(&want,
				     "<w><a b=\"1\" y=\"2\" z=\"%s\">t</a>"
				     "<a x=\"4\" y=\"3\">u</a></w>",
				     v.data),
		      NULL))
		goto out;
	sig = whole_as(hosts[0], in.data, 1);
	ref = walked(hosts[0], in.data);
	if (sig != NULL && ref != NULL) {
		same_c14n(sig, ref, &exc, NULL);
		CHECK_SERIALIZES(dom_first_child(body_of(sig)),
				 moves ? want.data : in.data);
	}
out:
	dom_doc_free(sig);
	dom_doc_free(ref);
	lab_buf_free(&v);
	lab_buf_free(&in);
	lab_buf_free(&want);
}

/*
 * The one attribute move (dom/permute.h) at every attribute length from
 * the shortest, ` a=""`, past four 16-byte moves: three attributes
 * written in the order 2, 0, 1 come out whole, and the bytes on either
 * side of the tag are not touched.
 */
static void permute_lengths(void)
{
	static const uint8_t perm[] = {2, 0, 1};
	size_t a, b;

	for (a = 5; a <= 70; a++)
		for (b = 5; b <= 70; b += 13) {
			char src[256] = {0}, out[256 + 32], want[256 + 32];
			size_t end[3], c = 75 - b % 7, i;

			end[0] = a;
			end[1] = a + b;
			end[2] = a + b + c;
			for (i = 0; i < end[2]; i++)
				src[i] = (char)('A' + i % 26 + (i < end[0]  ? 0
								 : i < end[1] ? 32
									      : 6));
			memset(out, '#', sizeof out);
			memset(want, '#', sizeof want);
			memcpy(want + 16, src + end[1], c);
			memcpy(want + 16 + c, src, a);
			memcpy(want + 16 + c + a, src + end[0], b);
			t_context("lengths %zu %zu %zu", a, b, c);
			CHECK(dom__permute_attrs(out + 16, src, perm, end, 3) ==
			      end[2]);
			CHECK(memcmp(out, want, sizeof out) == 0);
		}
}

const t_case tests_canon[] = {
	{"canon/cases_agree", cases_agree},
	{"canon/shortcut_limits", shortcut_limits},
	{"canon/change_ends_it", change_ends_it},
	{"canon/apex_context", apex_context},
	{"canon/move_ends_it", move_ends_it},
	{"canon/signing_in_place", signing_in_place},
	{"canon/signing_long_tag", signing_long_tag},
	{"canon/permute_lengths", permute_lengths},
	{NULL, NULL},
};
