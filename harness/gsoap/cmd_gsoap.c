/*
 * cmd_gsoap.c - `domlab-bench gsoap send|receive`: the gSOAP peer
 * (harness/gsoap/gsoap.h) behind domlab's options, input, output and exit
 * codes, so the shell tests can hand messages between it and domlab.
 *
 * Not for: the other pipeline commands, nor the DOM limits (gSOAP keeps
 * its own; only --max-input applies).
 */
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/gsoap/gsoap.h"
#include "util/alloc.h"

const lab_opt lab_gsoap_options[] = {
	{"--key", "K.pem", 1,
	 "the private key (PEM): the sender's (send) or the recipient's "
	 "(receive)"},
	{"--cert", "C.pem", 0, "the sender's certificate (send)"},
	{"--peer-cert", "PEER.pem", 0, "the recipient's certificate (send)"},
	{"--trust", "PEER.pem", 0,
	 "the one certificate a signature is accepted from (receive)"},
	{"--cipher", "aes256-gcm|aes128-cbc", 0,
	 "the Body's cipher (send; default aes256-gcm)"},
	{"--now", "EPOCH", 0,
	 "the clock, seconds since 1970: the Timestamp's Created (send) or "
	 "the time it is checked at (receive)"},
	{"--ttl", "S", 0,
	 "seconds from Created to the Timestamp's Expires (default 300)"},
	{"--max-input", "N", 0, "refuse an input over N bytes (default 1 GiB)"},
	{NULL, NULL, 0, NULL}};

int lab_cmd_gsoap(int argc, char **argv, lab_err *err)
{
	lab_buf in = LAB_BUF_INIT, out = LAB_BUF_INIT;
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	char **rest = NULL;
	lab_gsoap_op op = LAB_GSOAP_SEND;
	wss_opts o;
	lab_io io;
	int nrest, rc = LAB_OK;

	if (argc == 0 || (strcmp(argv[0], "send") != 0 &&
			  strcmp(argv[0], "receive") != 0)) {
		rc = lab_fail(err, LAB_EUSAGE, "gsoap needs send or receive");
		goto out;
	}
	if (strcmp(argv[0], "receive") == 0)
		op = LAB_GSOAP_RECEIVE;
	wss_opts_default(&o);
	rest = lab_calloc((size_t)argc, sizeof *rest);
	if (rest == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	rc = lab_io_args(argc - 1, argv + 1, lab_gsoap_options, &io, rest,
			 &nrest, err);
	if (rc == LAB_OK)
		rc = lab_only_max_input(&io.lim, "gsoap", "gSOAP", err);
	if (rc == LAB_OK)
		rc = lab_wss_args(rest, nrest, lab_gsoap_options, &paths, &o,
				  err);
	if (rc == LAB_OK)
		rc = lab_read_input(io.in, io.lim.max_input, &in, err);
	if (rc == LAB_OK)
		rc = lab_gsoap_message(op, in.data, in.len, &paths, &o, &out,
				       err);
	if (rc == LAB_OK)
		rc = lab_write_output(io.out, out.data, out.len, err);
out:
	lab_gsoap_cleanup();
	lab_free(rest);
	lab_buf_free(&in);
	lab_buf_free(&out);
	return rc;
}
