/*
 * util.h - helpers the test files share: parsing and serializing with the
 * failure recorded at the caller's line, finding elements, reading data
 * files, and the table of generator documents every whole-document test
 * runs over.
 * Not for: checks of their own beyond reporting a helper's failure.
 */
#ifndef TESTS_UTIL_H
#define TESTS_UTIL_H

#include <string.h>

#include "datasets/gen.h"
#include "dom/dom.h"
#include "tests/check.h"

/* Parses len bytes; on failure records it and returns NULL. */
dom_doc *t_parse_at(const char *file, int line, const char *s, size_t len,
		    const dom_limits *lim);
#define T_PARSE(s) t_parse_at(__FILE__, __LINE__, (s), strlen(s), NULL)
#define T_PARSE_N(s, len) t_parse_at(__FILE__, __LINE__, (s), (len), NULL)

/* Whether this build's variant takes `choice` on `axis`. */
int t_is_choice(const char *axis, const char *choice);

/* Whether this build's parse for signing puts a Body child's start tags
 * in C14N's attribute order where they stand, and tells a feed so
 * (dom/feed.h): parser=insitu, emit=canonical, build=deferred. */
int t_orders_in_place(void);

/*
 * Whether this build's parser reads DTDs (parser=libxml2 does; insitu
 * refuses them, as the SOAP profile does).  Tests of what a DTD does
 * run only where it is read; elsewhere T_DTD_REFUSED checks that `s` is
 * refused, with line, column and a message naming the DTD, and prints a
 * SKIP line saying which part did not run and why.
 */
int t_reads_dtds(void);
int t_dtd_refused_at(const char *file, int line, const char *s, size_t len,
		     const char *what);
#define T_DTD_REFUSED(s, len, what) \
	t_dtd_refused_at(__FILE__, __LINE__, (s), (len), (what))

/* Serializes n into *out (which the caller frees); 1 on success. */
int t_serialize_at(const char *file, int line, const dom_node *n,
		   lab_buf *out);
#define T_SERIALIZE(n, out) t_serialize_at(__FILE__, __LINE__, (n), (out))

/* Checks that n serializes to exactly want. */
int t_serializes_as_at(const char *file, int line, const dom_node *n,
		       const char *want);
#define CHECK_SERIALIZES(n, want) \
	t_serializes_as_at(__FILE__, __LINE__, (n), (want))

/* Appends the generator's document for o to *out; 1 on success. */
/*
 * A writer for lab_buf_init_writer (util/buf.h): appends each piece to
 * `got` and counts it; fails at piece `fail_at` (0: never).  A piece of
 * no bytes is counted in `empty` (the contract says none is handed on).
 */
typedef struct t_pieces {
	lab_buf got;
	size_t calls, fail_at, empty;
	const char *last; /* the last piece's address */
} t_pieces;
int t_take(void *ctx, const char *p, size_t n);

/*
 * Serializes n into one buffer, then through t_take with windows of 1,
 * 2, 3, 7, 64, 4096 and 65536 bytes: each writer must get those bytes
 * exactly, with none left in the window; and a writer that fails at its
 * first, second or last piece must make dom_serialize LAB_EIO, with the
 * failure sticking.
 */
int t_serializes_in_pieces_at(const char *file, int line, const dom_node *n);
#define CHECK_SERIALIZES_IN_PIECES(n) \
	t_serializes_in_pieces_at(__FILE__, __LINE__, (n))

int t_gen_at(const char *file, int line, const lab_gen_opts *o,
	     lab_buf *out);
#define T_GEN(o, out) t_gen_at(__FILE__, __LINE__, (o), (out))

/* The first element at or under top, in document order, named local. */
dom_node *t_find(dom_node *top, const char *local);

/*
 * host parsed, then its element named x replaced by frag through the
 * buffer dom_replace_parsed takes (decryption's path); on failure records
 * it and returns NULL.
 */
dom_doc *t_replaced(const char *host, const char *frag);

/* How many children n has. */
size_t t_nchildren(const dom_node *n);

/* Reads a whole file into *out; 0, or -1 when it cannot. */
int t_read_file(const char *path, lab_buf *out);

/* A fresh temporary directory (under $TMPDIR, else /tmp) into dir, and
 * the file name under it written with p[0..n) (its path into path);
 * t_rm_tmp removes the n names and the directory.  Each records a failure
 * and returns 0 when it cannot. */
int t_tmp_dir(char *dir, size_t cap);
int t_write_tmp(const char *dir, const char *name, const void *p, size_t n,
		char *path, size_t cap);
void t_rm_tmp(const char *dir, const char *const *names, size_t n);

/* t_data_dir "/" rel, into out. */
void t_data_path(char *out, size_t cap, const char *rel);

/* The serializer's escaping, a byte at a time (text leaves " TAB LF >
 * alone): the tests' reference for both XML writers. */
void t_escape_ref(lab_buf *out, const char *v, size_t len, int attr);

/*
 * Calls check on `<r a="V">V</r>` and a newline in the serializer's own
 * form, V being filler with a byte either writer replaces at one place:
 * for every length 1-40, every place and every such byte, then for each
 * of the `nlonger` lengths in `longer` (the writers' direct-write limits)
 * at a few places.  These documents walk the XML writers' escape scan
 * through every length and every place of the byte to escape.
 */
void t_escape_docs(const size_t *longer, size_t nlonger,
		   void (*check)(const char *doc, size_t len));

/* The generator documents: every kind, quakes at three sizes. */
typedef struct t_gen_case {
	const char *name;
	lab_gen_opts opts;
} t_gen_case;

extern const t_gen_case t_gen_cases[];
extern const size_t t_gen_ncases;

#endif
