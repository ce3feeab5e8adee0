/*
 * variant.c - every axis this binary was built with: the DOM's own
 * (dom_variant_axes) and the pipeline's (keys, tokens, io), in the order the
 * Makefile names them, for `domlab variant` and the benchmark's JSON.
 */
#include "harness/cli.h"

#include "wss/io.h"
#include "wss/keys.h"
#include "wss/tokens.h"

size_t lab_variant_axes(dom_axis_choice *out, size_t cap)
{
	const dom_axis_choice *dom;
	size_t n = dom_variant_axes(&dom), i, k = 0;

	for (i = 0; i < n && k < cap; i++)
		out[k++] = dom[i];
	if (k < cap)
		out[k++] = (dom_axis_choice){"keys", wss__keys_choice};
	if (k < cap)
		out[k++] = (dom_axis_choice){"tokens", wss__tokens_choice};
	if (k < cap)
		out[k++] = (dom_axis_choice){"io", wss__io_choice};
	return k;
}
