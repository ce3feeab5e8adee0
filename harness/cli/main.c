/*
 * main.c - the domlab command line: the pipeline's commands and the tools
 * around them (gen, parse, c14n), each with its table of options.  It
 * links only what they use; the benchmark and the reference peer are
 * domlab-bench (harness/bench/bench_main.c).
 * Not for: finding the command and the exit codes (harness/cli/cli_main.c).
 */
#include <stdio.h>

#include <openssl/crypto.h>

#include "harness/cli/cli.h"
#include "harness/http/http.h"

static const lab_command commands[] = {
	{"gen", lab_cmd_gen,
	 "quakes|ints|strings|wide|deep|random|bytes|collide-names|"
	 "collide-attrs|collide-ids|wide-ns|many-attrs|many-enc|"
	 "many-enc-body|signedinfo-junk",
	 lab_gen_options, 0,
	 "Writes a generated dataset, the same bytes for the same seed; "
	 "collide-* to signedinfo-junk are the hostile shapes "
	 "(datasets/README.md)."},
	{"parse", lab_cmd_parse, NULL, lab_parse_options,
	 LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Builds the tree of a document (FILE or standard input) through "
	 "this variant and serializes it back."},
	{"c14n", lab_cmd_c14n, NULL, lab_c14n_options, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Writes the canonical form of a document or of one element's "
	 "subtree."},
	{"sign", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Signs a SOAP envelope: a Timestamp, a BinarySecurityToken and a "
	 "Signature over the Body and the Timestamp."},
	{"verify", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Checks a signed envelope's Timestamp and Signature, then writes "
	 "it."},
	{"encrypt", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Encrypts the Body's content for the recipient."},
	{"decrypt", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Decrypts the Body's content and writes the envelope."},
	{"send", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Signs, then encrypts an envelope; with --attach, writes a "
	 "multipart message."},
	{"receive", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "Checks the Timestamp, decrypts, verifies, then writes the "
	 "envelope; reads a multipart message too."},
	{"forward", NULL, NULL, NULL, LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 "What an intermediary does: checks the Timestamp and a Signature "
	 "over the Timestamp and the wsa:To header block, prints the wsa:To "
	 "and writes the message unchanged; the Body is not read."},
	{"serve", lab_cmd_serve_exec, NULL, lab_serve_options,
	 LAB_TAKES_LIMITS, LAB_SERVE_WHAT},
	{"load", lab_cmd_load_exec, NULL, lab_load_options,
	 LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 LAB_LOAD_WHAT},
	{"variant", lab_cmd_variant, NULL, NULL, 0,
	 "Prints what this binary was built with: variant=NAME (a preset "
	 "and what differs from it, best+attrs=vector), preset=PRESET, then "
	 "one axis=choice per line."},
};

int main(int argc, char **argv)
{
	static const lab_program domlab = {
		"domlab", commands, sizeof commands / sizeof commands[0]};

	/* One command per process, so OpenSSL sets up only what it uses
	 * (docs/measuring.md, "One command, one process").  Its
	 * configuration file is not read: the profile fixes every
	 * algorithm, all from the default provider, which OpenSSL loads
	 * without it.  Its legacy cipher and digest tables are not filled:
	 * every algorithm is fetched from the provider by name, and the
	 * first fetch would copy every legacy name into the name map.  Its
	 * error strings are not loaded: a failure on a key file then names
	 * OpenSSL's reason by its code.  And nothing it holds for the
	 * process is freed at exit, which returns it whole. */
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG |
				OPENSSL_INIT_NO_ADD_ALL_CIPHERS |
				OPENSSL_INIT_NO_ADD_ALL_DIGESTS |
				OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS |
				OPENSSL_INIT_NO_ATEXIT, NULL) != 1) {
		fputs("domlab: cannot initialise OpenSSL\n", stderr);
		return LAB_ENOMEM;
	}
	return lab_main(&domlab, argc, argv);
}
