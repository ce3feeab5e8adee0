/*
 * cmd_gen.c - `domlab gen`: writes a generated dataset (datasets/gen.h).
 */
#include <stdlib.h>
#include <string.h>

#include "datasets/gen.h"
#include "harness/cli.h"

const lab_opt lab_gen_options[] = {
	{"--size", "BYTES", 0,
	 "about this many bytes (exactly, for bytes); wins over --count"},
	{"--count", "N", 0,
	 "how many: records (quakes), items (ints, strings), rows (wide), "
	 "levels (deep), about that many nodes (random), prefixes "
	 "declared (wide-ns)"},
	{"--seed", "S", 0, "the generator's seed: the same seed, the same bytes"},
	{"-o", "FILE", 0,
	 "write to FILE (through a temporary file renamed into place) "
	 "instead of standard output"},
	{NULL, NULL, 0, NULL}};

int lab_cmd_gen(int argc, char **argv, lab_err *err)
{
	lab_gen_opts o;
	const char *out = NULL;
	lab_buf b = LAB_BUF_INIT;
	size_t seed = 0;
	int i, rc = LAB_OK, have_kind = 0;

	memset(&o, 0, sizeof o);
	for (i = 0; i < argc && rc == LAB_OK; i++) {
		const char *a = argv[i];

		if (i + 1 < argc && strcmp(a, "--size") == 0)
			rc = lab_parse_size(a, argv[++i], &o.size, err);
		else if (i + 1 < argc && strcmp(a, "--count") == 0)
			rc = lab_parse_size(a, argv[++i], &o.count, err);
		else if (i + 1 < argc && strcmp(a, "--seed") == 0)
			rc = lab_parse_size(a, argv[++i], &seed, err);
		else if (i + 1 < argc && strcmp(a, "-o") == 0)
			out = argv[++i];
		else if (!have_kind && a[0] != '-') {
			rc = lab_gen_kind_parse(a, &o.kind);
			if (rc != LAB_OK)
				lab_fail(err, rc, "unknown dataset '%s'", a);
			have_kind = 1;
		} else
			rc = lab_fail(err, LAB_EUSAGE, "unexpected argument '%s'",
				      a);
	}
	if (rc == LAB_OK && !have_kind)
		rc = lab_fail(err, LAB_EUSAGE, "which dataset?");
	if (rc != LAB_OK)
		goto out;
	o.seed = seed;
	rc = lab_gen(&o, &b, err);
	if (rc == LAB_OK)
		rc = lab_write_output(out, b.data, b.len, err);
out:
	lab_buf_free(&b);
	return rc;
}
