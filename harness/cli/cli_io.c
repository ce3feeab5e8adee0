/*
 * cli_io.c - input, atomic output and error reporting for the commands.
 * Output goes to a temporary file in the target's directory (so rename is
 * atomic) and replaces the target only when everything was written and
 * flushed.  A target that is not a regular file (/dev/null, a FIFO, a
 * terminal) cannot be replaced that way and is written in place: rename
 * would turn the device into a plain file.
 */
#include "harness/cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int lab_parse_size(const char *opt, const char *s, size_t *out, lab_err *err)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0 ||
	    v > (unsigned long long)SIZE_MAX)
		return lab_fail(err, LAB_EUSAGE, "%s needs a number, not '%s'",
				opt, s);
	*out = (size_t)v;
	return LAB_OK;
}

const lab_opt lab_io_opts[] = {
	{"-o", "FILE", 0,
	 "write the result to FILE (through a temporary file renamed into "
	 "place once complete) instead of standard output"},
	{NULL, NULL, 0, NULL}};

/* "0" keeps a limit's default; a broken limit is exit code 2. */
const lab_opt lab_limit_opts[] = {
	{"--max-input", "N", 0, "refuse an input over N bytes (default 1 GiB)"},
	{"--max-depth", "N", 0,
	 "refuse elements nested deeper than N (default and maximum 256)"},
	{"--max-attrs", "N", 0,
	 "refuse more than N attributes on one element (default 10000)"},
	{"--max-name", "N", 0,
	 "refuse a name (prefix:local) over N bytes (default 50000)"},
	{"--max-text", "N", 0,
	 "refuse a text node, CDATA section or attribute value over N "
	 "bytes (default 1 GiB)"},
	{"--max-ns", "N", 0,
	 "refuse an element with more than N namespace declarations "
	 "in scope (default 256)"},
	{NULL, NULL, 0, NULL}};

/* Where each of lab_limit_opts, in its order, goes. */
static const size_t limit_field[] = {
	offsetof(dom_limits, max_input), offsetof(dom_limits, max_depth),
	offsetof(dom_limits, max_attrs), offsetof(dom_limits, max_name),
	offsetof(dom_limits, max_text), offsetof(dom_limits, max_ns)};

const lab_opt *lab_opt_find(const lab_opt *opts, const char *a)
{
	for (; opts != NULL && opts->name != NULL; opts++)
		if (strcmp(opts->name, a) == 0)
			return opts;
	return NULL;
}

int lab_io_args(int argc, char **argv, const lab_opt *opts, lab_io *io,
		char **rest, int *nrest, lab_err *err)
{
	int i, rc;

	memset(io, 0, sizeof *io);
	*nrest = 0;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const lab_opt *opt = lab_opt_find(opts, a);
		size_t k;

		if (strcmp(a, "-o") == 0) {
			if (++i >= argc)
				return lab_fail(err, LAB_EUSAGE,
						"-o needs a file name");
			io->out = argv[i];
			continue;
		}
		for (k = 0; k < sizeof limit_field / sizeof limit_field[0]; k++)
			if (strcmp(a, lab_limit_opts[k].name) == 0)
				break;
		if (k < sizeof limit_field / sizeof limit_field[0]) {
			if (++i >= argc)
				return lab_fail(err, LAB_EUSAGE,
						"%s needs a value", a);
			rc = lab_parse_size(a, argv[i],
					    (size_t *)(void *)((char *)&io->lim +
							       limit_field[k]),
					    err);
			if (rc != LAB_OK)
				return rc;
			continue;
		}
		if (opt != NULL && opt->arg != NULL) {
			if (++i >= argc)
				return lab_fail(err, LAB_EUSAGE,
						"%s needs a value", a);
			rest[(*nrest)++] = argv[i - 1];
			rest[(*nrest)++] = argv[i];
			continue;
		}
		if (a[0] == '-' && a[1] != '\0') {
			rest[(*nrest)++] = argv[i];
			continue;
		}
		if (io->in != NULL)
			return lab_fail(err, LAB_EUSAGE,
					"more than one input file");
		io->in = a;
	}
	return LAB_OK;
}

int lab_read_input(const char *path, size_t max, lab_buf *out, lab_err *err)
{
	int fd = path != NULL ? open(path, O_RDONLY) : STDIN_FILENO;
	int rc;

	if (fd < 0)
		return lab_fail(err, LAB_EIO, "cannot open %s: %s", path,
				strerror(errno));
	rc = lab_read_fd(fd, path, max, out, err);
	if (path != NULL)
		close(fd);
	return rc;
}

