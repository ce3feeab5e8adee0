/*
 * cmd_variant.c - `domlab variant`: the variant's name (a preset and
 * what differs from it, as the Makefile spells it), the preset, and the
 * choice of every axis this binary was built with, so scripts and reports
 * never have to trust a path name.
 */
#include <stdio.h>

#include "harness/cli/cli.h"

int lab_cmd_variant(int argc, char **argv, lab_err *err)
{
	dom_axis_choice axes[16];
	size_t n, i;

	if (argc != 0)
		return lab_fail(err, LAB_EUSAGE,
				"unexpected argument '%s': variant takes none",
				argv[0]);
	printf("variant=%s\npreset=%s\n", dom_variant_name(),
	       dom_variant_preset());
	n = lab_variant_axes(axes, sizeof axes / sizeof axes[0]);
	for (i = 0; i < n; i++)
		printf("%s=%s\n", axes[i].axis, axes[i].choice);
	return fflush(stdout) == 0 ? LAB_OK
				   : lab_fail(err, LAB_EIO,
					      "cannot write standard output");
}
