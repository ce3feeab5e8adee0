/*
 * cmd_parse.c - `domlab parse`: builds the tree through this variant and
 * serializes it back; --stats reports what the tree holds on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "harness/cli/cli.h"

static void print_stats(dom_doc *doc, const lab_mem_stats *mem)
{
	dom_doc_stats s;

	dom_doc_stats_get(doc, &s);
	fprintf(stderr,
		"elements %zu\nattributes %zu\nnamespace_decls %zu\n"
		"text_nodes %zu\nother_nodes %zu\n"
		"arena_bytes_used %zu\narena_bytes_held %zu\n"
		"arena_allocations %zu\n"
		"parse_allocations %llu\nparse_bytes_requested %llu\n"
		"parse_peak_heap_bytes %lld\n"
		"bytes_per_element %.1f\n",
		s.elements, s.attributes, s.nsdecls, s.texts, s.others,
		s.arena_used, s.arena_held, s.allocs,
		(unsigned long long)mem->allocs,
		(unsigned long long)mem->bytes, (long long)mem->peak,
		s.elements ? (double)s.arena_used / (double)s.elements : 0.0);
}

const lab_opt lab_parse_options[] = {
	{"--stats", NULL, 0,
	 "print the node, attribute and namespace counts and the bytes and "
	 "allocations the tree holds to standard error"},
	{NULL, NULL, 0, NULL}};

int lab_cmd_parse(int argc, char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	char **rest = NULL;
	lab_mem_stats mem;
	dom_doc *doc = NULL;
	lab_io io;
	int nrest, i, stats = 0, rc;

	rest = lab_calloc((size_t)argc + 1, sizeof *rest);
	if (rest == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = lab_io_args(argc, argv, lab_parse_options, &io, rest, &nrest, err);
	for (i = 0; rc == LAB_OK && i < nrest; i++) {
		if (strcmp(rest[i], "--stats") == 0)
			stats = 1;
		else
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'",
				      rest[i]);
	}
	if (rc == LAB_OK)
		rc = lab_read_input(io.in, io.lim.max_input, &in, err);
	if (rc != LAB_OK)
		goto out;
	lab_mem_reset();
	rc = dom_parse(in.data, in.len, &io.lim, &doc, err);
	mem = lab_mem_get();
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &out, err);
	if (rc == LAB_OK)
		rc = lab_write_output(io.out, out.data, out.len, err);
	if (rc == LAB_OK && stats)
		print_stats(doc, &mem);
out:
	dom_doc_free(doc);
	lab_free(rest);
	lab_buf_free(&in);
	lab_buf_free(&out);
	return rc;
}
