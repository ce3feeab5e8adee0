/*
 * check.h - the test framework: a test is a void function listed in its
 * file's table, checks record the first failure's file:line and message
 * and carry on, and main.c runs the tables and prints the verdicts.
 *
 * Each CHECK is an expression worth 1 when it held and 0 when it failed,
 * so a test can stop before using a pointer a failed check just refused:
 *	if (!CHECK(doc != NULL))
 *		return;
 * Not for: timing, forking, or catching crashes (a crash ends the run).
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stddef.h>

#include "util/err.h"

typedef struct t_case {
	const char *name;
	void (*fn)(void);
} t_case;

/* The data directory (argv[1]), without a trailing slash needed. */
extern const char *t_data_dir;

/* Counts a check that held; returns 1. */
int t_pass(void);
/* Records a check that failed; returns 0. */
int t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Context prefixed to every failure message until changed or the test
 * ends, for checks inside loops and helpers ("seed 17", "file x.xml").
 * t_context(NULL) clears it.
 */
void t_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Between t_mute_begin() and t_mute_end(), failed checks are counted but
 * do not fail the test; t_mute_end() returns how many failed.  For
 * showing that a checking helper notices what it should.
 */
void t_mute_begin(void);
size_t t_mute_end(void);

int t_eq_int(const char *file, int line, const char *what, long long got,
	     long long want);
int t_eq_str(const char *file, int line, const char *what, const char *got,
	     const char *want);
int t_eq_mem(const char *file, int line, const char *what, const void *got,
	     size_t glen, const void *want, size_t wlen);
int t_ok(const char *file, int line, const char *what, int rc,
	 const lab_err *err);

#define CHECK(c) ((c) ? t_pass() : t_fail(__FILE__, __LINE__, "%s", #c))
#define CHECK_MSG(c, ...) \
	((c) ? t_pass() : t_fail(__FILE__, __LINE__, __VA_ARGS__))
/* A failure with no condition, where the test has already branched. */
#define FAIL(...) t_fail(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK_EQ_INT(got, want) \
	t_eq_int(__FILE__, __LINE__, #got, (long long)(got), (long long)(want))
/* Either side may be NULL; NULL equals only NULL. */
#define CHECK_EQ_STR(got, want) t_eq_str(__FILE__, __LINE__, #got, (got), (want))
#define CHECK_EQ_MEM(got, glen, want, wlen) \
	t_eq_mem(__FILE__, __LINE__, #got, (got), (glen), (want), (wlen))
/* rc == LAB_OK, else the failure shows err's message. */
#define CHECK_OK(rc, err) t_ok(__FILE__, __LINE__, #rc, (rc), (err))

/* The tables, one per tests/test_*.c, each ending in {NULL, NULL}. */
extern const t_case tests_alloc[];
extern const t_case tests_attrs[];
extern const t_case tests_diff[];
extern const t_case tests_errors[];
extern const t_case tests_profile[];
extern const t_case tests_fragment[];
extern const t_case tests_ids[];
extern const t_case tests_limits[];
extern const t_case tests_ns[];
extern const t_case tests_roundtrip[];
extern const t_case tests_tree[];
extern const t_case tests_userdata[];
extern const t_case tests_c14n[];
extern const t_case tests_canon[];
extern const t_case tests_sha[];
extern const t_case tests_base64[];
extern const t_case tests_rsa_aes[];
extern const t_case tests_xmlsec_vectors[];
extern const t_case tests_keycache[];
extern const t_case tests_keyfile[];
extern const t_case tests_wss[];
extern const t_case tests_tokens[];
extern const t_case tests_multipart[];
extern const t_case tests_threads[];
extern const t_case tests_pipelined[];
extern const t_case tests_feed[];
extern const t_case tests_timeline[];
extern const t_case tests_worker[];
extern const t_case tests_digest_ahead[];
extern const t_case tests_writer[];
extern const t_case tests_hist[];
extern const t_case tests_wordscan[];
extern const t_case tests_textruns[];

#endif
