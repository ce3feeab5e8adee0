/*
 * hash.h - the `hash` axis: the hash every table that input fills goes
 * through (interned names and qualified-name records, the attribute
 * index, the insitu parser's duplicate-attribute and namespace tables,
 * the ID index, the token store).
 *
 * `fixed` is an unkeyed function, the same in every process: whoever
 * knows it can write names, IDs or attribute values that all land in one
 * slot, and every insertion then walks the others (what Xerces-J's
 * SymbolTable and Java's HashMap did until hash flooding, oCERT-2011-003
 * and CVE-2012-0881).  `keyed` is SipHash-1-3 under a 128-bit key drawn
 * from the OS once per process, so where a value lands cannot be
 * predicted from outside.  DOMLAB_HASH_KEY=<32 hex digits> fixes the key
 * (tests and benchmarks that want a reproducible layout); every choice
 * refuses a malformed one, so a script that sets it means the same thing
 * on every variant.  Output never depends on the choice: only where
 * entries sit in the tables does.
 * Choices: variants/hash/{fixed,keyed}.c; the key: dom/hash_key.c.
 * Not for: digests or anything an attacker may not learn the output of
 * (the hash value is not a MAC here); the insitu parser's memos, which
 * are caches of a fixed size that a miss only makes slower by one probe.
 */
#ifndef DOM_HASH_AXIS_H
#define DOM_HASH_AXIS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Sets the key up, once per process and thread-safe; every entry point
 * that makes a table calls it first (dom_doc_new, wss_tokens_new), so
 * no table is ever filled under another key.  LAB_EUSAGE when
 * DOMLAB_HASH_KEY is set but not 32 hex digits, LAB_EIO when the OS has
 * no random bytes to give.
 */
int dom__hash_ready(lab_err *err);

/* The hash of p[0..len). */
uint32_t dom__hash_bytes(const void *p, size_t len);

/* The hash of up to three pointers (NULL for the ones not used): tables
 * keyed by interned names compare pointers, so they hash pointers. */
uint32_t dom__hash_ptrs(const void *a, const void *b, const void *c);

/* What a choice defines besides the two functions: the key it takes
 * when DOMLAB_HASH_KEY is unset (keyed draws one from the OS; fixed has
 * none and leaves key as it is; LAB_EIO with err set when the OS has no
 * random bytes), and where the key goes.  dom__hash_ready (dom/hash_key.c)
 * calls them once, before any table. */
extern const char dom__hash_choice[];
int dom__hash_key_unset(unsigned char key[16], lab_err *err);
void dom__hash_set_key(const unsigned char key[16]);

#endif
