/*
 * variant.c - every axis this binary was built with: the DOM's own
 * (dom_variant_axes) and the pipeline's (keys, tokens, io, read, pass),
 * in the order the Makefile names them, for `domlab variant` and the
 * benchmark's JSON.
 */
#include "harness/cli/cli.h"

#include <string.h>

#include "wss/io.h"
#include "wss/keys.h"
#include "wss/pass.h"
#include "wss/read.h"
#include "wss/tokens.h"

size_t lab_variant_axes(dom_axis_choice *out, size_t cap)
{
	const dom_axis_choice *dom;
	size_t n = dom_variant_axes(&dom), i, k = 0;
	const dom_axis_choice wss[] = {
		{"keys", wss__keys_choice},
		{"tokens", wss__tokens_choice},
		{"io", wss__io_choice},
	};

	/* docs/design.md's order: the pipeline's axes come before `parser`, the
	 * DOM axis added after them; `read`, the endpoint's, then `pass`
	 * come last. */
	for (i = 0; i < n && k < cap; i++) {
		if (strcmp(dom[i].axis, "parser") == 0) {
			size_t j;

			for (j = 0; j < sizeof wss / sizeof wss[0] && k < cap; j++)
				out[k++] = wss[j];
		}
		if (k < cap)
			out[k++] = dom[i];
	}
	if (k < cap)
		out[k++] = (dom_axis_choice){"read", wss__read_choice};
	if (k < cap)
		out[k++] = (dom_axis_choice){"pass", wss__pass_choice};
	return k;
}
