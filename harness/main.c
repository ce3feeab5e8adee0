/*
 * main.c - the domlab command line: finds the command and maps its
 * result to the exit code (0 ok, 1 usage, 2 malformed input, 3 security
 * failure, 4 I/O, 5 out of memory).  Commands live in harness/cmd_*.c.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"

/* run NULL: a pipeline command, run by lab_cmd_wss under its name. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv, lab_err *err);
	const char *usage;
} commands[] = {
	{"gen", lab_cmd_gen,
	 "gen quakes|ints|strings|wide|deep|random [--size BYTES | --count N] [--seed S] [-o FILE]\n"
	 "  domlab gen many-enc|many-enc-body|signedinfo-junk [--key K.pem --cert C.pem] [--peer-cert PEER.pem] [--now EPOCH] [--size BYTES | --count N] [-o FILE]"},
	{"parse", lab_cmd_parse, "parse [--stats] [LIMITS] [FILE] [-o FILE]"},
	{"c14n", lab_cmd_c14n,
	 "c14n [--exclusive] [--with-comments] [--prefixes \"p1 p2\"] [--id ID | --apex {URI}LOCAL] [LIMITS] [FILE] [-o FILE]"},
	{"sign", NULL, "sign --key K.pem --cert C.pem [--now EPOCH] [--ttl S] [FILE] [-o FILE]"},
	{"verify", NULL, "verify --trust PEER.pem [--now EPOCH] [DSIG CAPS] [FILE] [-o FILE]"},
	{"encrypt", NULL, "encrypt --peer-cert PEER.pem [--cipher aes256-gcm|aes128-cbc] [FILE] [-o FILE]"},
	{"decrypt", NULL, "decrypt --key K.pem [XENC CAPS] [FILE] [-o FILE]"},
	{"send", NULL, "send --key K.pem --cert C.pem --peer-cert PEER.pem [--cipher C] [--now EPOCH] [--ttl S] [FILE] [-o FILE]"},
	{"receive", NULL, "receive --key K.pem --trust PEER.pem [--now EPOCH] [DSIG CAPS] [XENC CAPS] [FILE] [-o FILE]"},
	{"ref", lab_cmd_ref,
	 "ref sign|verify|encrypt|decrypt|send|receive [that command's options] [--max-input N] [FILE] [-o FILE]"},
	{"variant", lab_cmd_variant, "variant"},
	{"bench", lab_cmd_bench,
	 "bench [--quick] [--ref] [--floor] [--full] [--data-seed N] [--keys DIR]"
	 " [--icount CASE [--icount-iterations N]] [--benchmark_* flags]"},
};

enum { NCOMMANDS = sizeof commands / sizeof commands[0] };

static int usage(FILE *f)
{
	size_t i;

	fputs("usage: domlab COMMAND [options]\n", f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  domlab %s\n", commands[i].usage);
	fputs("LIMITS: --max-input N --max-depth N --max-attrs N --max-name N "
	      "--max-text N\n"
	      "DSIG CAPS (0: default): --max-references N (30) "
	      "--max-transforms N (5) --max-signedinfo BYTES (65536)\n"
	      "XENC CAPS (0: default): --max-encrypted-keys N (5) "
	      "--max-data-refs N (100, one ReferenceList) "
	      "--max-data-refs-total N (200)\n",
	      f);
	return LAB_EUSAGE;
}

int main(int argc, char **argv)
{
	lab_err err;
	size_t i;
	int rc;

	if (argc < 2)
		return usage(stderr);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return LAB_OK;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			break;
	if (i == NCOMMANDS) {
		fprintf(stderr, "domlab: unknown command '%s'\n", argv[1]);
		return usage(stderr);
	}
	lab_err_clear(&err);
	rc = commands[i].run != NULL
		     ? commands[i].run(argc - 2, argv + 2, &err)
		     : lab_cmd_wss(commands[i].name, argc - 2, argv + 2, &err);
	if (rc == LAB_OK)
		return LAB_OK;
	if (err.code == LAB_OK)
		lab_fail(&err, rc, "%s", lab_strerror(rc));
	lab_report(commands[i].name, &err);
	if (rc == LAB_EUSAGE)
		fprintf(stderr, "usage: domlab %s\n", commands[i].usage);
	return rc;
}
