/*
 * version.c - `--version` (version.h): the generated file's version and
 * commit with the variant this binary was built as.
 * Not for: the generated strings themselves (mk/build.mk writes them).
 */
#include "harness/cli/version.h"

#include "dom/dom.h"

void lab_print_version(FILE *f, const char *prog)
{
	fprintf(f, "%s %s (commit %s, variant %s)\n", prog, lab_version(),
		lab_commit(), dom_variant_name());
}
