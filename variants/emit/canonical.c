/*
 * canonical.c - emit=canonical: source's, and the insitu parser also
 * writes, while it reads a document, the exclusive canonical form of the
 * content of the root element's largest child (the Body of a message to
 * sign) where that content is canonical but for the order of attributes,
 * so that signing it digests those bytes instead of walking the nodes.
 * The parse pays for it (a check per tag and a copy of the content) for
 * every document, signed or not.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "canonical";
const int dom__emit_keeps = 1;
const int dom__emit_whole = 1;
