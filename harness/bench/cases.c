/*
 * cases.c - what `domlab-bench bench` measures: the datasets and the table of
 * cases (see harness/bench/bench.h).  Each case isolates one thing an axis
 * changes; the docs/design.md "Variant axes" table says which.
 *
 * Not for: timing, repetition or memory accounting (harness/bench/bench.cc),
 * nor checking the DOM's behaviour beyond what keeps a case honest
 * (tests/ does that).
 */
#include <limits.h>
#include <stdint.h>

#include <libxml/parser.h>

#include "util/alloc.h"
#include "dom/dom.h"
#include "harness/bench/bench.h"
#include "harness/bench/stages.h"
#ifdef LAB_GSOAP
#include "harness/gsoap/gsoap.h"
#endif

const lab_dataset lab_datasets[] = {
	{"quakes-2k", LAB_GEN_QUAKES, .size = 2048},
	{"quakes-20k", LAB_GEN_QUAKES, .size = 20480},
	{"quakes-200k", LAB_GEN_QUAKES, .size = 204800},
	{"quakes-2m", LAB_GEN_QUAKES,
	 .size = 2097152, .reach = LAB_DATASET_NOT_QUICK},
	/* quakes-2m's records with each start tag's attributes in C14N's
	 * order: its Body's content is its own canonical form, so the
	 * two-thread send digests it during the parse (wss/send_ahead.h). */
	{"quakes-canon-2m", LAB_GEN_QUAKES,
	 .size = 2097152, .reach = LAB_DATASET_NOT_QUICK, .canonical = 1},
	{"quakes-20m", LAB_GEN_QUAKES,
	 .size = 20971520, .reach = LAB_DATASET_FULL_ONLY},
	{"ints-200", LAB_GEN_INTS, .count = 200},
	{"ints-400", LAB_GEN_INTS, .count = 400},
	{"ints-800", LAB_GEN_INTS, .count = 800},
	{"strings-200", LAB_GEN_STRINGS, .count = 200},
	{"strings-400", LAB_GEN_STRINGS, .count = 400},
	{"strings-800", LAB_GEN_STRINGS, .count = 800},
	{"wide", LAB_GEN_WIDE, .count = 200},
	{"deep", LAB_GEN_DEEP, .count = 128},
	/* tokens/<R>: the message each of R requests sends (tokens_lookup/<R>
	 * uses only the name). */
	{"100", LAB_GEN_QUAKES, .size = 2048},
	{"200", LAB_GEN_QUAKES, .size = 2048},
	{"300", LAB_GEN_QUAKES, .size = 2048},
	{"400", LAB_GEN_QUAKES, .size = 2048},
	{"500", LAB_GEN_QUAKES, .size = 2048},
	{"600", LAB_GEN_QUAKES, .size = 2048},
	{"700", LAB_GEN_QUAKES, .size = 2048},
	{"1000", LAB_GEN_QUAKES, .size = 2048},
	{"2000", LAB_GEN_QUAKES, .size = 2048},
	{"5000", LAB_GEN_QUAKES, .size = 2048},
	{"10000", LAB_GEN_QUAKES, .size = 2048},
	/* attachment*: the attachment's bytes. */
	{"150k", LAB_GEN_BYTES, .size = 153600},
	{"4m", LAB_GEN_BYTES, .size = 4194304},
	/* worst/<shape>: the hostile shapes at quakes-200k's size
	 * (domlab-bench --worst-size changes it), so parse/quakes-200k and
	 * receive/quakes-200k are the typical input beside them.  wide-ns
	 * declares the most prefixes the default --max-ns lets through; the
	 * preauth shapes' bytes give only their size (bench.h). */
	{"collide-names", LAB_GEN_COLLIDE_NAMES, .size = LAB_WORST_SIZE},
	{"collide-attrs", LAB_GEN_COLLIDE_ATTRS, .size = LAB_WORST_SIZE},
	{"wide-ns", LAB_GEN_WIDE_NS, .size = LAB_WORST_SIZE, .count = 256},
	{"deep-chains", LAB_GEN_DEEP, .size = LAB_WORST_SIZE},
	{"many-attrs", LAB_GEN_MANY_ATTRS, .size = LAB_WORST_SIZE},
	{"collide-ids", LAB_GEN_COLLIDE_IDS, .size = LAB_WORST_SIZE},
	{"many-enc", LAB_GEN_BYTES, .size = LAB_WORST_SIZE},
	{"signedinfo-junk", LAB_GEN_BYTES, .size = LAB_WORST_SIZE},
	{"oracle-decrypt", LAB_GEN_BYTES, .size = LAB_WORST_SIZE},
	{"oracle-signature", LAB_GEN_BYTES, .size = LAB_WORST_SIZE},
	/* oracle/<shape>-<size>: what an oracle attacker sends
	 * (datasets/preauth.h, oracle-<shape>), one changed octet whose
	 * plaintext would parse or not; the bytes give only the size. */
	{"gcm-parses-2k", LAB_GEN_BYTES, .size = 2048},
	{"gcm-garbled-2k", LAB_GEN_BYTES, .size = 2048},
	{"cbc-parses-2k", LAB_GEN_BYTES, .size = 2048},
	{"cbc-garbled-2k", LAB_GEN_BYTES, .size = 2048},
	{"cbc-refused-2k", LAB_GEN_BYTES, .size = 2048},
	{"gcm-parses-200k", LAB_GEN_BYTES, .size = 204800},
	{"gcm-garbled-200k", LAB_GEN_BYTES, .size = 204800},
	{"cbc-parses-200k", LAB_GEN_BYTES, .size = 204800},
	{"cbc-garbled-200k", LAB_GEN_BYTES, .size = 204800},
	{"cbc-refused-200k", LAB_GEN_BYTES, .size = 204800},
};

