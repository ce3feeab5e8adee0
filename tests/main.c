/*
 * main.c - runs the test tables: `test-libdomlab DATA_DIR [FILTER]`.
 *
 * Prints `FAIL name: file:line: message` for each failing test (its first
 * failed check, and how many more failed), then one line
 * `N passed, N failed` where N counts test functions, not checks.  A test
 * that made no check at all fails: it proved nothing.  Exit status 0 only
 * when none failed.  FILTER keeps the tests whose name contains it.
 * Not for: the checks themselves (tests/test_*.c) or shared helpers
 * (tests/util.c).
 */
#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/version.h"
#include "tests/check.h"

const char *t_data_dir;

static struct {
	size_t checks;     /* checks run in the current test */
	size_t failed;     /* of which failed */
	int muted;         /* failures go to `silenced` instead */
	size_t silenced;
	char first[1024];  /* the first failure: "file:line: message" */
	char context[256];
} cur;

int t_pass(void)
{
	cur.checks++;
	return 1;
}

int t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	cur.checks++;
	if (cur.muted) {
		cur.silenced++;
		return 0;
	}
	if (cur.failed++ > 0)
		return 0;
	n = snprintf(cur.first, sizeof cur.first, "%s:%d: %s%s", file, line,
		     cur.context, cur.context[0] != '\0' ? ": " : "");
	if (n < 0 || (size_t)n >= sizeof cur.first)
		return 0;
	va_start(ap, fmt);
	vsnprintf(cur.first + n, sizeof cur.first - (size_t)n, fmt, ap);
	va_end(ap);
	return 0;
}

void t_context(const char *fmt, ...)
{
	va_list ap;

	cur.context[0] = '\0';
	if (fmt == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(cur.context, sizeof cur.context, fmt, ap);
	va_end(ap);
}

void t_mute_begin(void)
{
	cur.muted = 1;
	cur.silenced = 0;
}

size_t t_mute_end(void)
{
	cur.muted = 0;
	return cur.silenced;
}

/* Up to 48 bytes of s from off, non-printable bytes as \xNN. */
static void excerpt(char *out, size_t cap, const unsigned char *s,
		    size_t len, size_t off)
{
	size_t i, n = 0;

	out[0] = '\0';
	for (i = off; i < len && i < off + 48 && n + 5 < cap; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			n += (size_t)snprintf(out + n, cap - n, "%c", s[i]);
		else
			n += (size_t)snprintf(out + n, cap - n, "\\x%02x", s[i]);
	}
}

int t_eq_int(const char *file, int line, const char *what, long long got,
	     long long want)
{
	if (got == want)
		return t_pass();
	return t_fail(file, line, "%s is %lld, want %lld", what, got, want);
}

int t_eq_str(const char *file, int line, const char *what, const char *got,
	     const char *want)
{
	if (got == want || (got != NULL && want != NULL && !strcmp(got, want)))
		return t_pass();
	return t_fail(file, line, "%s is %s%.200s%s, want %s%.200s%s", what,
		      got ? "\"" : "", got ? got : "NULL", got ? "\"" : "",
		      want ? "\"" : "", want ? want : "NULL", want ? "\"" : "");
}

int t_eq_mem(const char *file, int line, const char *what, const void *got,
	     size_t glen, const void *want, size_t wlen)
{
	const unsigned char *g = got, *w = want;
	char ge[256], we[256];
	size_t i, from;

	if (glen == wlen && (glen == 0 || memcmp(got, want, glen) == 0))
		return t_pass();
	for (i = 0; i < glen && i < wlen && g[i] == w[i]; i++)
		;
	from = i > 16 ? i - 16 : 0;
	excerpt(ge, sizeof ge, g, glen, from);
	excerpt(we, sizeof we, w, wlen, from);
	return t_fail(file, line,
		      "%s differs at byte %zu (%zu vs %zu bytes): got \"%s\", "
		      "want \"%s\"", what, i, glen, wlen, ge, we);
}

int t_ok(const char *file, int line, const char *what, int rc,
	 const lab_err *err)
{
	if (rc == LAB_OK)
		return t_pass();
	return t_fail(file, line, "%s returned %d (%s)", what, rc,
		      err != NULL ? err->msg : "");
}

static const t_case *const groups[] = {
	tests_worker, /* first: its fork test (test_worker.c) */
	tests_roundtrip, tests_diff, tests_attrs, tests_ns, tests_tree,
	tests_fragment, tests_ids, tests_userdata, tests_errors, tests_profile,
	tests_limits, tests_alloc, tests_c14n, tests_canon, tests_sha,
	tests_base64, tests_rsa_aes, tests_xmlsec_vectors, tests_keycache,
	tests_keyfile, tests_wss,
	tests_tokens, tests_multipart,
	tests_threads, tests_pipelined, tests_digest_ahead, tests_feed,
	tests_timeline,
	tests_writer,
	tests_hist, tests_wordscan, tests_textruns,
};

int main(int argc, char **argv)
{
	const char *filter = argc > 2 ? argv[2] : NULL;
	size_t passed = 0, failed = 0, g;

	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		lab_print_version(stdout, "test-libdomlab");
		return 0;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s DATA_DIR [FILTER] | --version\n",
			argv[0]);
		return 2;
	}
	t_data_dir = argv[1];
	for (g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		const t_case *t;

		for (t = groups[g]; t->name != NULL; t++) {
			if (filter != NULL && strstr(t->name, filter) == NULL)
				continue;
			memset(&cur, 0, sizeof cur);
			t->fn();
			if (cur.checks == 0)
				t_fail(__FILE__, __LINE__, "no check ran");
			if (cur.failed == 0) {
				passed++;
				continue;
			}
			failed++;
			printf("FAIL %s: %s", t->name, cur.first);
			if (cur.failed > 1)
				printf(" (and %zu more failed checks)",
				       cur.failed - 1);
			printf("\n");
		}
	}
	printf("%zu passed, %zu failed\n", passed, failed);
	xmlCleanupParser();
	return failed == 0 ? 0 : 1;
}
