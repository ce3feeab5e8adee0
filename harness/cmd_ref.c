/*
 * cmd_ref.c - `domlab ref sign|verify|send|receive`: the reference peer
 * (harness/ref.h, libxml2 + xmlsec1) behind the same options, input,
 * output and exit codes as domlab's own pipeline commands, so the shell
 * tests can hand messages from one side to the other.
 *
 * Not for: encrypt or decrypt alone (the reference does what the
 * benchmark compares), nor the DOM limits: libxml2 keeps its own, and
 * only --max-input applies.
 */
#include <string.h>

#include "dom/alloc.h"
#include "harness/cli.h"
#include "harness/ref.h"

static const struct {
	const char *name;
	lab_ref_op op;
} ops[] = {
	{"sign", LAB_REF_SIGN},
	{"verify", LAB_REF_VERIFY},
	{"encrypt", LAB_REF_ENCRYPT},
	{"decrypt", LAB_REF_DECRYPT},
	{"send", LAB_REF_SEND},
	{"receive", LAB_REF_RECEIVE},
};

int lab_cmd_ref(int argc, char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	char **rest = NULL;
	wss_opts o;
	lab_io io;
	size_t k;
	int nrest, rc = LAB_OK;

	for (k = 0; argc > 0 && k < sizeof ops / sizeof ops[0]; k++)
		if (strcmp(ops[k].name, argv[0]) == 0)
			break;
	if (argc == 0 || k == sizeof ops / sizeof ops[0]) {
		rc = lab_fail(err, LAB_EUSAGE,
			      "ref needs sign, verify, encrypt, decrypt, send or receive");
		goto out;
	}
	wss_opts_default(&o);
	rest = dom_calloc((size_t)argc, sizeof *rest);
	if (rest == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	rc = lab_io_args(argc - 1, argv + 1, lab_wss_valued, &io, rest, &nrest,
			 err);
	if (rc == LAB_OK && (io.lim.max_depth != 0 || io.lim.max_attrs != 0 ||
			     io.lim.max_name != 0 || io.lim.max_text != 0 ||
			     io.lim.max_ns != 0))
		rc = lab_fail(err, LAB_EUSAGE,
			      "ref takes only --max-input: libxml2 keeps its "
			      "own limits");
	if (rc == LAB_OK)
		rc = lab_wss_args(rest, nrest, 0, &paths, &o, err);
	if (rc == LAB_OK)
		rc = lab_read_input(io.in, io.lim.max_input, &in, err);
	if (rc == LAB_OK)
		rc = lab_ref_message(ops[k].op, in.data, in.len, &paths, &o,
				     &out, err);
	if (rc == LAB_OK)
		rc = lab_write_output(io.out, out.data, out.len, err);
out:
	/* The process ends after the command: a leak checker sees nothing. */
	lab_ref_cleanup();
	dom_free(rest);
	lab_buf_free(&in);
	lab_buf_free(&out);
	return rc;
}
