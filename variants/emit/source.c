/*
 * source.c - emit=source: the bytes dom_replace_parsed took are kept and
 * written back for the content they were parsed into while the document
 * is unchanged (decrypted plaintext: a copy instead of a walk), and a
 * digest takes them where the parser found them canonical (dom/kept.c).
 */
#include "dom/emit.h"

const char dom__emit_choice[] = "source";
const int dom__emit_keeps = 1;
const int dom__emit_whole = 0;
