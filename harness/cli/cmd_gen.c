/*
 * cmd_gen.c - `domlab gen`: writes a generated dataset (datasets/gen.h),
 * or a hostile message for the receiver (datasets/preauth.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "datasets/gen.h"
#include "datasets/preauth.h"
#include "harness/cli/cli.h"

const lab_opt lab_gen_options[] = {
	{"--size", "BYTES", 0,
	 "about this many bytes (exactly, for bytes); wins over --count"},
	{"--count", "N", 0,
	 "how many: records (quakes), items (ints, strings), rows (wide), "
	 "levels (deep), about that many nodes (random), prefixes "
	 "declared (wide-ns)"},
	{"--seed", "S", 0, "the generator's seed: the same seed, the same bytes"},
	{"--canonical", NULL, 0,
	 "quakes: each start tag's attributes in C14N's order, so that the "
	 "Body's content is its own exclusive canonical form (the same "
	 "records and values)"},
	{"--key", "K.pem", 0,
	 "many-enc, many-enc-body, signedinfo-junk: the sender's private "
	 "key the base message is signed with"},
	{"--cert", "C.pem", 0,
	 "many-enc, many-enc-body, signedinfo-junk: the sender's "
	 "certificate"},
	{"--peer-cert", "PEER.pem", 0,
	 "many-enc, many-enc-body: the receiver's certificate, the "
	 "EncryptedKey's recipient"},
	{"--now", "EPOCH", 0,
	 "many-enc, many-enc-body, signedinfo-junk: the clock the "
	 "Timestamp is made at (default: now)"},
	{"--message", "FILE", 0,
	 "decrypt-wrap: the message (as domlab writes it) to add the attack "
	 "to (default: one --key and --cert send to --peer-cert)"},
	{"--plaintext", "FILE", 0,
	 "decrypt-wrap: what the added EncryptedHeader decrypts to "
	 "(default: a soap:Body carrying the ID Body-1)"},
	{"--place", "first|after-signature", 0,
	 "decrypt-wrap: where the added EncryptedKey goes in the Security "
	 "header (default first)"},
	{"-o", "FILE", 0,
	 "write to FILE (through a temporary file renamed into place) "
	 "instead of standard output"},
	{NULL, NULL, 0, NULL}};

/* The keys a hostile shape is built with, loaded into o (NULL where no
 * path was given). */
static int hostile_keys(const wss_key_paths *p, lab_hostile_opts *o,
			lab_err *err)
{
	wss_privkey *key = NULL;
	wss_cert *cert = NULL, *peer = NULL;
	int rc = LAB_OK;

	if (p->key != NULL)
		rc = wss_privkey_load(p->key, &key, err);
	if (rc == LAB_OK && p->cert != NULL)
		rc = wss_cert_load(p->cert, &cert, err);
	if (rc == LAB_OK && p->peer_cert != NULL)
		rc = wss_cert_load(p->peer_cert, &peer, err);
	o->key = key;
	o->cert = cert;
	o->peer = peer;
	return rc;
}

/* decrypt-wrap's --message or --plaintext FILE, read into o (freed by
 * gen_hostile). */
static int wrap_file(const char *a, const char *path, lab_hostile_opts *o,
		     lab_err *err)
{
	lab_buf b = LAB_BUF_INIT;
	int rc = lab_read_input(path, 1 << 26, &b, err);

	if (rc == LAB_OK && lab_buf_putc(&b, '\0') != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc != LAB_OK) {
		lab_buf_free(&b);
		return rc;
	}
	if (strcmp(a, "--message") == 0) {
		lab_free((void *)(uintptr_t)o->message);
		o->message = b.data;
		o->message_len = b.len - 1;
	} else {
		lab_free((void *)(uintptr_t)o->plain);
		o->plain = b.data;
	}
	return LAB_OK;
}

/* One option of a hostile shape (argv[i], its value v) into o, paths or
 * the others; 0 when it is none. */
