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

#include <stdint.h>

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

/* The message layouts the layout cases measure besides the default
 * (sign, then encrypt the Body's content): encrypt, then sign; the
 * Signature encrypted too; a header block encrypted too, into a
 * wsse11:EncryptedHeader (LAB_HEADER_BLOCK, which the setup puts in the
 * dataset's empty soap:Header); and the default message sent on two
 * threads (wss_opts.threads = 2: the same bytes, made on two cores). */
typedef enum lab_layout {
	LAB_LAYOUT_DEFAULT,
	LAB_LAYOUT_ENCRYPT_SIGN,
	LAB_LAYOUT_ENCRYPT_SIGNATURE,
	LAB_LAYOUT_ENCRYPTED_HEADER,
	LAB_LAYOUT_PIPELINED
} lab_layout;
#define LAB_HEADER_BLOCK "{urn:example:addressing}To"
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
	/* 1: send and receive hand their output to a writer in pieces
	 * (lab_stage_run_send); 0: into one buffer, as the reference's
	 * own serializer returns it. */
	int pieces;
} lab_stage_impl;

typedef struct lab_stage_ctx {
	const lab_stage_impl *impl;
	lab_case_keys k;
	lab_layout layout; /* what send makes */
	lab_buf msg; /* what run parses: the input, or `prepare` made of it */
	void *doc;   /* setups that parse: msg's tree */
	size_t sink;
	uint64_t fold; /* what the output's writer read of the bytes */
	/* The pipelined layout's: where each message marks its steps
	 * (wss_opts.timeline), for the benchmark to report; else NULL. */
	struct lab_timeline *timeline;
} lab_stage_ctx;

/* A context whose msg is d's input after the stage `prepare`, and parsed
 * into doc when `parse`; nothing is left behind on failure. */
/* Parses bytes, runs stage with the keys of k it takes (alice signs and
 * sends, bob verifies and receives) at the clock now (0: the current
 * time), send in `layout`, and serializes the result into out (when out
 * is not NULL); the steps marked on tl (NULL: nowhere). */
int lab_stage_message(const lab_stage_impl *impl, const lab_case_keys *k,
		      lab_stage stage, lab_layout layout, time_t now,
		      const char *bytes, size_t len, struct lab_timeline *tl,
		      lab_buf *out, lab_err *err);
int lab_stage_setup(const lab_stage_impl *impl, void **ctx,
		    const lab_case_data *d, lab_stage prepare, int parse,
		    lab_err *err);
/* The same for a layout case: prepare is LAB_STAGE_NONE (a send case's
 * input) or LAB_STAGE_SEND (a receive case's), in `layout`. */
int lab_stage_setup_layout(const lab_stage_impl *impl, void **ctx,
			   const lab_case_data *d, lab_stage prepare,
			   lab_layout layout, lab_err *err);
void lab_stage_teardown(void *ctx);
/* lab_case_info's for the stage cases: the context's timeline. */
int lab_stage_info(void *ctx, lab_case_info *out, lab_err *err);

/* The layout cases' setups, domlab's (harness/bench/cases_wss.c) and the
 * reference's (cases_ref.c): a send case's input, a receive case's
 * message sent in layout. */
int lab_wss_setup_layout_input(void **ctx, const lab_case_data *d,
			       lab_layout layout, lab_err *err);
int lab_wss_setup_layout_sent(void **ctx, const lab_case_data *d,
			      lab_layout layout, lab_err *err);
int lab_ref_setup_layout_input(void **ctx, const lab_case_data *d,
			       lab_layout layout, lab_err *err);
int lab_ref_setup_layout_sent(void **ctx, const lab_case_data *d,
			      lab_layout layout, lab_err *err);

/*
 * Each stage on the context's msg, with its output serialized (verify
 * has none) and its length kept in sink.  send and receive, for an impl
 * with `pieces`, write it through a writer with a window of
 * LAB_STAGE_WINDOW bytes, as a service writes to a socket: the writer
 * folds the bytes into fold and counts them.  The _whole runs write it
 * into one buffer, the output a caller holds whole.
 */
enum { LAB_STAGE_WINDOW = 64 * 1024 };
int lab_stage_run_sign(void *ctx, lab_err *err);
int lab_stage_run_verify(void *ctx, lab_err *err);
int lab_stage_run_encrypt(void *ctx, lab_err *err);
int lab_stage_run_decrypt(void *ctx, lab_err *err);
int lab_stage_run_send(void *ctx, lab_err *err);
int lab_stage_run_receive(void *ctx, lab_err *err);
int lab_stage_run_send_whole(void *ctx, lab_err *err);
int lab_stage_run_receive_whole(void *ctx, lab_err *err);
int lab_stage_run_forward(void *ctx, lab_err *err);

#endif
