/*
 * cmd_ref.c - `domlab-bench ref sign|verify|send|receive|forward`: the reference peer
 * (harness/refpeer/ref.h, libxml2 + xmlsec1) behind the same options, input,
 * output and exit codes as domlab's own pipeline commands, so the shell
 * tests can hand messages from one side to the other.
 *
 * Not for: encrypt or decrypt alone (the reference does what the
 * benchmark compares), nor the DOM limits: libxml2 keeps its own, and
 * only --max-input applies.
 */
#include <string.h>

#include "util/alloc.h"
#include "harness/cli/cli.h"
#include "harness/refpeer/ref.h"

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
	{"forward", LAB_REF_FORWARD},
};

/* Every operation's options; the reference peer says which it needs. */
const lab_opt lab_ref_options[] = {
	{"--key", "K.pem", 0,
	 "the private key (PEM): the sender's (sign, send) or the "
	 "recipient's (decrypt, receive)"},
	{"--cert", "C.pem", 0, "the sender's certificate (sign, send)"},
	{"--peer-cert", "PEER.pem", 0,
	 "the recipient's certificate (encrypt, send)"},
	{"--trust", "PEER.pem", 0,
	 "the one certificate a signature is accepted from (verify, "
	 "receive, forward)"},
	{"--to", "URI", 0,
	 "the wsa:To header block to add and sign (sign, send), or the one "
	 "a message must carry (forward)"},
	{"--sign", "all|headers", 0,
	 "sign the Body too (all, the default) or only the Timestamp and "
	 "the wsa:To (headers; sign, send)"},
	{"--cipher", "aes256-gcm|aes128-cbc", 0,
	 "the Body's cipher (encrypt, send; default aes256-gcm)"},
	{"--layout", "sign-encrypt|encrypt-sign", 0,
	 "the order send signs and encrypts in (default sign-encrypt)"},
	{"--encrypt-signature", NULL, 0,
	 "send: encrypt the Signature too (sign-encrypt)"},
	{"--encrypt-header", "{URI}LOCAL", 0,
	 "send: encrypt that header block into a wsse11:EncryptedHeader"},
	{"--now", "EPOCH", 0,
	 "the clock, seconds since 1970: the Timestamp's Created (sign, "
	 "send) or the time it is checked at (verify, receive)"},
	{"--ttl", "S", 0,
	 "seconds from Created to the Timestamp's Expires (default 300)"},
	{"--max-input", "N", 0,
	 "refuse an input over N bytes (default 1 GiB); libxml2 keeps its "
	 "own other limits"},
	{NULL, NULL, 0, NULL}};

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
			      "ref needs sign, verify, encrypt, decrypt, send, "
			      "receive or forward");
		goto out;
	}
	wss_opts_default(&o);
	rest = lab_calloc((size_t)argc, sizeof *rest);
	if (rest == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	rc = lab_io_args(argc - 1, argv + 1, lab_ref_options, &io, rest, &nrest,
			 err);
	if (rc == LAB_OK)
		rc = lab_only_max_input(&io.lim, "ref", "libxml2", err);
	if (rc == LAB_OK)
		rc = lab_wss_args(rest, nrest, lab_ref_options, &paths, &o, err);
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
	lab_free(rest);
	lab_buf_free(&in);
	lab_buf_free(&out);
	return rc;
}
