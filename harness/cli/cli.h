/*
 * cli.h - what the domlab commands share: reading the input, writing the
 * output only once it is complete, and reporting errors with the exit
 * code docs/design.md fixes.  Each command lives in its own
 * harness/cli/cmd_*.c (domlab-bench's: harness/bench/cmd_bench.c and
 * harness/refpeer/cmd_ref.c);
 * domlab (harness/cli/main.c) and domlab-bench (harness/bench/bench_main.c) are
 * each a table of them, run by lab_main (harness/cli/cli_main.c).
 */
#ifndef LAB_CLI_H
#define LAB_CLI_H

#include "util/buf.h"
#include "dom/dom.h"
#include "util/err.h"
#include "wss/attach.h"
#include "wss/keys.h"
#include "wss/multipart.h"
#include "wss/wss.h"

/*
 * One option of a command.  Each command's table (NULL name ends it) is
 * what `domlab COMMAND --help` and the usage print, which options
 * lab_io_args takes a value after, and for the pipeline commands which
 * options are accepted and which are required.
 */
typedef struct lab_opt {
	const char *name;
	const char *arg;  /* the value's placeholder; NULL: a flag */
	int required;
	const char *help; /* what it does */
} lab_opt;

/* The option named a in opts, or NULL. */
const lab_opt *lab_opt_find(const lab_opt *opts, const char *a);

/* The options lab_io_args reads for every command that takes them:
 * -o FILE, and the parser's limits (LIMITS). */
extern const lab_opt lab_io_opts[];
extern const lab_opt lab_limit_opts[];

/* What a command reads besides its own options. */
enum {
	LAB_TAKES_IO = 1,    /* [FILE] [-o FILE] */
	LAB_TAKES_LIMITS = 2 /* the parser's limits */
};

/* One command of a binary.  run NULL: a pipeline command, run by
 * lab_cmd_wss under its name, with its table from lab_wss_options. */
typedef struct lab_command {
	const char *name;
	int (*run)(int argc, char **argv, lab_err *err);
	const char *lead; /* the words before the options, or NULL */
	const lab_opt *opts;
	unsigned takes;   /* LAB_TAKES_* */
	const char *what;
} lab_command;

/* A binary's command line: its name and its commands. */
typedef struct lab_program {
	const char *name;
	const lab_command *commands;
	size_t ncommands;
} lab_program;

/* Runs the command argv names (`help` and --help answered from the
 * tables); returns the process's exit code. */
int lab_main(const lab_program *p, int argc, char **argv);

/* Options every command that reads a document and writes one takes. */
typedef struct lab_io {
	const char *in;   /* path, or NULL for standard input */
	const char *out;  /* path, or NULL for standard output */
	dom_limits lim;
} lab_io;

/*
 * Parses the options common to document commands ("-o FILE", "--max-*",
 * one optional input path) out of argv, leaving the command's own options
 * in order in rest[] (*nrest of them, rest has room for argc): those of
 * opts (the command's table, or NULL) that take a value keep it right
 * after them.  LAB_EUSAGE on a malformed option.
 */
int lab_io_args(int argc, char **argv, const lab_opt *opts, lab_io *io,
		char **rest, int *nrest, lab_err *err);

/* Reads the whole input (file or stdin), refusing it (LAB_EMALFORMED) as
 * soon as it holds more than max bytes (0: DOM_DEFAULT_MAX_INPUT). */
int lab_read_input(const char *path, size_t max, lab_buf *out, lab_err *err);

/* Appends the rest of fd to out (path names it in messages; NULL: standard
 * input); max as lab_read_input's, counting what out already holds. */
int lab_read_fd(int fd, const char *path, size_t max, lab_buf *out,
		lab_err *err);

/* Reads io's input into in and parses it within io's limits. */
int lab_load_doc(const lab_io *io, lab_buf *in, dom_doc **doc, lab_err *err);

/*
 * Writes data to path through a temporary file renamed into place, or to
 * stdout; called only with the complete result, so a failure never leaves
 * partial output behind.
 */
int lab_write_output(const char *path, const char *data, size_t len,
		     lab_err *err);

/*
 * A pipeline command's message (harness/cli/cli_attach.c): the envelope, and
 * the attachments that travel with it -- the parts of a multipart input,
 * or the file `send --attach` names.  Zero-initialise; lab_msg_free
 * releases it.
 */
