/*
 * data_files.c - `domlab-bench bench --data PATH`: each file under PATH
 * becomes a dataset named after it, so the stages run on a service's own
 * messages beside the generated ones.  A file is taken only when the
 * pipeline can do with it what the cases will: parse it, find a SOAP 1.1
 * or 1.2 Body, send it with the test keys and receive it back (the
 * receive-side cases' setups secure it the same way); any other file is
 * left out with one line naming it and why, and the run goes on.  A case
 * that cannot use a file taken here is skipped for it alone, with its own
 * line (cmd_bench.c).
 * Not for: generated datasets (cases.c) or picking the jobs (cmd_bench.c).
 */
#include "harness/bench/data_files.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dom/dom.h"
#include "harness/cli/cli.h"
#include "util/alloc.h"
#include "wss/profile.h"
#include "wss/wss.h"


/* The keys every check uses, loaded once. */
typedef struct check_keys {
	wss_privkey *alice_key, *bob_key;
	wss_cert *alice_cert, *bob_cert;
} check_keys;

static void keys_free(check_keys *k)
{
	wss_privkey_free(k->alice_key);
	wss_privkey_free(k->bob_key);
	wss_cert_free(k->alice_cert);
	wss_cert_free(k->bob_cert);
}

static int keys_load(const char *dir, check_keys *k, lab_err *err)
{
	lab_case_data d = {NULL, NULL, 0, dir};
	lab_case_keys p;
	int rc = lab_case_key_paths(&d, &p, err);

	memset(k, 0, sizeof *k);
	if (rc == LAB_OK)
		rc = wss_privkey_load(p.key, &k->alice_key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(p.cert, &k->alice_cert, err);
	if (rc == LAB_OK)
		rc = wss_privkey_load(p.peer_key, &k->bob_key, err);
	if (rc == LAB_OK)
		rc = wss_cert_load(p.peer_cert, &k->bob_cert, err);
	if (rc != LAB_OK)
		keys_free(k);
	return rc;
}

/* The root is a SOAP 1.1 or 1.2 Envelope with a Body child. */
static int is_envelope(dom_doc *doc, lab_err *err)
{
	const dom_node *env = dom_doc_element(doc), *c;
	const char *ns = env != NULL ? dom_ns_uri(env) : NULL;

	if (ns == NULL ||
	    (strcmp(ns, WSS_NS_SOAP) != 0 && strcmp(ns, WSS_NS_SOAP12) != 0) ||
	    strcmp(dom_local_name(env), "Envelope") != 0)
		return lab_fail(err, LAB_EMALFORMED,
				"not a SOAP 1.1 or 1.2 envelope (the root "
				"element is not {%s}Envelope or {%s}Envelope)",
				WSS_NS_SOAP, WSS_NS_SOAP12);
	for (c = dom_first_child(env); c != NULL; c = dom_next_sibling(c))
		if (dom_node_type(c) == DOM_ELEMENT &&
		    dom_ns_uri(c) == dom_ns_uri(env) &&
		    strcmp(dom_local_name(c), "Body") == 0)
			return LAB_OK;
	return lab_fail(err, LAB_EMALFORMED, "the SOAP envelope has no Body");
}

/* Parses bytes, checks the envelope, sends it and receives the result. */
static int check_envelope(const lab_buf *bytes, const check_keys *k,
			  lab_err *err)
{
	lab_buf sent = LAB_BUF_INIT;
	dom_doc *doc = NULL, *back = NULL;
	wss_opts o;
	int rc = dom_parse(bytes->data, bytes->len, NULL, &doc, err);

	wss_opts_default(&o);
	if (rc == LAB_OK)
		rc = is_envelope(doc, err);
	if (rc == LAB_OK)
		rc = wss_send_doc(doc, k->alice_key, k->alice_cert, k->bob_cert,
				  &o, err);
	if (rc == LAB_OK)
		rc = dom_serialize(dom_doc_node(doc), &sent, err);
	if (rc == LAB_OK)
		rc = dom_parse(sent.data, sent.len, NULL, &back, err);
	if (rc == LAB_OK)
		rc = wss_receive_doc(back, k->bob_key, k->alice_cert, &o, err);
	dom_doc_free(back);
	dom_doc_free(doc);
	lab_buf_free(&sent);
	return rc;
}

/* Case names are "<stage>/<dataset>", matched by regular expressions and
 * made into file names by the reports: a name keeps to these bytes. */
static int plain_name(const char *name)
{
	return name[0] != '\0' &&
	       strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789._-") == strlen(name);
}

static int generated_name(const char *name)
{
	size_t i;

	for (i = 0; i < lab_ndatasets; i++)
		if (strcmp(lab_datasets[i].name, name) == 0)
			return 1;
	return 0;
}

/* Reads and checks one file; appends it to f, or says why it is left out. */
static int take_file(const char *path, const char *name, const check_keys *k,
		     lab_data_files *f, lab_err *err)
{
	lab_data_file *d = &f->items[f->count];
	lab_err why;
	int rc;

	lab_err_clear(&why);
	memset(d, 0, sizeof *d);
	if (!plain_name(name))
		rc = lab_fail(&why, LAB_EUSAGE, "its name is not only letters, "
			      "digits, '.', '_' and '-'");
	else if (generated_name(name))
		rc = lab_fail(&why, LAB_EUSAGE, "a generated dataset has its "
			      "name");
	else
		rc = lab_read_input(path, 0, &d->bytes, &why);
	if (rc == LAB_OK)
		rc = check_envelope(&d->bytes, k, &why);
	if (rc == LAB_OK && (d->name = lab_strdup(name)) == NULL)
		rc = lab_fail(&why, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK) {
		f->count++;
		return LAB_OK;
	}
	lab_buf_free(&d->bytes);
	if (rc == LAB_ENOMEM)
		return lab_fail(err, rc, "%s", why.msg);
	if (why.line > 0)
		fprintf(stderr, "domlab-bench: bench: --data: %s left out: "
				"%s at line %lu, column %lu: %s\n",
			path, lab_strerror(rc), why.line, why.col, why.msg);
	else
		fprintf(stderr, "domlab-bench: bench: --data: %s left out: "
				"%s: %s\n", path, lab_strerror(rc), why.msg);
	return LAB_OK;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular, not hidden, files of a folder, sorted; *names lab_free'd. */
static int list_folder(const char *dir, char ***names, size_t *n, lab_err *err)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	int rc = LAB_OK;

	*names = NULL;
	*n = 0;
	if (dp == NULL)
		return lab_fail(err, LAB_EIO, "--data %s: cannot read the folder",
				dir);
	while (rc == LAB_OK && (e = readdir(dp)) != NULL) {
		char **grown;

		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = lab_realloc(*names, cap * sizeof *grown);
			if (grown == NULL) {
				rc = lab_fail(err, LAB_ENOMEM, "out of memory");
				break;
			}
			*names = grown;
		}
		if (((*names)[*n] = lab_strdup(e->d_name)) == NULL)
			rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		else
			(*n)++;
	}
	closedir(dp);
	if (rc == LAB_OK && *n > 0)
		qsort(*names, *n, sizeof **names, by_name);
	return rc;
}

