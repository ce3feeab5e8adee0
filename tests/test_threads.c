/*
 * test_threads.c - the pipeline on four threads at once.  Every thread
 * signs, verifies, sends and receives documents of its own, with keys
 * from the keys variant (keys=cached: one process cache, emptied first so
 * the threads race to fill it, then read by all), and every output must
 * verify and be byte for byte what one thread alone produced.  Signing is
 * deterministic (RSA PKCS#1 v1.5, a fixed clock); encryption is not (a
 * random session key and IV), so a sent message is compared once
 * received: decrypted and verified.
 *
 * `make test` runs this file under ThreadSanitizer for one variant, which
 * is what finds unsynchronized state; without it, it shows that threads
 * get the single-thread answers.  Not for: timing
 * (harness/bench/cases_threads.c measures throughput).
 *
 * The workers do not use the check macros (their counters are the test
 * runner's, one thread's): each records its first failure, and the main
 * thread checks after joining them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/util.h"
#include "wss/keys.h"
#include "wss/wss.h"

enum { THREADS = 4, ROUNDS = 2, NDOCS = 3 };

/* 2026-11-30T00:53:20Z, as test_wss.c: the Timestamp is fixed. */
#define NOW 1796000000

static const lab_gen_opts docs[NDOCS] = {
	{LAB_GEN_QUAKES, 2048, 0, 11, 0},
	{LAB_GEN_INTS, 0, 200, 12, 0},
	{LAB_GEN_STRINGS, 0, 200, 13, 0},
};

/* What every thread reads and nothing writes once the threads start. */
typedef struct shared {
	char alice_key[512], alice_cert[512], bob_key[512], bob_cert[512];
	lab_buf input[NDOCS];
	lab_buf signed_[NDOCS];   /* one thread's sign, serialized */
	lab_buf verified[NDOCS];  /* that verified, serialized */
	lab_buf sent[NDOCS];      /* one thread's send */
	lab_buf received[NDOCS];  /* that received, serialized */
	lab_buf body[NDOCS];      /* its soap:Body alone */
} shared;

typedef struct worker {
	const shared *s;
	int id;
	size_t outputs;   /* outputs compared */
	int failed;
	char why[sizeof(lab_err) + 64]; /* the first failure */
} worker;

static void opts(wss_opts *o)
{
	wss_opts_default(o);
	o->now = NOW;
}

static const char *const op_name[] = {"sign", "verify", "send", "receive",
				      "receive"};
/* OP_RECEIVE_BODY: receive, then serialize the Body alone -- the Security
 * header a receiver keeps holds the sender's random EncryptedKey. */
enum { OP_SIGN, OP_VERIFY, OP_SEND, OP_RECEIVE, OP_RECEIVE_BODY };

/* Parses in, runs op with keys from the keys variant, and serializes the
 * result into out. */
static int one(const shared *s, int op, const lab_buf *in, lab_buf *out,
	       lab_err *err)
{
	wss_key_paths sender = {s->alice_key, s->alice_cert, s->bob_cert, NULL};
	wss_key_paths receiver = {s->bob_key, NULL, NULL, s->alice_cert};
	wss_keyset ks;
	void *handle = NULL;
	dom_doc *doc = NULL;
	dom_node *body;
	wss_opts o;
	int rc;

	opts(&o);
	rc = wss_keys_acquire(op == OP_SIGN || op == OP_SEND ? &sender
							      : &receiver,
			      &ks, &handle, err);
	if (rc == LAB_OK)
		rc = dom_parse(in->data, in->len, NULL, &doc, err);
	if (rc != LAB_OK)
		goto out;
	switch (op) {
	case OP_SIGN:
		rc = wss_sign_doc(doc, ks.key, ks.cert, &o, err);
		break;
	case OP_VERIFY:
		rc = wss_verify_doc(doc, ks.trust, &o, err);
		break;
	case OP_SEND:
		rc = wss_send_doc(doc, ks.key, ks.cert, ks.peer_cert, &o, err);
		break;
	default:
		rc = wss_receive_doc(doc, ks.key, ks.trust, &o, err);
	}
	if (rc != LAB_OK)
		goto out;
	if (op != OP_RECEIVE_BODY)
		rc = dom_serialize(dom_doc_node(doc), out, err);
	else if ((body = t_find(dom_doc_node(doc), "Body")) == NULL)
		rc = lab_fail(err, LAB_EUSAGE, "no Body received");
	else
		rc = dom_serialize(body, out, err);
out:
	dom_doc_free(doc);
	wss_keys_release(handle);
	return rc;
}

static void record(worker *w, int op, size_t d, const char *why)
{
	if (w->failed++ == 0)
		snprintf(w->why, sizeof w->why, "%s of document %zu: %s",
			 op_name[op], d, why);
}

