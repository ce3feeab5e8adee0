/*
 * args.c - the command lines of serve and load: the options of a table,
 * each handed to the command's setter, the required ones checked; and
 * the numbers they take.
 * Not for: the tables (opts.c) or what each option means (serve.c,
 * load.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/http/args.h"
#include "util/alloc.h"

int http_parse_uint(const char *opt, const char *s, unsigned max,
		    unsigned *out, lab_err *err)
{
	size_t v;
	int rc = lab_parse_size(opt, s, &v, err);

	if (rc == LAB_OK && v > max)
		rc = lab_fail(err, LAB_EUSAGE, "%s must be at most %u", opt,
			      max);
	if (rc == LAB_OK)
		*out = (unsigned)v;
	return rc;
}

static int given(char **rest, int nrest, const char *name)
{
	int i;

	for (i = 0; i < nrest; i++)
		if (strcmp(rest[i], name) == 0)
			return 1;
	return 0;
}

int http_args(int argc, char **argv, const lab_opt *opts, lab_io *io,
	      http_set_fn set, void *ctx, lab_err *err)
{
	char **rest = lab_calloc((size_t)argc + 1, sizeof *rest);
	const lab_opt *o;
	int nrest = 0, i, rc;

	if (rest == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = lab_io_args(argc, argv, opts, io, rest, &nrest, err);
	for (i = 0; rc == LAB_OK && i < nrest; i++) {
		o = lab_opt_find(opts, rest[i]);
		if (o == NULL)
			rc = lab_fail(err, LAB_EUSAGE, "unknown option '%s'",
				      rest[i]);
		else
			rc = set(ctx, o->name,
				 o->arg != NULL ? rest[++i] : NULL, err);
	}
	for (o = opts; rc == LAB_OK && o->name != NULL; o++)
		if (o->required && !given(rest, nrest, o->name))
			rc = lab_fail(err, LAB_EUSAGE, "%s is required",
				      o->name);
	lab_free(rest);
	return rc;
}