/*
 * The limit holds while reading: at most max + 1 bytes are ever asked
 * for, so an endless pipe costs the limit's worth of memory and is
 * refused as soon as one byte more than it arrives.
 */
int lab_read_fd(int fd, const char *path, size_t max, lab_buf *out,
		lab_err *err)
{
	int rc = LAB_OK;

	if (max == 0)
		max = DOM_DEFAULT_MAX_INPUT;
	for (;;) {
		size_t room;
		ssize_t n;

		if (lab_buf_reserve(out, 1 << 16) != LAB_OK) {
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
			break;
		}
		room = out->cap - out->len - 1;
		if (out->len <= max && room > max + 1 - out->len)
			room = max + 1 - out->len;
		n = read(fd, out->data + out->len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = lab_fail(err, LAB_EIO, "cannot read %s: %s",
				      path ? path : "standard input",
				      strerror(errno));
			break;
		}
		if (n == 0)
			break;
		out->len += (size_t)n;
		out->data[out->len] = '\0';
		if (out->len > max) {
			rc = lab_fail(err, LAB_EMALFORMED,
				      "input is over the limit of %zu bytes",
				      max);
			break;
		}
	}
	return rc;
}

int lab_load_doc(const lab_io *io, lab_buf *in, dom_doc **doc, lab_err *err)
{
	int rc = lab_read_input(io->in, io->lim.max_input, in, err);

	return rc != LAB_OK ? rc
			    : dom_parse(in->data, in->len, &io->lim, doc, err);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The data is complete before anything is written, so writing a device or
 * FIFO in place still gives it all or nothing of a command's output. */
static int write_in_place(const char *path, const char *data, size_t len,
			  lab_err *err)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int rc = LAB_OK;

	if (fd < 0)
		return lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
				strerror(errno));
	if (write_all(fd, data, len) != 0)
		rc = lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
			      strerror(errno));
	if (close(fd) != 0 && rc == LAB_OK)
		rc = lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
			      strerror(errno));
	return rc;
}

int lab_write_output(const char *path, const char *data, size_t len,
		     lab_err *err)
{
	lab_buf tmp = LAB_BUF_INIT;
	struct stat st;
	int fd = -1, rc = LAB_OK;

	if (path == NULL) {
		if (write_all(STDOUT_FILENO, data, len) != 0)
			return lab_fail(err, LAB_EIO,
					"cannot write standard output: %s",
					strerror(errno));
		return LAB_OK;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return write_in_place(path, data, len, err);
	if (lab_buf_printf(&tmp, "%s.tmp.XXXXXX", path) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	fd = mkstemp(tmp.data);
	if (fd < 0) {
		rc = lab_fail(err, LAB_EIO, "cannot create %s: %s", tmp.data,
			      strerror(errno));
		goto out;
	}
	/* mkstemp makes the file 0600; output is not secret. */
	if (write_all(fd, data, len) != 0 || fchmod(fd, 0644) != 0 ||
	    fsync(fd) != 0) {
		rc = lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
			      strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
			      strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.data, path) != 0)
		rc = lab_fail(err, LAB_EIO, "cannot write %s: %s", path,
			      strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (rc != LAB_OK && tmp.data != NULL)
		unlink(tmp.data);
	lab_buf_free(&tmp);
	return rc;
}

const dom_node *lab_next_node(const dom_node *n)
{
	const dom_node *next = dom_first_child(n);

	while (next == NULL && n != NULL) {
		next = dom_next_sibling(n);
		n = dom_parent(n);
	}
	return next;
}

int lab_report(const char *prog, const char *cmd, const lab_err *err)
{
	if (err->line > 0)
		fprintf(stderr, "%s: %s: line %lu, column %lu: %s\n", prog,
			cmd, err->line, err->col, err->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", prog, cmd, err->msg);
	return err->code;
}

int lab_only_max_input(const dom_limits *lim, const char *cmd,
		       const char *by, lab_err *err)
{
	const char *other = lim->max_depth != 0   ? "--max-depth"
			    : lim->max_attrs != 0 ? "--max-attrs"
			    : lim->max_name != 0  ? "--max-name"
			    : lim->max_text != 0  ? "--max-text"
			    : lim->max_ns != 0    ? "--max-ns"
						  : NULL;

	if (other == NULL)
		return LAB_OK;
	return lab_fail(err, LAB_EUSAGE,
			"unknown option '%s': %s takes only --max-input, %s "
			"keeps its own limits",
			other, cmd, by);
}
