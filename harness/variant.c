/*
 * variant.c - every axis this binary was built with: the DOM's own
 * (dom_variant_axes) and the pipeline's (keys), in the order the
 * Makefile names them, for `domlab variant` and the benchmark's JSON.
 */
#include "harness/cli.h"

#include <string.h>

#include "wss/keys.h"

size_t lab_variant_axes(dom_axis_choice *out, size_t cap)
{
	const dom_axis_choice *dom;
	size_t n = dom_variant_axes(&dom), i, k = 0;

	/* DESIGN.md's order: the pipeline's axes come before `parser`, the
	 * DOM axis added after them. */
	for (i = 0; i < n && k < cap; i++) {
		if (strcmp(dom[i].axis, "parser") == 0 && k < cap)
			out[k++] = (dom_axis_choice){"keys", wss__keys_choice};
		if (k < cap)
			out[k++] = dom[i];
	}
	return k;
}
