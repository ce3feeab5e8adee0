/*
 * bench.h - `domlab-bench bench`: the benchmark cases as a plain C table
 * (harness/bench/cases.c), the datasets they run on, and the one C++ entry point
 * (harness/bench/bench.cc) that hands them to Google Benchmark.  Timing lives
 * here and nowhere else; tests never time anything.
 *
 * Not for: argument parsing (harness/bench/cmd_bench.c) or reading results
 * (harness/reports/summary.py).
 */
#ifndef LAB_BENCH_H
#define LAB_BENCH_H

#include <stddef.h>
#include <time.h>

#include "datasets/gen.h"
#include "util/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * glibc malloc settings for the whole run (harness/bench/memhooks.c; the
 * scripts set the same through GLIBC_TUNABLES, harness/reports/tunables.sh,
 * which a test holds to these).  Freed memory stays in the heap so every
 * iteration after the first reuses pages already faulted in.
 * 32 MiB is the largest mmap threshold glibc accepts on 64-bit.
 */
#define LAB_BENCH_TRIM_THRESHOLD ((size_t)1 << 30)
#define LAB_BENCH_MMAP_THRESHOLD ((size_t)32 << 20)

/* Which runs make a dataset when the filter does not name it. */
typedef enum lab_dataset_reach {
	LAB_DATASET_ALWAYS = 0,
	LAB_DATASET_NOT_QUICK, /* left out by --quick */
	LAB_DATASET_FULL_ONLY  /* only with --full */
} lab_dataset_reach;

/* One generated document, named as the case names show it. */
typedef struct lab_dataset {
	const char *name;  /* "quakes-2k" */
	lab_gen_kind kind;
	size_t size;       /* lab_gen_opts.size */
	size_t count;      /* lab_gen_opts.count */
	lab_dataset_reach reach;
	int canonical;     /* lab_gen_opts.canonical */
} lab_dataset;

extern const lab_dataset lab_datasets[];
extern const size_t lab_ndatasets;

/* The bytes a case runs on; they outlive the case. */
typedef struct lab_case_data {
	const char *name;
	const char *bytes;
	size_t len;
	const char *keys;  /* folder of alice's and bob's PEM files */
} lab_case_data;

/* The PEM files under a case's keys folder: alice's (key, cert) and
 * bob's (peer_key, peer_cert). */
typedef struct lab_case_keys {
	char key[512], cert[512], peer_key[512], peer_cert[512];
} lab_case_keys;

/* Fills k from d->keys (harness/bench/case_keys.c); a folder too long for
 * them is LAB_EUSAGE. */
int lab_case_key_paths(const lab_case_data *d, lab_case_keys *k,
		       lab_err *err);

/* What a case reports besides time and memory; 0 = none.  Asked once,
 * after the case's first run. */
typedef struct lab_case_info {
	size_t elements;
	size_t attributes;
	size_t tree_bytes; /* arena bytes the tree uses */
	size_t requests;   /* scenario cases: requests per iteration */
	/* A case whose run leaves behind state the next run must not start
	 * from: puts it back, untimed, between two runs (NULL: no need). */
	int (*reset)(void *ctx, lab_err *err);
	/* Where each run marks its steps (util/timeline.h), reported as
	 * counters t_<step> (NULL: no steps). */
	struct lab_timeline *timeline;
} lab_case_info;

/*
 * A case: `run` is the timed part, repeated on the context `setup` made
 * for one dataset.  `setup` leaves nothing behind when it fails;
 * `teardown` releases what a successful setup made.  `info` may be NULL.
 * Reference cases measure a peer (ref: libxml2 itself, pugi: pugixml)
 * and run only with --ref.
 */
typedef struct lab_case {
	const char *stage;              /* "parse"; reference: "ref:parse" */
	const char *const *datasets;    /* NULL-terminated lab_datasets names */
	int ref;
	int (*setup)(void **ctx, const lab_case_data *d, lab_err *err);
	int (*run)(void *ctx, lab_err *err);
	int (*info)(void *ctx, lab_case_info *out, lab_err *err);
	void (*teardown)(void *ctx);
	/* The datasets a run without --full keeps, NULL-terminated (NULL:
	 * all of `datasets`): the pipeline's stages run on every dataset
	 * only in full mode, to keep the default comparison short. */
	const char *const *core;
} lab_case;

extern const lab_case lab_cases[];
extern const size_t lab_ncases;

/*
 * The pipeline's cases (harness/bench/cases_wss.c).  Setups differ in what the
 * timed part reads: the input as generated, parsed, signed, or sent
 * (signed and encrypted, for receive).  The stage runs and the teardown
 * are harness/bench/stages.h's, for these and the reference's alike.
 */
