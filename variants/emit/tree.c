/*
 * tree.c - emit=tree: content parsed from bytes the document took is
 * written from its nodes, like any other; the bytes are wiped and freed
 * as soon as they are parsed, and a digest always walks the nodes.
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "tree";
const int dom__emit_keeps = 0;
const int dom__emit_whole = 0;
