/*
 * cli_main.c - what domlab and domlab-bench share as command lines:
 * finds the command in the binary's table, answers --help from its table
 * of options, and maps its result to the exit code (0 ok, 1 usage,
 * 2 malformed input, 3 security failure, 4 I/O, 5 out of memory).
 * Not for: the tables themselves (harness/cli/main.c, harness/bench/bench_main.c)
 * or the commands (harness/cli/cmd_*.c).
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/version.h"

static const lab_opt help_opts[] = {
	{"-h, --help", NULL, 0, "print this help"}, {NULL, NULL, 0, NULL}};

static const lab_opt *own_opts(const lab_command *c)
{
	return c->run != NULL ? c->opts : lab_wss_options(c->name);
}

static void synopsis(FILE *f, const lab_program *p, const lab_command *c)
{
	const lab_opt *o;

	fprintf(f, "%s %s", p->name, c->name);
	if (c->lead != NULL)
		fprintf(f, " %s", c->lead);
	for (o = own_opts(c); o != NULL && o->name != NULL; o++)
		fprintf(f, " %s%s%s%s%s", o->required ? "" : "[", o->name,
			o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "",
			o->required ? "" : "]");
	fprintf(f, "%s%s\n", c->takes & LAB_TAKES_LIMITS ? " [LIMITS]" : "",
		c->takes & LAB_TAKES_IO ? " [FILE] [-o FILE]" : "");
}

enum { WIDTH = 79, COL = 28 };

/* Prints text from column col on, lines broken at spaces before WIDTH;
 * at is the column the cursor is in (at col or past it: a new line
 * first, so the text never runs into what is before it). */
static void wrap(int at, int col, const char *text)
{
	if (at > 0 && at >= col) {
		putchar('\n');
		at = 0;
	}
	while (*text != '\0') {
		size_t n = strlen(text);

		if (n > (size_t)(WIDTH - col)) {
			n = (size_t)(WIDTH - col);
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(text, " ");
		}
		printf("%*s%.*s\n", col - at, "", (int)n, text);
		at = 0;
		text += n;
		text += strspn(text, " ");
	}
}

/* Each option: its name and value, then what it does. */
static void describe(const lab_opt *opts)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		wrap(printf("  %s%s%s", opts->name, opts->arg ? " " : "",
			    opts->arg ? opts->arg : ""),
		     COL, opts->help);
}

static int command_help(const lab_program *p, const lab_command *c)
{
	fputs("usage: ", stdout);
	synopsis(stdout, p, c);
	wrap(0, 0, c->what);
	putchar('\n');
	describe(own_opts(c));
	if (c->takes & LAB_TAKES_IO) {
		wrap(printf("  FILE"), COL, "the input (default: standard input)");
		describe(lab_io_opts);
	}
	if (c->takes & LAB_TAKES_LIMITS) {
		puts("LIMITS (N = 0 keeps the default; a broken limit is exit "
		     "code 2, no output):");
		describe(lab_limit_opts);
	}
	describe(help_opts);
	return fflush(stdout) == 0 ? LAB_OK : LAB_EIO;
}

/* Whether any of p's commands takes the parser's limits. */
static int any_limits(const lab_program *p)
{
	size_t i;

	for (i = 0; i < p->ncommands; i++)
		if (p->commands[i].takes & LAB_TAKES_LIMITS)
			return 1;
	return 0;
}

static int usage(FILE *f, const lab_program *p)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [options]\n", p->name);
	for (i = 0; i < p->ncommands; i++) {
		fputs("  ", f);
		synopsis(f, p, &p->commands[i]);
	}
	if (any_limits(p))
		fputs("LIMITS: --max-input N --max-depth N --max-attrs N "
		      "--max-name N --max-text N --max-ns N\n",
		      f);
	fprintf(f,
		"`%s COMMAND --help` says what each option does; `%s "
		"--version` the version,\ncommit and variant.  Exit codes: 0 "
		"ok, 1 usage, 2 malformed input, 3 security\nfailure, 4 I/O, "
		"5 out of memory.\n",
		p->name, p->name);
	return f == stdout ? LAB_OK : LAB_EUSAGE;
}

static const lab_command *find(const lab_program *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->ncommands; i++)
		if (strcmp(name, p->commands[i].name) == 0)
			return &p->commands[i];
	return NULL;
}

static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

int lab_main(const lab_program *p, int argc, char **argv)
{
	const lab_command *c;
	const char *name;
	lab_err err;
	int rc, help;

	if (argc < 2)
		return usage(stderr, p);
	/* The binary's own name: domlab-http runs under domlab's. */
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		const char *slash = strrchr(argv[0], '/');

		lab_print_version(stdout, slash != NULL ? slash + 1 : argv[0]);
		return LAB_OK;
	}
	/* `PROGRAM help [COMMAND]` is `PROGRAM [COMMAND] --help`. */
	help = strcmp(argv[1], "help") == 0;
	if (wants_help(1, argv + 1) || (help && argc == 2))
		return usage(stdout, p);
	name = argv[help ? 2 : 1];
	c = find(p, name);
	if (c == NULL) {
		fprintf(stderr, "%s: unknown command '%s'\n", p->name, name);
		return usage(stderr, p);
	}
	if (help || wants_help(argc - 2, argv + 2))
		return command_help(p, c);
	lab_err_clear(&err);
	rc = c->run != NULL ? c->run(argc - 2, argv + 2, &err)
			    : lab_cmd_wss(c->name, argc - 2, argv + 2, &err);
	if (rc == LAB_OK)
		return LAB_OK;
	if (err.code == LAB_OK)
		lab_fail(&err, rc, "%s", lab_strerror(rc));
	lab_report(p->name, c->name, &err);
	if (rc == LAB_EUSAGE) {
		fputs("usage: ", stderr);
		synopsis(stderr, p, c);
		fprintf(stderr, "`%s %s --help` says what each option does.\n",
			p->name, c->name);
	}
	return rc;
}
