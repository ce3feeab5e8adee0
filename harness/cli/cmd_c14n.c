/*
 * cmd_c14n.c - `domlab c14n`: canonical form of a document or of one
 * element's subtree, chosen by ID (--id, the node-set of a "#id"
 * reference) or by name (--apex "{uri}local", first in document order).
 */
#include <string.h>

#include "util/alloc.h"
#include "harness/cli/cli.h"
#include "wss/c14n.h"

enum { MAX_PREFIXES = 64 };

/* The first element named "{uri}local" or "local" in document order. */
static const dom_node *find_apex(dom_doc *doc, const char *clark)
{
	const char *uri = NULL, *local = clark;
	const dom_node *n = dom_doc_node(doc);

	if (clark[0] == '{') {
		const char *close = strchr(clark, '}');

		if (close == NULL)
			return NULL;
		local = close + 1;
		if (close > clark + 1) {
			uri = dom_intern_find(doc, clark + 1,
					      (size_t)(close - clark - 1));
			if (uri == NULL)
				return NULL;
		}
	}
	local = dom_intern_find(doc, local, strlen(local));
	for (; n != NULL && local != NULL; n = lab_next_node(n))
		if (dom_is(n, uri, local))
			return n;
	return NULL;
}

/* Splits the PrefixList on spaces and commas, in place. */
static int split_prefixes(char *s, const char **out, size_t *n, lab_err *err)
{
	char *tok, *save = NULL;

	*n = 0;
	for (tok = strtok_r(s, " ,", &save); tok != NULL;
	     tok = strtok_r(NULL, " ,", &save)) {
		if (*n == MAX_PREFIXES)
			return lab_fail(err, LAB_EUSAGE,
					"more than %d prefixes", MAX_PREFIXES);
		out[(*n)++] = tok;
	}
	return LAB_OK;
}

const lab_opt lab_c14n_options[] = {
	{"--exclusive", NULL, 0,
	 "Exclusive XML Canonicalization 1.0 (default: Canonical XML 1.0)"},
	{"--with-comments", NULL, 0, "keep comments (default: left out)"},
	{"--prefixes", "\"p1 p2\"", 0,
	 "the InclusiveNamespaces PrefixList, spaces or commas between "
	 "prefixes, #default for the default namespace (with --exclusive)"},
	{"--id", "ID", 0,
	 "only the subtree of the element with this ID, as a \"#ID\" "
	 "reference selects it"},
	{"--apex", "{URI}LOCAL", 0,
	 "only the subtree of the first element with this name"},
	{NULL, NULL, 0, NULL}};

int lab_cmd_c14n(int argc, char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	const char *prefixes[MAX_PREFIXES];
	const char *id = NULL, *apex_name = NULL;
	wss_c14n_opts o;
	const dom_node *top;
	dom_doc *doc = NULL;
	char **rest;
	lab_io io;
	int nrest, i, rc;

	memset(&o, 0, sizeof o);
	rest = lab_calloc((size_t)argc + 1, sizeof *rest);
	if (rest == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = lab_io_args(argc, argv, lab_c14n_options, &io, rest, &nrest, err);
	for (i = 0; rc == LAB_OK && i < nrest; i++) {
		const char *a = rest[i];

		if (strcmp(a, "--exclusive") == 0)
			o.exclusive = 1;
		else if (strcmp(a, "--with-comments") == 0)
			o.with_comments = 1;
		else if (strcmp(a, "--prefixes") == 0)
			rc = split_prefixes(rest[++i], prefixes, &o.nprefixes,
					    err);
		else if (strcmp(a, "--id") == 0)
			id = rest[++i];
		else if (strcmp(a, "--apex") == 0)
			apex_name = rest[++i];
		else
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'", a);
	}
	if (rc != LAB_OK)
		goto out;
	o.prefixes = prefixes;
	rc = lab_load_doc(&io, &in, &doc, err);
	if (rc != LAB_OK)
		goto out;
	top = dom_doc_node(doc);
	if (id != NULL) {
		size_t count;

		top = dom_get_by_id(doc, id, &count);
		if (count > 1)
			rc = lab_fail(err, LAB_EMALFORMED,
				      "ID '%s' is carried by %zu elements", id,
				      count);
	} else if (apex_name != NULL) {
		top = find_apex(doc, apex_name);
	}
	if (rc == LAB_OK && top == NULL)
		rc = lab_fail(err, LAB_EMALFORMED, "no element %s '%s'",
			      id != NULL ? "with ID" : "named",
			      id != NULL ? id : apex_name);
	if (rc == LAB_OK)
		rc = wss_c14n_buf(top, &o, &out, err);
	if (rc == LAB_OK)
		rc = lab_write_output(io.out, out.data, out.len, err);
out:
	dom_doc_free(doc);
	lab_free(rest);
	lab_buf_free(&in);
	lab_buf_free(&out);
	return rc;
}