static int hostile_opt(const char *a, const char *v, lab_hostile_opts *o,
		       wss_key_paths *paths, size_t *now, const char **out,
		       int *rc, lab_err *err)
{
	if (strcmp(a, "--message") == 0 || strcmp(a, "--plaintext") == 0)
		*rc = wrap_file(a, v, o, err);
	else if (strcmp(a, "--place") == 0) {
		o->after_signature = strcmp(v, "after-signature") == 0;
		if (!o->after_signature && strcmp(v, "first") != 0)
			*rc = lab_fail(err, LAB_EUSAGE,
				       "--place is first or after-signature");
	} else if (strcmp(a, "--size") == 0)
		*rc = lab_parse_size(a, v, &o->size, err);
	else if (strcmp(a, "--count") == 0)
		*rc = lab_parse_size(a, v, &o->count, err);
	else if (strcmp(a, "--now") == 0)
		*rc = lab_parse_size(a, v, now, err);
	else if (strcmp(a, "--key") == 0)
		paths->key = v;
	else if (strcmp(a, "--cert") == 0)
		paths->cert = v;
	else if (strcmp(a, "--peer-cert") == 0)
		paths->peer_cert = v;
	else if (strcmp(a, "-o") == 0)
		*out = v;
	else
		return 0;
	return 1;
}

/* `gen many-enc|many-enc-body|signedinfo-junk` (datasets/preauth.h),
 * the kind at argv[at]: the keys, --now, --size, --count and -o. */
static int gen_hostile(lab_hostile_kind kind, int at, int argc, char **argv,
		       lab_err *err)
{
	wss_key_paths paths = {NULL, NULL, NULL, NULL};
	lab_hostile_opts o;
	const char *out = NULL;
	lab_buf b = LAB_BUF_INIT;
	size_t now = 0;
	int i, rc = LAB_OK;

	memset(&o, 0, sizeof o);
	o.kind = kind;
	for (i = 0; i < argc && rc == LAB_OK; i++) {
		if (i == at)
			continue;
		if (i + 1 < argc && hostile_opt(argv[i], argv[i + 1], &o,
						&paths, &now, &out, &rc, err))
			i++;
		else
			rc = lab_fail(err, LAB_EUSAGE,
				      "unexpected argument '%s'", argv[i]);
	}
	o.now = now != 0 ? (time_t)now : time(NULL);
	if (rc == LAB_OK)
		rc = hostile_keys(&paths, &o, err);
	if (rc == LAB_OK)
		rc = lab_hostile(&o, &b, err);
	if (rc == LAB_OK)
		rc = lab_write_output(out, b.data, b.len, err);
	wss_privkey_free((wss_privkey *)(uintptr_t)o.key);
	wss_cert_free((wss_cert *)(uintptr_t)o.cert);
	wss_cert_free((wss_cert *)(uintptr_t)o.peer);
	lab_free((void *)(uintptr_t)o.message);
	lab_free((void *)(uintptr_t)o.plain);
	lab_buf_free(&b);
	return rc;
}

int lab_cmd_gen(int argc, char **argv, lab_err *err)
{
	lab_gen_opts o;
	const char *out = NULL;
	lab_buf b = LAB_BUF_INIT;
	size_t seed = 0;
	int i, rc = LAB_OK, have_kind = 0;

	for (i = 0; i < argc; i++) {
		lab_hostile_kind hk;

		if (argv[i][0] != '-' && lab_hostile_kind_parse(argv[i], &hk))
			return gen_hostile(hk, i, argc, argv, err);
		if (argv[i][0] == '-' && strcmp(argv[i], "--canonical") != 0)
			i++;
	}
	memset(&o, 0, sizeof o);
	for (i = 0; i < argc && rc == LAB_OK; i++) {
		const char *a = argv[i];

		if (i + 1 < argc && strcmp(a, "--size") == 0)
			rc = lab_parse_size(a, argv[++i], &o.size, err);
		else if (i + 1 < argc && strcmp(a, "--count") == 0)
			rc = lab_parse_size(a, argv[++i], &o.count, err);
		else if (i + 1 < argc && strcmp(a, "--seed") == 0)
			rc = lab_parse_size(a, argv[++i], &seed, err);
		else if (i + 1 < argc && strcmp(a, "-o") == 0)
			out = argv[++i];
		else if (strcmp(a, "--canonical") == 0)
			o.canonical = 1;
		else if (!have_kind && a[0] != '-') {
			rc = lab_gen_kind_parse(a, &o.kind);
			if (rc != LAB_OK)
				lab_fail(err, rc, "unknown dataset '%s'", a);
			have_kind = 1;
		} else
			rc = lab_fail(err, LAB_EUSAGE, "unexpected argument '%s'",
				      a);
	}
	if (rc == LAB_OK && !have_kind)
		rc = lab_fail(err, LAB_EUSAGE, "which dataset?");
	if (rc != LAB_OK)
		goto out;
	o.seed = seed;
	rc = lab_gen(&o, &b, err);
	if (rc == LAB_OK)
		rc = lab_write_output(out, b.data, b.len, err);
out:
	lab_buf_free(&b);
	return rc;
}