/* op on in must succeed and give exactly want; the output in *out. */
static int expect(worker *w, int op, size_t d, const lab_buf *in,
		  const lab_buf *want, lab_buf *out)
{
	lab_err err;

	lab_err_clear(&err);
	out->len = 0;
	if (one(w->s, op, in, out, &err) != LAB_OK) {
		record(w, op, d, err.msg);
		return 0;
	}
	if (want != NULL) {
		w->outputs++;
		if (out->len != want->len ||
		    memcmp(out->data, want->data, out->len) != 0) {
			record(w, op, d, "differs from one thread's output");
			return 0;
		}
	}
	return 1;
}

static void *work(void *arg)
{
	worker *w = arg;
	const shared *s = w->s;
	lab_buf a = LAB_BUF_INIT, b = LAB_BUF_INIT;
	int round;
	size_t d;

	for (round = 0; round < ROUNDS; round++)
		for (d = 0; d < NDOCS; d++) {
			/* Each thread starts on another document, so
			 * different stages overlap. */
			size_t k = (d + (size_t)w->id) % NDOCS;

			if (expect(w, OP_SIGN, k, &s->input[k],
				   &s->signed_[k], &a))
				expect(w, OP_VERIFY, k, &a, &s->verified[k],
				       &b);
			if (expect(w, OP_SEND, k, &s->input[k], NULL, &a))
				expect(w, OP_RECEIVE_BODY, k, &a, &s->body[k],
				       &b);
			/* One thread's message, received by all. */
			expect(w, OP_RECEIVE, k, &s->sent[k],
			       &s->received[k], &b);
		}
	lab_buf_free(&a);
	lab_buf_free(&b);
	return NULL;
}

static void shared_free(shared *s)
{
	size_t d;

	for (d = 0; d < NDOCS; d++) {
		lab_buf_free(&s->input[d]);
		lab_buf_free(&s->signed_[d]);
		lab_buf_free(&s->verified[d]);
		lab_buf_free(&s->sent[d]);
		lab_buf_free(&s->received[d]);
		lab_buf_free(&s->body[d]);
	}
}

/* The single-thread results, made here on the test's own thread. */
static int single(shared *s)
{
	const char *dir = getenv("DOMLAB_KEYS");
	lab_err err;
	size_t d;

	if (dir == NULL)
		dir = "build/keys";
	snprintf(s->alice_key, sizeof s->alice_key, "%s/alice.key.pem", dir);
	snprintf(s->alice_cert, sizeof s->alice_cert, "%s/alice.cert.pem",
		 dir);
	snprintf(s->bob_key, sizeof s->bob_key, "%s/bob.key.pem", dir);
	snprintf(s->bob_cert, sizeof s->bob_cert, "%s/bob.cert.pem", dir);
	for (d = 0; d < NDOCS; d++) {
		t_context("document %zu", d);
		if (!T_GEN(&docs[d], &s->input[d]) ||
		    !CHECK_OK(one(s, OP_SIGN, &s->input[d], &s->signed_[d],
				  &err),
			      &err) ||
		    !CHECK_OK(one(s, OP_VERIFY, &s->signed_[d],
				  &s->verified[d], &err),
			      &err) ||
		    !CHECK_OK(one(s, OP_SEND, &s->input[d], &s->sent[d], &err),
			      &err) ||
		    !CHECK_OK(one(s, OP_RECEIVE, &s->sent[d], &s->received[d],
				  &err),
			      &err) ||
		    !CHECK_OK(one(s, OP_RECEIVE_BODY, &s->sent[d], &s->body[d],
				  &err),
			      &err))
			return 0;
	}
	t_context(NULL);
	return 1;
}

static void test_threads_pipeline(void)
{
	shared s;
	worker w[THREADS];
	pthread_t tid[THREADS];
	int started = 0, i;

	memset(&s, 0, sizeof s);
	memset(w, 0, sizeof w);
	if (!single(&s))
		goto out;
	/* The threads load the keys themselves, all at once. */
	wss_keys_cache_clear();
	for (i = 0; i < THREADS; i++) {
		w[i].s = &s;
		w[i].id = i;
		if (!CHECK_EQ_INT(pthread_create(&tid[i], NULL, work, &w[i]),
				  0))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < started; i++) {
		CHECK_MSG(w[i].failed == 0, "thread %d: %s (and %d more)", i,
			  w[i].why, w[i].failed - 1);
		/* sign, verify, the receive of its own send and of the
		 * shared one. */
		CHECK_EQ_INT(w[i].outputs, 4 * ROUNDS * NDOCS);
	}
out:
	wss_keys_cache_clear();
	shared_free(&s);
}

const t_case tests_threads[] = {
	{"threads_pipeline", test_threads_pipeline},
	{NULL, NULL},
};