int lab_wss_setup_input(void **ctx, const lab_case_data *d, lab_err *err);
int lab_wss_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_wss_setup_signed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_wss_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err);
int lab_wss_setup_sent(void **ctx, const lab_case_data *d, lab_err *err);
/* The intermediary's input: signed for a hop (stages.h). */
int lab_wss_setup_hop(void **ctx, const lab_case_data *d, lab_err *err);
int lab_wss_run_serialize(void *ctx, lab_err *err);
int lab_wss_run_c14n(void *ctx, lab_err *err);
/* What the receive case does to bytes, with k's keys at the clock now
 * (0: the current time), as `--allow-cbc` when allow_cbc; the
 * pipeline's code, a refusal included. */
int lab_wss_receive_at(const lab_case_keys *k, int allow_cbc,
		       const char *bytes, size_t len, time_t now, lab_err *err);

/*
 * The worst cases (harness/bench/cases_worst.c), stage "worst": each
 * hostile shape `domlab gen` makes, through the command an attacker
 * reaches with it, default limits.  parse for the DOM shapes, receive
 * (bob's keys, at LAB_WORST_NOW) for the rest; a refusal for breaking a
 * limit or failing a check (exit 2 or 3) is the outcome timed, any
 * other failure fails the case, and so does a hostile message received.
 * The many-enc and signedinfo-junk datasets give only their size: the
 * setup writes the message, which needs the keys (datasets/preauth.h).
 */
#define LAB_WORST_SIZE 204800 /* quakes-200k's: its cases are "typical" */
#define LAB_WORST_NOW 1796000000 /* collide-ids' Timestamp is good then */
int lab_worst_setup_parse(void **ctx, const lab_case_data *d, lab_err *err);
int lab_worst_setup_receive(void **ctx, const lab_case_data *d,
			    lab_err *err);
int lab_worst_run_parse(void *ctx, lab_err *err);
int lab_worst_run_receive(void *ctx, lab_err *err);
void lab_worst_teardown(void *ctx);

/* The same stages and setups done by the reference peer, libxml2 +
 * xmlsec1 (harness/bench/cases_ref.c); receive reads what ref itself sent. */
int lab_ref_setup_input(void **ctx, const lab_case_data *d, lab_err *err);
int lab_ref_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_ref_setup_signed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_ref_setup_encrypted(void **ctx, const lab_case_data *d,
			    lab_err *err);
int lab_ref_setup_sent(void **ctx, const lab_case_data *d, lab_err *err);
int lab_ref_setup_hop(void **ctx, const lab_case_data *d, lab_err *err);
int lab_ref_run_traverse(void *ctx, lab_err *err);
int lab_ref_run_serialize(void *ctx, lab_err *err);
int lab_ref_run_c14n(void *ctx, lab_err *err);

/*
 * The pugixml peer (harness/bench/cases_pugi.cc): parse, traverse and serialize
 * with pugixml, run with --ref like the reference's cases.
 */
int lab_pugi_setup(void **ctx, const lab_case_data *d, lab_err *err);
int lab_pugi_setup_parsed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_pugi_run_parse(void *ctx, lab_err *err);
int lab_pugi_run_traverse(void *ctx, lab_err *err);
int lab_pugi_run_serialize(void *ctx, lab_err *err);
int lab_pugi_info(void *ctx, lab_case_info *out, lab_err *err);
void lab_pugi_teardown(void *ctx);

/*
 * The floor's cases (harness/bench/cases_floor.c), stages named "floor:<what>",
 * run only with --floor.  Setups: the message's bytes, the Body's
 * exclusive canonical form, the Timestamp's and SignedInfo's of the
 * message as sent, the Body's content (plain, or encrypted), or alice's
 * and bob's keys.
 */
int lab_floor_setup_bytes(void **ctx, const lab_case_data *d, lab_err *err);
int lab_floor_setup_canonical(void **ctx, const lab_case_data *d,
			      lab_err *err);
