/*
 * variant.c - names the choice each axis took in this build, from the
 * strings the linked variant files define; the Makefile decides, this
 * only reports.
 */
#include "dom/attrlist.h"
#include "dom/attrs.h"
#include "dom/build.h"
#include "dom/emit.h"
#include "dom/hash.h"
#include "dom/parser.h"
#include "dom/userdata.h"

/* The Makefile defines both for every object; a build without it (a
 * linter's) names nothing. */
#ifndef DOMLAB_PRESET
#define DOMLAB_PRESET ""
#endif
#ifndef DOMLAB_VARIANT
#define DOMLAB_VARIANT ""
#endif

static const dom_axis_choice axes[] = {
	{"attrs", dom__attrs_choice},
	{"userdata", dom__userdata_choice},
	{"build", dom__build_choice},
	{"attrlist", dom__attrlist_choice},
	{"parser", dom__parser_choice},
	{"emit", dom__emit_choice},
	{"hash", dom__hash_choice},
};

size_t dom_variant_axes(const dom_axis_choice **out)
{
	*out = axes;
	return sizeof axes / sizeof axes[0];
}

const char *dom_variant_name(void)
{
	return DOMLAB_VARIANT;
}

const char *dom_variant_preset(void)
{
	return DOMLAB_PRESET;
}