const size_t lab_ndatasets = sizeof lab_datasets / sizeof lab_datasets[0];

/* The options of variants/parser/libxml2/xml2.c, so the reference parses
 * exactly what we parse. */
enum {
	REF_OPTIONS = XML_PARSE_NONET | XML_PARSE_NOENT | XML_PARSE_DTDATTR |
		      XML_PARSE_NOERROR | XML_PARSE_NOWARNING
};

/* One context shape serves every case; unused fields stay zero. */
typedef struct bench_ctx {
	const lab_case_data *d;
	dom_doc *doc;     /* cases that work on a parsed tree */
	const char *miss; /* attr_lookup: interned, on no element */
	uintptr_t sink;   /* results land here so the work is not elided */
} bench_ctx;

/* The user-data key: compared by address. */
static const char ud_key;

/* lab_next_node(), for nodes the caller may change (user data). */
static dom_node *next_node(dom_node *n)
{
	dom_node *next = dom_first_child(n);

	while (next == NULL && n != NULL) {
		next = dom_next_sibling(n);
		n = dom_parent(n);
	}
	return next;
}

static void teardown(void *ctx)
{
	bench_ctx *c = ctx;

	dom_doc_free(c->doc);
	lab_free(c);
}

static int setup_bytes(void **ctx, const lab_case_data *d, lab_err *err)
{
	bench_ctx *c = lab_calloc(1, sizeof *c);

	*ctx = NULL;
	if (c == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	c->d = d;
	*ctx = c;
	return LAB_OK;
}

static int setup_doc(void **ctx, const lab_case_data *d, lab_err *err)
{
	bench_ctx *c;
	int rc = setup_bytes(ctx, d, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	rc = dom_parse(d->bytes, d->len, NULL, &c->doc, err);
	if (rc != LAB_OK) {
		teardown(c);
		*ctx = NULL;
	}
	return rc;
}

static int setup_lookup(void **ctx, const lab_case_data *d, lab_err *err)
{
	static const char miss[] = "domlab-bench-miss";
	bench_ctx *c;
	int rc = setup_doc(ctx, d, err);

	if (rc != LAB_OK)
		return rc;
	c = *ctx;
	/* Lookups take interned names (dom.h): a name the document holds
	 * but no element carries is a real miss. */
	c->miss = dom_intern(c->doc, miss, sizeof miss - 1);
	if (c->miss == NULL) {
		teardown(c);
		*ctx = NULL;
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	}
	return LAB_OK;
}

static int setup_ref(void **ctx, const lab_case_data *d, lab_err *err)
{
	if (d->len > INT_MAX)
		return lab_fail(err, LAB_EUSAGE,
				"%s is too large for xmlReadMemory", d->name);
	return setup_bytes(ctx, d, err);
}

/* The tree's counts, from the context's tree or a fresh parse. */
static int tree_info(void *ctx, lab_case_info *out, lab_err *err)
{
	const bench_ctx *c = ctx;
	dom_doc *doc = c->doc;
	dom_doc_stats s;

	if (doc == NULL) {
		int rc = dom_parse(c->d->bytes, c->d->len, NULL, &doc, err);

		if (rc != LAB_OK)
			return rc;
	}
	dom_doc_stats_get(doc, &s);
	out->elements = s.elements;
	out->attributes = s.attributes;
	out->tree_bytes = s.arena_used;
	if (doc != c->doc)
		dom_doc_free(doc);
	return LAB_OK;
}

static int run_parse(void *ctx, lab_err *err)
{
	const bench_ctx *c = ctx;
	dom_doc *doc;
	int rc = dom_parse(c->d->bytes, c->d->len, NULL, &doc, err);

	if (rc == LAB_OK)
		dom_doc_free(doc);
	return rc;
}

/* Reads what a serializer or a query reads: names by pointer, and the
 * first byte of every value, so text is touched without copying it. */
static int run_traverse(void *ctx, lab_err *err)
{
	bench_ctx *c = ctx;
	dom_node *n;
	uintptr_t h = 0;

	(void)err;
	for (n = dom_doc_node(c->doc); n != NULL; n = next_node(n)) {
		const char *v;
		size_t len;

		if (dom_node_type(n) == DOM_ELEMENT) {
			h += (uintptr_t)dom_local_name(n) ^
			     (uintptr_t)dom_ns_uri(n);
			continue;
		}
		if (dom_node_type(n) == DOM_DOCUMENT)
			continue;
		v = dom_value(n, &len);
		h += len + (len > 0 ? (unsigned char)v[0] : 0);
	}
	c->sink = h;
	return LAB_OK;
}

/* Every attribute of every element by (ns, local), then one miss: the
 * attrs axis's find on short (quakes) and long (wide) lists. */
static int run_attr_lookup(void *ctx, lab_err *err)
{
	bench_ctx *c = ctx;
	dom_node *n;

	for (n = dom_doc_node(c->doc); n != NULL; n = next_node(n)) {
		size_t count, i;

		if (dom_node_type(n) != DOM_ELEMENT)
			continue;
		count = dom_attr_count(n);
		for (i = 0; i < count; i++) {
			const dom_attr *a = dom_attr_at(n, i);

			if (dom_attr_get(n, dom_attr_ns(a), dom_attr_local(a)) != a)
				return lab_fail(err, LAB_EUSAGE,
						"lookup of '%s' found another "
						"attribute",
						dom_attr_local(a));
		}
		if (dom_attr_get(n, NULL, c->miss) != NULL)
			return lab_fail(err, LAB_EUSAGE,
					"lookup of an absent name succeeded");
	}
	return LAB_OK;
}

/* What a canonicalizer asks: each element's attributes and those of all
 * its ancestors (namespace and xml:* inheritance), read and released. */
static int run_attr_walk(void *ctx, lab_err *err)
{
	bench_ctx *c = ctx;
	dom_node *n, *e;
	uintptr_t h = 0;

	for (n = dom_doc_node(c->doc); n != NULL; n = next_node(n)) {
		if (dom_node_type(n) != DOM_ELEMENT)
			continue;
		for (e = n; dom_node_type(e) == DOM_ELEMENT;
		     e = dom_parent(e)) {
			dom_attr_list l;
			size_t i;
			int rc = dom_attributes(e, &l, err);

			if (rc != LAB_OK)
				return rc;
			for (i = 0; i < l.count; i++)
				h += l.items[i].len;
			dom_attr_list_release(e, &l);
		}
	}
	c->sink = h;
	return LAB_OK;
}

static void ud_noop(void *data, void *arg)
{
	(void)data;
	(void)arg;
}

/*
 * The userdata axis over a document's life: parse (where pernode gives
 * every node its table), a value set and read back on every node, and the
 * free that runs the callbacks.  A persistent tree cannot repeat set and
 * clear without growing: entries live in the document's arena until it
 * is freed.
 */
static int run_userdata(void *ctx, lab_err *err)
{
	bench_ctx *c = ctx;
	dom_node *n;
	dom_doc *doc;
	int rc = dom_parse(c->d->bytes, c->d->len, NULL, &doc, err);

	if (rc != LAB_OK)
		return rc;
	for (n = dom_doc_node(doc); n != NULL && rc == LAB_OK; n = next_node(n))
		rc = dom_user_data_set(n, &ud_key, c, ud_noop, NULL, err);
	for (n = dom_doc_node(doc); n != NULL && rc == LAB_OK; n = next_node(n))
		if (dom_user_data_get(n, &ud_key) != c)
			rc = lab_fail(err, LAB_EUSAGE, "user data lost");
	dom_doc_free(doc);
	return rc;
}

static int run_ref_parse(void *ctx, lab_err *err)
{
	const bench_ctx *c = ctx;
	xmlDocPtr doc = xmlReadMemory(c->d->bytes, (int)c->d->len, NULL, NULL,
				      REF_OPTIONS);

	if (doc == NULL)
		return lab_fail(err, LAB_EMALFORMED,
				"libxml2 could not parse %s", c->d->name);
	xmlFreeDoc(doc);
	return LAB_OK;
}

static const char *const parse_sets[] = {
	"quakes-2k", "quakes-20k", "quakes-200k", "quakes-2m", "quakes-20m",
	"ints-200", "ints-400", "ints-800",
	"strings-200", "strings-400", "strings-800",
	"wide", "deep", NULL};
static const char *const walk_sets[] = {"quakes-200k", "quakes-2m", NULL};
/* The whole-buffer send and receive: where the output is a block of
 * the peak worth seeing. */
static const char *const whole_sets[] = {"quakes-2m", NULL};
/* quakes: 6 attributes an element; wide: 30-60. */
static const char *const lookup_sets[] = {"quakes-200k", "wide", NULL};
static const char *const attrlist_sets[] = {"quakes-200k", "wide", "deep",
					    NULL};
static const char *const userdata_sets[] = {"quakes-200k", NULL};
/* The message sizes the pipeline's history is about, small to large. */
static const char *const pipeline_sets[] = {
	"quakes-2k", "quakes-20k", "quakes-200k", "quakes-2m",
	"quakes-canon-2m", "quakes-20m",
	"ints-200", "ints-400", "ints-800",
	"strings-200", "strings-400", "strings-800",
	"wide", "deep", NULL};
/* What a run without --full keeps: the sizes of the history's messages. */
static const char *const pipeline_core[] = {"quakes-2k", "quakes-200k",
					     "quakes-2m", "quakes-20m",
					     "ints-800", NULL};
/* send and the parts of its floor keep quakes-canon-2m too, the
 * one-thread case and the floor its two-thread send is set against. */
static const char *const send_core[] = {"quakes-2k", "quakes-200k",
					 "quakes-2m", "quakes-canon-2m",
					 "quakes-20m", "ints-800", NULL};
/* The old SOAP latency comparison's calls: getInt and getStr. */
static const char *const latency_sets[] = {
	"ints-200", "ints-400", "ints-800",
	"strings-200", "strings-400", "strings-800", NULL};
/* Threads: messages where the fixed RSA cost does not hide the DOM's. */
static const char *const threads_sets[] = {"quakes-2k", "quakes-20k",
					   "quakes-200k", NULL};
static const char *const threads_core[] = {"quakes-20k", NULL};
/* send and receive on two threads: sizes from below the thread's
 * threshold (64 KB for send, 256 KB for receive) to above the L2
 * cache. */
static const char *const pipelined_sets[] = {"quakes-20k", "quakes-200k",
					     "quakes-2m", "quakes-20m", NULL};
static const char *const pipelined_core[] = {"quakes-200k", "quakes-2m",
					     NULL};
/* The send's also where its Body's content is canonical as it stands:
 * there the digest is made from the bytes as they stand, beside the
 * whole parse, where on quakes-2m it follows the parse's feed
 * (wss/send_ahead.h). */
static const char *const send_pipelined_sets[] = {
	"quakes-20k", "quakes-200k", "quakes-2m", "quakes-canon-2m",
	"quakes-20m", NULL};
static const char *const send_pipelined_core[] = {
	"quakes-200k", "quakes-2m", "quakes-canon-2m", NULL};
/* send on two threads into one buffer: the large messages, where the
 * output is written while the second thread signs. */
static const char *const whole_pipelined_sets[] = {"quakes-2m",
						   "quakes-canon-2m", NULL};
/* The layouts besides the default: one mid-size message. */
static const char *const layout_sets[] = {"quakes-200k", NULL};

/* Each layout case's setup: a send case's input (in), a receive case's
 * message (sent), domlab's (wss) or the reference's (ref). */
#define LAYOUT_SETUP(name, impl, what, layout)                                \
	static int name(void **ctx, const lab_case_data *d, lab_err *err)     \
	{                                                                     \
		return lab_##impl##_setup_layout_##what(ctx, d, layout, err); \
	}
LAYOUT_SETUP(es_in, wss, input, LAB_LAYOUT_ENCRYPT_SIGN)
LAYOUT_SETUP(es_sent, wss, sent, LAB_LAYOUT_ENCRYPT_SIGN)
LAYOUT_SETUP(esig_in, wss, input, LAB_LAYOUT_ENCRYPT_SIGNATURE)
LAYOUT_SETUP(esig_sent, wss, sent, LAB_LAYOUT_ENCRYPT_SIGNATURE)
LAYOUT_SETUP(eh_in, wss, input, LAB_LAYOUT_ENCRYPTED_HEADER)
LAYOUT_SETUP(eh_sent, wss, sent, LAB_LAYOUT_ENCRYPTED_HEADER)
LAYOUT_SETUP(pipe_in, wss, input, LAB_LAYOUT_PIPELINED)
LAYOUT_SETUP(pipe_sent, wss, sent, LAB_LAYOUT_PIPELINED)
LAYOUT_SETUP(ref_es_in, ref, input, LAB_LAYOUT_ENCRYPT_SIGN)
LAYOUT_SETUP(ref_es_sent, ref, sent, LAB_LAYOUT_ENCRYPT_SIGN)
LAYOUT_SETUP(ref_esig_in, ref, input, LAB_LAYOUT_ENCRYPT_SIGNATURE)
LAYOUT_SETUP(ref_esig_sent, ref, sent, LAB_LAYOUT_ENCRYPT_SIGNATURE)
LAYOUT_SETUP(ref_eh_in, ref, input, LAB_LAYOUT_ENCRYPTED_HEADER)
LAYOUT_SETUP(ref_eh_sent, ref, sent, LAB_LAYOUT_ENCRYPTED_HEADER)
#undef LAYOUT_SETUP

/* tokens/<R> and tokens_lookup/<R>: R = 100..700 by default, up to
 * 10,000 with --full. */
static const char *const token_sets[] = {"100", "200", "300", "400", "500",
					 "600", "700", "1000", "2000",
					 "5000", "10000", NULL};
static const char *const token_core[] = {"100", "200", "300", "400", "500",
					 "600", "700", NULL};
static const char *const attach_sets[] = {"150k", "4m", NULL};
/* The hostile shapes by the command that meets them. */
static const char *const worst_parse_sets[] = {
	"collide-names", "collide-attrs", "wide-ns", "deep-chains",
	"many-attrs", NULL};
static const char *const worst_receive_sets[] = {
	"collide-ids", "many-enc", "signedinfo-junk", "oracle-decrypt",
	"oracle-signature", NULL};
/* What an oracle attacker sends, each pair to be told apart by time. */
static const char *const oracle_sets[] = {
	"gcm-parses-2k", "gcm-garbled-2k", "cbc-parses-2k", "cbc-garbled-2k",
	"cbc-refused-2k", "gcm-parses-200k", "gcm-garbled-200k",
	"cbc-parses-200k", "cbc-garbled-200k", "cbc-refused-200k", NULL};
/* The intermediary: headers checked, the Body passed on unread. */
static const char *const forward_sets[] = {"quakes-2k", "quakes-200k",
					   "quakes-2m", NULL};
#ifdef LAB_GSOAP
/* The gSOAP peer's binding is the quakes records'. */
static const char *const gsoap_sets[] = {"quakes-2k", "quakes-200k",
					 "quakes-2m", NULL};
#endif

const lab_case lab_cases[] = {
	{"parse", parse_sets, 0, setup_bytes, run_parse, tree_info, teardown,
	 NULL},
	{"traverse", walk_sets, 0, setup_doc, run_traverse, tree_info,
	 teardown, NULL},
	{"attr_lookup", lookup_sets, 0, setup_lookup, run_attr_lookup,
	 tree_info, teardown, NULL},
	{"attr_walk", attrlist_sets, 0, setup_doc, run_attr_walk, tree_info,
	 teardown, NULL},
	{"userdata", userdata_sets, 0, setup_bytes, run_userdata, tree_info,
	 teardown, NULL},
	{"serialize", walk_sets, 0, lab_wss_setup_parsed,
	 lab_wss_run_serialize, NULL, lab_stage_teardown, NULL},
	{"c14n", pipeline_sets, 0, lab_wss_setup_parsed, lab_wss_run_c14n,
	 NULL, lab_stage_teardown, pipeline_core},
	{"sign", pipeline_sets, 0, lab_wss_setup_input, lab_stage_run_sign, NULL,
	 lab_stage_teardown, pipeline_core},
	{"verify", pipeline_sets, 0, lab_wss_setup_signed, lab_stage_run_verify,
	 NULL, lab_stage_teardown, pipeline_core},
	{"encrypt", pipeline_sets, 0, lab_wss_setup_input, lab_stage_run_encrypt,
	 NULL, lab_stage_teardown, pipeline_core},
	{"decrypt", pipeline_sets, 0, lab_wss_setup_encrypted,
	 lab_stage_run_decrypt, NULL, lab_stage_teardown, pipeline_core},
	{"send", pipeline_sets, 0, lab_wss_setup_input, lab_stage_run_send, NULL,
	 lab_stage_teardown, send_core},
	{"receive", pipeline_sets, 0, lab_wss_setup_sent, lab_stage_run_receive,
	 NULL, lab_stage_teardown, pipeline_core},
	/* send and receive with the whole output in one buffer (send and
	 * receive hand it to a writer in pieces): the peak it adds. */
	{"send_whole", whole_sets, 0, lab_wss_setup_input,
	 lab_stage_run_send_whole, NULL, lab_stage_teardown, NULL},
	{"receive_whole", whole_sets, 0, lab_wss_setup_sent,
	 lab_stage_run_receive_whole, NULL, lab_stage_teardown, NULL},
	/* send on two threads: the Body encrypted on the second
	 * (wss/seal.h), or digested there during the parse where its
	 * content is canonical as it stands (wss/send_ahead.h); timed by
	 * the wall clock, its CPU time that of both threads. */
	{"send_pipelined", send_pipelined_sets, 0, pipe_in, lab_stage_run_send,
	 lab_stage_info, lab_stage_teardown, send_pipelined_core},
	/* send_pipelined with the whole output in one buffer, as the HTTP
	 * endpoint and the domlab command hold it: there the message is
	 * written out while the second thread signs (wss/dsig.h). */
	{"send_whole_pipelined", whole_pipelined_sets, 0, pipe_in,
	 lab_stage_run_send_whole, lab_stage_info, lab_stage_teardown, NULL},
	/* receive with the decrypted Body digested on a second thread while
	 * it is parsed (wss/digest_ahead.h), timed the same way. */
	{"receive_pipelined", pipelined_sets, 0, pipe_sent,
	 lab_stage_run_receive, lab_stage_info, lab_stage_teardown,
	 pipelined_core},
	/* send and receive in the other layouts (stages.h's lab_layout). */
	{"send_encrypt_sign", layout_sets, 0, es_in, lab_stage_run_send, NULL,
	 lab_stage_teardown, NULL},
	{"receive_encrypt_sign", layout_sets, 0, es_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"send_encrypt_signature", layout_sets, 0, esig_in, lab_stage_run_send,
	 NULL, lab_stage_teardown, NULL},
	{"receive_encrypt_signature", layout_sets, 0, esig_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"send_encrypted_header", layout_sets, 0, eh_in, lab_stage_run_send,
	 NULL, lab_stage_teardown, NULL},
	{"receive_encrypted_header", layout_sets, 0, eh_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"forward", forward_sets, 0, lab_wss_setup_hop, lab_stage_run_forward,
	 NULL, lab_stage_teardown, NULL},
	{"tokens", token_sets, 0, lab_scen_setup_tokens, lab_scen_run_tokens,
	 lab_scen_tokens_info, lab_scen_teardown, token_core},
	{"tokens_lookup", token_sets, 0, lab_scen_setup_lookup,
	 lab_scen_run_lookup, lab_scen_lookup_info, lab_scen_teardown,
	 token_core},
	{"attachment", attach_sets, 0, lab_scen_setup_attach,
	 lab_scen_run_attach_pipe, NULL, lab_scen_teardown, NULL},
	{"attachment_file", attach_sets, 0, lab_scen_setup_attach_file,
	 lab_scen_run_attach_file, NULL, lab_scen_teardown, NULL},
	{"latency_plain", latency_sets, 0, lab_latency_setup_plain,
	 lab_latency_run_plain, NULL, lab_latency_teardown, NULL},
	{"latency_secure", latency_sets, 0, lab_latency_setup_secure,
	 lab_latency_run_secure, NULL, lab_latency_teardown, NULL},
	/* Threaded (cases_threads.c): T threads, a context each. */
	{"threads_send", threads_sets, 0, lab_wss_setup_input,
	 lab_stage_run_send, NULL, lab_stage_teardown, threads_core},
	{"threads_receive", threads_sets, 0, lab_wss_setup_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, threads_core},
	{"threads_control", threads_sets, 0, lab_threads_setup_control,
	 lab_threads_run_control, NULL, lab_threads_teardown_control,
	 threads_core},
	{"worst", worst_parse_sets, 0, lab_worst_setup_parse,
	 lab_worst_run_parse, NULL, lab_worst_teardown, NULL},
	{"worst", worst_receive_sets, 0, lab_worst_setup_receive,
	 lab_worst_run_receive, NULL, lab_worst_teardown, NULL},
	{"oracle", oracle_sets, 0, lab_worst_setup_receive,
	 lab_worst_run_receive, NULL, lab_worst_teardown, NULL},
	{"ref:parse", parse_sets, 1, setup_ref, run_ref_parse, NULL, teardown, NULL},
	{"ref:worst", worst_parse_sets, 1, setup_ref, run_ref_parse, NULL,
	 teardown, NULL},
	{"pugi:parse", parse_sets, 1, lab_pugi_setup, lab_pugi_run_parse,
	 lab_pugi_info, lab_pugi_teardown, NULL},
	{"pugi:traverse", walk_sets, 1, lab_pugi_setup_parsed,
	 lab_pugi_run_traverse, NULL, lab_pugi_teardown, NULL},
	{"pugi:serialize", walk_sets, 1, lab_pugi_setup_parsed,
	 lab_pugi_run_serialize, NULL, lab_pugi_teardown, NULL},
	{"ref:traverse", walk_sets, 1, lab_ref_setup_parsed,
	 lab_ref_run_traverse, NULL, lab_stage_teardown, NULL},
	{"ref:serialize", walk_sets, 1, lab_ref_setup_parsed,
	 lab_ref_run_serialize, NULL, lab_stage_teardown, NULL},
	{"ref:c14n", pipeline_sets, 1, lab_ref_setup_parsed, lab_ref_run_c14n,
	 NULL, lab_stage_teardown, pipeline_core},
	{"ref:sign", pipeline_sets, 1, lab_ref_setup_input, lab_stage_run_sign,
	 NULL, lab_stage_teardown, pipeline_core},
	{"ref:verify", pipeline_sets, 1, lab_ref_setup_signed,
	 lab_stage_run_verify, NULL, lab_stage_teardown, pipeline_core},
	{"ref:encrypt", pipeline_sets, 1, lab_ref_setup_input,
	 lab_stage_run_encrypt, NULL, lab_stage_teardown, pipeline_core},
	{"ref:decrypt", pipeline_sets, 1, lab_ref_setup_encrypted,
	 lab_stage_run_decrypt, NULL, lab_stage_teardown, pipeline_core},
	{"ref:send", pipeline_sets, 1, lab_ref_setup_input, lab_stage_run_send,
	 NULL, lab_stage_teardown, pipeline_core},
	{"ref:receive", pipeline_sets, 1, lab_ref_setup_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, pipeline_core},
	{"ref:send_encrypt_sign", layout_sets, 1, ref_es_in,
	 lab_stage_run_send, NULL, lab_stage_teardown, NULL},
	{"ref:receive_encrypt_sign", layout_sets, 1, ref_es_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"ref:send_encrypt_signature", layout_sets, 1, ref_esig_in,
	 lab_stage_run_send, NULL, lab_stage_teardown, NULL},
	{"ref:receive_encrypt_signature", layout_sets, 1, ref_esig_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"ref:send_encrypted_header", layout_sets, 1, ref_eh_in,
	 lab_stage_run_send, NULL, lab_stage_teardown, NULL},
	{"ref:receive_encrypted_header", layout_sets, 1, ref_eh_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
	{"ref:forward", forward_sets, 1, lab_ref_setup_hop,
	 lab_stage_run_forward, NULL, lab_stage_teardown, NULL},
	{"ref:latency_plain", latency_sets, 1, lab_latency_setup_plain,
	 lab_latency_run_ref_plain, NULL, lab_latency_teardown, NULL},
	{"ref:latency_secure", latency_sets, 1, lab_latency_setup_ref_secure,
	 lab_latency_run_secure, NULL, lab_latency_teardown, NULL},
	{"ref:threads_send", threads_sets, 1, lab_ref_setup_input,
	 lab_stage_run_send, NULL, lab_stage_teardown, threads_core},
	{"ref:threads_receive", threads_sets, 1, lab_ref_setup_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, threads_core},
#ifdef LAB_GSOAP
	/* The gSOAP peer (harness/gsoap/), when the build found gSOAP. */
	{"gsoap:send", gsoap_sets, 1, lab_gsoap_setup_input,
	 lab_stage_run_send, NULL, lab_stage_teardown, NULL},
	{"gsoap:receive", gsoap_sets, 1, lab_gsoap_setup_sent,
	 lab_stage_run_receive, NULL, lab_stage_teardown, NULL},
#endif
	/* The floor (--floor): bytes touched once on every parsed dataset,
	 * the crypto on every pipeline one. */
	{"floor:memcpy", parse_sets, 0, lab_floor_setup_bytes,
	 lab_floor_run_memcpy, NULL, lab_floor_teardown, NULL},
	{"floor:memchr", parse_sets, 0, lab_floor_setup_bytes,
	 lab_floor_run_memchr, NULL, lab_floor_teardown, NULL},
	{"floor:sha256", pipeline_sets, 0, lab_floor_setup_canonical,
	 lab_floor_run_sha256, NULL, lab_floor_teardown, send_core},
	{"floor:sha256_small", pipeline_sets, 0, lab_floor_setup_small,
	 lab_floor_run_sha256_small, NULL, lab_floor_teardown, send_core},
	{"floor:aes256gcm", pipeline_sets, 0, lab_floor_setup_body,
	 lab_floor_run_aes256gcm, NULL, lab_floor_teardown, send_core},
	{"floor:aes256gcm_decrypt", pipeline_sets, 0, lab_floor_setup_sealed,
	 lab_floor_run_aes256gcm_decrypt, NULL, lab_floor_teardown,
	 pipeline_core},
	{"floor:aes128cbc", pipeline_sets, 0, lab_floor_setup_body,
	 lab_floor_run_aes128cbc, NULL, lab_floor_teardown, pipeline_core},
	{"floor:rsa_sign", pipeline_sets, 0, lab_floor_setup_rsa,
	 lab_floor_run_rsa_sign, NULL, lab_floor_teardown, send_core},
	{"floor:rsa_verify", pipeline_sets, 0, lab_floor_setup_rsa,
	 lab_floor_run_rsa_verify, NULL, lab_floor_teardown, pipeline_core},
	{"floor:rsa_oaep_wrap", pipeline_sets, 0, lab_floor_setup_rsa,
	 lab_floor_run_oaep_wrap, NULL, lab_floor_teardown, send_core},
	{"floor:rsa_oaep_unwrap", pipeline_sets, 0, lab_floor_setup_rsa,
	 lab_floor_run_oaep_unwrap, NULL, lab_floor_teardown, pipeline_core},
};

const size_t lab_ncases = sizeof lab_cases / sizeof lab_cases[0];