int lab_floor_setup_small(void **ctx, const lab_case_data *d, lab_err *err);
int lab_floor_setup_body(void **ctx, const lab_case_data *d, lab_err *err);
int lab_floor_setup_sealed(void **ctx, const lab_case_data *d, lab_err *err);
int lab_floor_setup_rsa(void **ctx, const lab_case_data *d, lab_err *err);
int lab_floor_run_memcpy(void *ctx, lab_err *err);
int lab_floor_run_memchr(void *ctx, lab_err *err);
int lab_floor_run_sha256(void *ctx, lab_err *err);
int lab_floor_run_sha256_small(void *ctx, lab_err *err);
int lab_floor_run_aes256gcm(void *ctx, lab_err *err);
int lab_floor_run_aes256gcm_decrypt(void *ctx, lab_err *err);
int lab_floor_run_aes128cbc(void *ctx, lab_err *err);
int lab_floor_run_rsa_sign(void *ctx, lab_err *err);
int lab_floor_run_rsa_verify(void *ctx, lab_err *err);
int lab_floor_run_oaep_wrap(void *ctx, lab_err *err);
int lab_floor_run_oaep_unwrap(void *ctx, lab_err *err);
void lab_floor_teardown(void *ctx);

/*
 * The scenario cases (harness/bench/cases_scen.c): tokens/<R> and
 * tokens_lookup/<R> (a dataset named by the request count R),
 * attachment/<size> read from a pipe and attachment_file/<size> from a
 * file.
 */
int lab_scen_setup_tokens(void **ctx, const lab_case_data *d, lab_err *err);
int lab_scen_run_tokens(void *ctx, lab_err *err);
int lab_scen_tokens_info(void *ctx, lab_case_info *out, lab_err *err);
int lab_scen_setup_lookup(void **ctx, const lab_case_data *d, lab_err *err);
int lab_scen_run_lookup(void *ctx, lab_err *err);
int lab_scen_lookup_info(void *ctx, lab_case_info *out, lab_err *err);
int lab_scen_setup_attach(void **ctx, const lab_case_data *d, lab_err *err);
int lab_scen_setup_attach_file(void **ctx, const lab_case_data *d,
			       lab_err *err);
int lab_scen_run_attach_pipe(void *ctx, lab_err *err);
int lab_scen_run_attach_file(void *ctx, lab_err *err);
void lab_scen_teardown(void *ctx);

/*
 * Small-message latency (harness/bench/cases_latency.c): latency_plain parses
 * and serializes, latency_secure sends then receives; the ref_ ones do
 * the same with libxml2 + xmlsec1.
 */
int lab_latency_setup_plain(void **ctx, const lab_case_data *d, lab_err *err);
int lab_latency_setup_secure(void **ctx, const lab_case_data *d,
			     lab_err *err);
int lab_latency_setup_ref_secure(void **ctx, const lab_case_data *d,
				 lab_err *err);
int lab_latency_run_plain(void *ctx, lab_err *err);
int lab_latency_run_ref_plain(void *ctx, lab_err *err);
int lab_latency_run_secure(void *ctx, lab_err *err);
void lab_latency_teardown(void *ctx);

/*
 * Threaded cases (harness/bench/cases_threads.c): a case whose stage, after any
 * "ref:" prefix, starts with "threads_" runs on 1, 2, 4, ... up to
 * lab_bench_max_threads() threads at once, timed by the wall clock, each
 * thread with a context its own call to setup made.
 */
int lab_case_threaded(const lab_case *c);

/* Twice the CPUs this process may run on, read at each call. */
int lab_bench_max_threads(void);
/* 1 for a case whose one message uses more than one thread (a stage
 * ending in "_pipelined"): timed by the wall clock, with the CPU time of
 * the whole process (every thread) beside it. */
int lab_case_pipelined(const lab_case *c);

/* threads_control: work with nothing shared, the machine's own scaling. */
int lab_threads_setup_control(void **ctx, const lab_case_data *d,
			      lab_err *err);
int lab_threads_run_control(void *ctx, lab_err *err);
void lab_threads_teardown_control(void *ctx);

/* One registered benchmark: a case on one dataset. */
typedef struct lab_bench_job {
	const lab_case *c;
	lab_case_data data;
} lab_bench_job;

/* A key/value pair for the JSON output's "context". */
typedef struct lab_bench_kv {
	const char *key;
	const char *value;
} lab_bench_kv;

/*
 * Routes libxml2's allocator through util/alloc.h and applies the malloc
 * settings above (*malloc_tuned: whether glibc took them).  Must run
 * before anything calls libxml2.
 */
int lab_bench_mem_setup(int *malloc_tuned, lab_err *err);

/*
 * Registers every job as "<stage>/<dataset>", runs Google Benchmark with
 * argv (argv[0] a program name, then its flags) and tears the cases down.
 * Unrecognized flags, a filter matching nothing and any failing case are
 * errors.
 */
int lab_bench_run(const lab_bench_job *jobs, size_t njobs,
		  const lab_bench_kv *context, size_t ncontext, int argc,
		  char **argv, lab_err *err);

#ifdef __cplusplus
}
#endif

#endif
