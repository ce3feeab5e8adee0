/*
 * main.c - the domlab command line: finds the command, answers --help
 * from its table of options, and maps its result to the exit code (0 ok,
 * 1 usage, 2 malformed input, 3 security failure, 4 I/O, 5 out of
 * memory).  Commands live in harness/cmd_*.c, each with its table.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"

/* What a command reads besides its own options. */
enum {
	TAKES_IO = 1,    /* [FILE] [-o FILE] */
	TAKES_LIMITS = 2 /* the parser's limits */
};

/* run NULL: a pipeline command, run by lab_cmd_wss under its name, with
 * its table from lab_wss_options. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv, lab_err *err);
	const char *lead; /* the words before the options, or NULL */
	const lab_opt *opts;
	unsigned takes;
	const char *what;
} commands[] = {
	{"gen", lab_cmd_gen,
	 "quakes|ints|strings|wide|deep|random|bytes|collide-names|"
	 "collide-attrs|collide-ids|wide-ns|many-attrs|many-enc|"
	 "many-enc-body|signedinfo-junk",
	 lab_gen_options, 0,
	 "Writes a generated dataset, the same bytes for the same seed; "
	 "collide-* to signedinfo-junk are the hostile shapes "
	 "(datasets/README.md)."},
	{"parse", lab_cmd_parse, NULL, lab_parse_options,
	 TAKES_IO | TAKES_LIMITS,
	 "Builds the tree of a document (FILE or standard input) through "
	 "this variant and serializes it back."},
	{"c14n", lab_cmd_c14n, NULL, lab_c14n_options, TAKES_IO | TAKES_LIMITS,
	 "Writes the canonical form of a document or of one element's "
	 "subtree."},
	{"sign", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Signs a SOAP envelope: a Timestamp, a BinarySecurityToken and a "
	 "Signature over the Body and the Timestamp."},
	{"verify", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Checks a signed envelope's Timestamp and Signature, then writes "
	 "it."},
	{"encrypt", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Encrypts the Body's content for the recipient."},
	{"decrypt", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Decrypts the Body's content and writes the envelope."},
	{"send", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Signs, then encrypts an envelope; with --attach, writes a "
	 "multipart message."},
	{"receive", NULL, NULL, NULL, TAKES_IO | TAKES_LIMITS,
	 "Checks the Timestamp, decrypts, verifies, then writes the "
	 "envelope; reads a multipart message too."},
	{"ref", lab_cmd_ref, "sign|verify|encrypt|decrypt|send|receive",
	 lab_ref_options, TAKES_IO,
	 "The pipeline's commands done by the reference peer (libxml2 + "
	 "xmlsec1), with the same input, output and exit codes."},
	{"variant", lab_cmd_variant, NULL, NULL, 0,
	 "Prints what this binary was built with: variant=NAME (a preset "
	 "and what differs from it, best+attrs=vector), preset=PRESET, then "
	 "one axis=choice per line."},
	{"bench", lab_cmd_bench, NULL, lab_bench_options, 0,
	 "Runs the benchmark cases under Google Benchmark."},
};

enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static const lab_opt help_opts[] = {
	{"-h, --help", NULL, 0, "print this help"}, {NULL, NULL, 0, NULL}};

static const lab_opt *own_opts(const struct command *c)
{
	return c->run != NULL ? c->opts : lab_wss_options(c->name);
}

static void synopsis(FILE *f, const struct command *c)
{
	const lab_opt *o;

	fprintf(f, "domlab %s", c->name);
	if (c->lead != NULL)
		fprintf(f, " %s", c->lead);
	for (o = own_opts(c); o != NULL && o->name != NULL; o++)
		fprintf(f, " %s%s%s%s%s", o->required ? "" : "[", o->name,
			o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "",
			o->required ? "" : "]");
	fprintf(f, "%s%s\n", c->takes & TAKES_LIMITS ? " [LIMITS]" : "",
		c->takes & TAKES_IO ? " [FILE] [-o FILE]" : "");
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

static int command_help(const struct command *c)
{
	fputs("usage: ", stdout);
	synopsis(stdout, c);
	wrap(0, 0, c->what);
	putchar('\n');
	describe(own_opts(c));
	if (c->takes & TAKES_IO) {
		wrap(printf("  FILE"), COL, "the input (default: standard input)");
		describe(lab_io_opts);
	}
	if (c->takes & TAKES_LIMITS) {
		puts("LIMITS (N = 0 keeps the default; a broken limit is exit "
		     "code 2, no output):");
		describe(lab_limit_opts);
	}
	describe(help_opts);
	return fflush(stdout) == 0 ? LAB_OK : LAB_EIO;
}

static int usage(FILE *f)
{
	size_t i;

	fputs("usage: domlab COMMAND [options]\n", f);
	for (i = 0; i < NCOMMANDS; i++) {
		fputs("  ", f);
		synopsis(f, &commands[i]);
	}
	fputs("LIMITS: --max-input N --max-depth N --max-attrs N --max-name N "
	      "--max-text N --max-ns N\n"
	      "`domlab COMMAND --help` says what each option does.  Exit "
	      "codes: 0 ok, 1 usage,\n2 malformed input, 3 security failure, "
	      "4 I/O, 5 out of memory.\n",
	      f);
	return f == stdout ? LAB_OK : LAB_EUSAGE;
}

static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
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

int main(int argc, char **argv)
{
	const struct command *c;
	const char *name;
	lab_err err;
	int rc, help;

	if (argc < 2)
		return usage(stderr);
	/* `domlab help [COMMAND]` is `domlab [COMMAND] --help`. */
	help = strcmp(argv[1], "help") == 0;
	if (wants_help(1, argv + 1) || (help && argc == 2))
		return usage(stdout);
	name = argv[help ? 2 : 1];
	c = find(name);
	if (c == NULL) {
		fprintf(stderr, "domlab: unknown command '%s'\n", name);
		return usage(stderr);
	}
	if (help || wants_help(argc - 2, argv + 2))
		return command_help(c);
	lab_err_clear(&err);
	rc = c->run != NULL ? c->run(argc - 2, argv + 2, &err)
			    : lab_cmd_wss(c->name, argc - 2, argv + 2, &err);
	if (rc == LAB_OK)
		return LAB_OK;
	if (err.code == LAB_OK)
		lab_fail(&err, rc, "%s", lab_strerror(rc));
	lab_report(c->name, &err);
	if (rc == LAB_EUSAGE) {
		fputs("usage: ", stderr);
		synopsis(stderr, c);
		fprintf(stderr, "`domlab %s --help` says what each option does.\n",
			c->name);
	}
	return rc;
}