typedef struct lab_msg {
	lab_buf in;            /* plain XML input */
	wss_multipart mp;      /* multipart input */
	int mime;              /* the input was multipart */
	lab_buf att_file;      /* --attach FILE's bytes */
	dom_doc *doc;
	/* send of plain XML: the Body's digest guessed during the parse
	 * (wss/send_ahead.h), or NULL. */
	struct wss_send_ahead *ahead;
	wss_attachment att[WSS_MIME_MAX_PARTS];
	size_t natt;
} lab_msg;

/* Reads io's input: multipart (through the io axis) when allow_mime and
 * it starts with MIME headers, else XML; parses the envelope, with
 * dom_parse_signing_fed when `signing` (the Body is signed next).  send
 * not NULL: the message is sent next with these options, and plain XML
 * has the Body's digest guessed during its parse (m->ahead, whose feed
 * the parse tells). */
int lab_msg_load(const lab_io *io, int allow_mime, int signing,
		 const wss_opts *send, lab_msg *m, lab_err *err);
/* Reads a multipart message from fd through the io axis, after the npre
 * bytes at pre the caller already took from it, within lim (max_input
 * bounds the parts); parses its root part as the envelope. */
int lab_msg_read_mime(int fd, const char *pre, size_t npre,
		      const dom_limits *lim, lab_msg *m, lab_err *err);
/* Reads the file to send as the message's one attachment. */
int lab_msg_attach_file(const char *path, lab_msg *m, lab_err *err);
/* Appends the multipart message of envelope and m's attachments to out. */
int lab_msg_wrap(const lab_msg *m, const lab_buf *envelope, lab_buf *out,
		 lab_err *err);
/* Writes m's first attachment to path (atomically); LAB_EMALFORMED when
 * the message has none. */
int lab_msg_write_attachment(const lab_msg *m, const char *path,
			     lab_err *err);
void lab_msg_free(lab_msg *m);

/* Prints "<prog>: <cmd>: [line L, column C: ]message" to stderr and
 * returns the exit code. */
int lab_report(const char *prog, const char *cmd, const lab_err *err);

/* Every axis of this build, DOM and pipeline, in the Makefile's order;
 * returns how many were written (at most cap). */
size_t lab_variant_axes(dom_axis_choice *out, size_t cap);

/* The node after n in document order (a whole-tree walk), or NULL. */
const dom_node *lab_next_node(const dom_node *n);

/* A peer's command (cmd: "ref", "gsoap") takes --max-input alone of the
 * DOM limits: its own parser (by: "libxml2", "gSOAP") keeps the others.
 * LAB_EUSAGE naming the first other limit lim has, else LAB_OK. */
int lab_only_max_input(const dom_limits *lim, const char *cmd,
		       const char *by, lab_err *err);

/* Parses a non-negative integer option value. */
int lab_parse_size(const char *opt, const char *s, size_t *out, lab_err *err);

/* The commands, and each one's table of options. */
int lab_cmd_gen(int argc, char **argv, lab_err *err);
extern const lab_opt lab_gen_options[];
int lab_cmd_parse(int argc, char **argv, lab_err *err);
extern const lab_opt lab_parse_options[];
int lab_cmd_c14n(int argc, char **argv, lab_err *err);
extern const lab_opt lab_c14n_options[];

/*
 * Reads the pipeline's options (--key, --cert, --peer-cert, --trust,
 * --cipher, --now, --ttl) from rest (as lab_io_args left them) into paths
 * and o: only those in opts, and each one opts marks required.
 */
int lab_wss_args(char **rest, int nrest, const lab_opt *opts,
		 wss_key_paths *paths, wss_opts *o, lab_err *err);

/* sign, verify, encrypt, decrypt, send, receive, forward: `op` names
 * which; each has its own table (NULL for another name). */
int lab_cmd_wss(const char *op, int argc, char **argv, lab_err *err);
const lab_opt *lab_wss_options(const char *op);
int lab_cmd_ref(int argc, char **argv, lab_err *err); /* argv[0]: the op */
extern const lab_opt lab_ref_options[];
int lab_cmd_variant(int argc, char **argv, lab_err *err);
int lab_cmd_bench(int argc, char **argv, lab_err *err);
extern const lab_opt lab_bench_options[];

#endif
