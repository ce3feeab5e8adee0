/*
 * stages.h - the pipeline's per-message stages as the benchmark runs
 * them, once for both implementations: domlab's pipeline
 * (harness/bench/cases_wss.c) and the reference peer
 * (harness/bench/cases_ref.c) each give a lab_stage_impl, and share the
 * context, the setups' work, the six stage runs and the teardown.
 * Not for: the case table (harness/bench/cases.c) or what a stage does
 * (wss/wss.h, harness/refpeer/ref.h).
 */
#ifndef LAB_BENCH_STAGES_H
#define LAB_BENCH_STAGES_H

#include "harness/bench/bench.h"
#include "util/buf.h"
#include "wss/keys.h"
#include "wss/wss.h"

typedef enum lab_stage {
	LAB_STAGE_SIGN,
	LAB_STAGE_VERIFY,
	LAB_STAGE_ENCRYPT,
	LAB_STAGE_DECRYPT,
	LAB_STAGE_SEND,
	LAB_STAGE_RECEIVE,
	/* The intermediary's: alice signs the Timestamp and a wsa:To
	 * holding LAB_HOP_TO, not the Body; a hop checks both and passes
	 * the bytes on. */
	LAB_STAGE_SIGN_HEADERS,
	LAB_STAGE_FORWARD,
	LAB_STAGE_NONE /* a setup's `prepare`: the input as it is */
} lab_stage;

#define LAB_HOP_TO "urn:domlab:final-recipient"


typedef struct lab_stage_impl {
	/* Parses bytes, runs stage with the keys paths name and o, and
	 * serializes the result into out (NULL: not; forward: the bytes as
	 * they came). */
	int (*message)(lab_stage stage, const char *bytes, size_t len,
		       const wss_key_paths *paths, const wss_opts *o,
		       lab_buf *out, lab_err *err);
	/* The tree of bytes the c14n and walk runs read, and its release. */
	int (*parse)(const char *bytes, size_t len, void **doc, lab_err *err);
	void (*free_doc)(void *doc);
} lab_stage_impl;

typedef struct lab_stage_ctx {
	const lab_stage_impl *impl;
	lab_case_keys k;
	lab_buf msg; /* what run parses: the input, or `prepare` made of it */
	void *doc;   /* setups that parse: msg's tree */
	size_t sink;
} lab_stage_ctx;

/* A context whose msg is d's input after the stage `prepare`, and parsed
 * into doc when `parse`; nothing is left behind on failure. */
/* Parses bytes, runs stage with the keys of k it takes (alice signs and
 * sends, bob verifies and receives) at the clock now (0: the current
 * time), and serializes the result into out (when out is not NULL). */
int lab_stage_message(const lab_stage_impl *impl, const lab_case_keys *k,
		      lab_stage stage, time_t now, const char *bytes,
		      size_t len, lab_buf *out, lab_err *err);
int lab_stage_setup(const lab_stage_impl *impl, void **ctx,
		    const lab_case_data *d, lab_stage prepare, int parse,
		    lab_err *err);
void lab_stage_teardown(void *ctx);

/* Each stage on the context's msg, with its output serialized (verify
 * has none) and its length kept in sink. */
int lab_stage_run_sign(void *ctx, lab_err *err);
int lab_stage_run_verify(void *ctx, lab_err *err);
int lab_stage_run_encrypt(void *ctx, lab_err *err);
int lab_stage_run_decrypt(void *ctx, lab_err *err);
int lab_stage_run_send(void *ctx, lab_err *err);
int lab_stage_run_receive(void *ctx, lab_err *err);
int lab_stage_run_forward(void *ctx, lab_err *err);

#endif