static void names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		lab_free(names[i]);
	lab_free(names);
}

/* Every regular file of dir, in name order. */
static int load_folder(const char *dir, const check_keys *k,
		       lab_data_files *f, lab_err *err)
{
	char **names;
	size_t n, i;
	int rc = list_folder(dir, &names, &n, err);

	if (rc == LAB_OK && n > 0 &&
	    (f->items = lab_calloc(n, sizeof *f->items)) == NULL)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	for (i = 0; rc == LAB_OK && i < n; i++) {
		char path[4096];
		struct stat st;
		int len = snprintf(path, sizeof path, "%s/%s", dir, names[i]);

		if (len < 0 || (size_t)len >= sizeof path)
			fprintf(stderr, "domlab-bench: bench: --data: %s/%s "
					"left out: the path is too long\n",
				dir, names[i]);
		else if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			rc = take_file(path, names[i], k, f, err);
	}
	names_free(names, n);
	return rc;
}

int lab_data_files_load(const char *path, const char *keys,
			lab_data_files *out, lab_err *err)
{
	check_keys k;
	struct stat st;
	int rc;

	out->items = NULL;
	out->count = 0;
	if (stat(path, &st) != 0)
		return lab_fail(err, LAB_EIO, "--data %s: no such file or folder",
				path);
	rc = keys_load(keys, &k, err);
	if (rc != LAB_OK)
		return rc;
	if (S_ISDIR(st.st_mode)) {
		rc = load_folder(path, &k, out, err);
	} else if ((out->items = lab_calloc(1, sizeof *out->items)) == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	} else {
		const char *slash = strrchr(path, '/');

		rc = take_file(path, slash ? slash + 1 : path, &k, out, err);
	}
	keys_free(&k);
	if (rc != LAB_OK)
		lab_data_files_free(out);
	return rc;
}

void lab_data_files_free(lab_data_files *f)
{
	size_t i;

	for (i = 0; i < f->count; i++) {
		lab_free(f->items[i].name);
		lab_buf_free(&f->items[i].bytes);
	}
	lab_free(f->items);
	f->items = NULL;
	f->count = 0;
}

int lab_data_files_names(const lab_data_files *f, lab_buf *out, lab_err *err)
{
	size_t i;

	for (i = 0; i < f->count; i++)
		if ((i > 0 && lab_buf_put(out, " ", 1) != LAB_OK) ||
		    lab_buf_put(out, f->items[i].name,
				strlen(f->items[i].name)) != LAB_OK)
			return lab_fail(err, LAB_ENOMEM, "out of memory");
	if (lab_buf_put(out, "", 1) != LAB_OK)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	return LAB_OK;
}

int lab_data_files_take(const lab_case *c)
{
	size_t i;

	if (lab_case_threaded(c))
		return 0;
	for (i = 0; c->datasets[i] != NULL; i++)
		if (strcmp(c->datasets[i], "quakes-200k") == 0)
			return 1;
	return 0;
}
