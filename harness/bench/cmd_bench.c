/*
 * cmd_bench.c - `domlab-bench bench [--quick] [--full] [--ref] [--floor]
 * [--data-seed N] [--worst-size BYTES] [--data PATH] [--keys DIR]
 * [--benchmark_* ...]`: sets up memory accounting, generates the datasets,
 * reads the --data files (harness/bench/data_files.c), picks the cases
 * (harness/bench/cases.c) and hands them to Google Benchmark
 * (harness/bench/bench.cc).  Flags starting with --benchmark_ go to Google
 * Benchmark untouched.
 *
 * `--icount NAME [--icount-iterations N]` runs the one case NAME
 * ("stage/dataset") without Google Benchmark: setup, one untimed call,
 * then N calls inside icount_loop(), which is what
 * `valgrind --tool=callgrind --toggle-collect='icount_loop*'` counts
 * (harness/reports/compare.sh), so instructions per iteration are that count / N
 * with no start-up, data generation, setup or cold call in it.  It ends
 * by printing the iterations and the case's input bytes (its dataset's
 * length), which per-byte figures divide by (harness/reports/profile.sh).
 *
 * Not for: the cases themselves or how they are timed.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "util/alloc.h"
#include "harness/bench/bench.h"
#include "harness/bench/data_files.h"
#include "harness/cli/cli.h"
#include "harness/refpeer/ref.h"
#ifdef LAB_GSOAP
#include "harness/gsoap/gsoap.h"
#endif

const lab_opt lab_bench_options[] = {
	{"--quick", NULL, 0,
	 "a short run: the big datasets left out, less time per case"},
	{"--full", NULL, 0, "the full-only datasets too (quakes-20m)"},
	{"--ref", NULL, 0, "the reference peer's cases (libxml2 + xmlsec1)"},
	{"--floor", NULL, 0,
	 "the floor's cases: memcpy, memchr and the pure crypto cost"},
	{"--data-seed", "N", 0, "the datasets' seed (default 0)"},
	{"--worst-size", "BYTES", 0,
	 "the size of the worst cases' datasets (default 204800)"},
	{"--data", "PATH", 0,
	 "SOAP envelopes from a file, or from each file of a folder: every "
	 "file a dataset named after it, beside the generated ones"},
	{"--keys", "DIR", 0,
	 "the test keys (tests/make-keys.sh; default build/keys)"},
	{"--icount", "CASE", 0,
	 "run the one case \"stage/dataset\" inside icount_loop(), for "
	 "callgrind, without Google Benchmark"},
	{"--icount-iterations", "N", 0,
	 "how many calls --icount makes (default 3)"},
	{"--benchmark_*", NULL, 0,
	 "Google Benchmark's own flags, passed on (--benchmark_filter=RE, "
	 "--benchmark_out=FILE, ...)"},
	{NULL, NULL, 0, NULL}};

static const char gb_prefix[] = "--benchmark_";
static const char filter_prefix[] = "--benchmark_filter=";

typedef struct bench_opts {
	int quick;
	int full;           /* full-only datasets too */
	int ref;
	int floor;
	const char *icount; /* the one case to count instructions of */
	size_t icount_iters;
	size_t seed;
	size_t worst_size;  /* 0: the datasets' own */
	const char *keys;   /* the pipeline cases' keys (tests/make-keys.sh) */
	const char *data;   /* --data PATH, or NULL */
	const char *filter; /* the last --benchmark_filter value, or NULL */
} bench_opts;

/* The number after the flag argv[*i] into *out, *i moved onto it. */
static int size_arg(int argc, char **argv, int *i, size_t *out,
		    lab_err *err)
{
	const char *flag = argv[*i];

	if (*i + 1 == argc)
		return lab_fail(err, LAB_EUSAGE, "%s needs a value", flag);
	return lab_parse_size(flag, argv[++*i], out, err);
}

/*
 * Takes our flags out of argv and appends Google Benchmark's to gb (which
 * holds *ngb already) in order, so a later flag still overrides an
 * earlier one.
 */
static int parse_args(int argc, char **argv, bench_opts *o, char **gb,
		      int *ngb, lab_err *err)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--quick") == 0)
			o->quick = 1;
		else if (strcmp(a, "--full") == 0)
			o->full = 1;
		else if (strcmp(a, "--ref") == 0)
			o->ref = 1;
		else if (strcmp(a, "--floor") == 0)
			o->floor = 1;
		else if (strcmp(a, "--icount") == 0 && i + 1 < argc)
			o->icount = argv[++i];
		else if (strcmp(a, "--icount-iterations") == 0) {
			int rc = size_arg(argc, argv, &i, &o->icount_iters,
					  err);

			if (rc != LAB_OK)
				return rc;
			if (o->icount_iters == 0)
				return lab_fail(err, LAB_EUSAGE,
						"--icount-iterations must be "
						"at least 1");
		} else if (strcmp(a, "--worst-size") == 0) {
			int rc = size_arg(argc, argv, &i, &o->worst_size, err);

			if (rc != LAB_OK)
				return rc;
		} else if (strcmp(a, "--keys") == 0 && i + 1 < argc)
			o->keys = argv[++i];
		else if (strcmp(a, "--data") == 0 && i + 1 < argc)
			o->data = argv[++i];
		else if (strcmp(a, "--data-seed") == 0) {
			int rc = size_arg(argc, argv, &i, &o->seed, err);

			if (rc != LAB_OK)
				return rc;
		} else if (strncmp(a, gb_prefix, sizeof gb_prefix - 1) == 0) {
			if (strncmp(a, filter_prefix,
				    sizeof filter_prefix - 1) == 0)
				o->filter = a + sizeof filter_prefix - 1;
			gb[(*ngb)++] = argv[i];
		} else
			return lab_fail(err, LAB_EUSAGE,
					"unknown option '%s'", a);
	}
	return LAB_OK;
}

/* 1 when name is "<stage>/<dataset>" for this dataset. */
static int names_dataset(const char *name, const lab_dataset *d)
{
	const char *slash = strrchr(name, '/');

	return slash != NULL && strcmp(slash + 1, d->name) == 0;
}

static int selected(const bench_opts *o, const lab_case *c, const char *d);

/* 1 when some case the run may select runs on d (the full or the core
 * datasets, as make_jobs takes them).  Threaded and pipelined cases
 * count whatever the filter: Google Benchmark adds to their names
 * (bench.cc), and their datasets cost little to make. */
static int used(const lab_dataset *d, const bench_opts *o)
{
	size_t i, k;

	for (i = 0; i < lab_ncases; i++) {
		const lab_case *c = &lab_cases[i];
		const char *const *sets =
			!o->full && c->core != NULL ? c->core : c->datasets;
		int suffixed = lab_case_threaded(c) || lab_case_pipelined(c);

		for (k = 0; sets[k] != NULL; k++)
			if (strcmp(sets[k], d->name) == 0 &&
			    (suffixed || selected(o, c, d->name)))
				return 1;
	}
	return 0;
}

/*
 * --quick leaves big datasets out and full-only ones need --full, unless
 * the filter asks for one; --icount generates its case's dataset only
 * (under callgrind, generating 20 MB costs seconds), and a filter the
 * datasets no selected case runs on: the hostile ones take seconds to
 * make, and a run narrowed to a few cases (harness/reports/rounds.py)
 * starts in a fraction of that.
 */
static int wanted(const lab_dataset *d, const bench_opts *o)
{
	if (o->icount != NULL)
		return names_dataset(o->icount, d);
	if (!used(d, o))
		return 0;
	if (o->filter != NULL && strstr(o->filter, d->name) != NULL)
		return 1;
	if (d->reach == LAB_DATASET_FULL_ONLY)
		return o->full;
	return d->reach == LAB_DATASET_ALWAYS || !o->quick;
}

static int is_floor(const lab_case *c)
{
	return strncmp(c->stage, "floor:", 6) == 0;
}

/* 1 when a "worst" case runs on d. */
static int is_worst(const lab_dataset *d)
{
	size_t i, k;

	for (i = 0; i < lab_ncases; i++)
		for (k = 0; strcmp(lab_cases[i].stage, "worst") == 0 &&
			    lab_cases[i].datasets[k] != NULL;
		     k++)
			if (strcmp(lab_cases[i].datasets[k], d->name) == 0)
				return 1;
	return 0;
}

static int gen_datasets(const bench_opts *o, lab_buf *bufs, lab_err *err)
{
	size_t i;

	for (i = 0; i < lab_ndatasets; i++) {
		const lab_dataset *d = &lab_datasets[i];
		lab_gen_opts g;
		int rc;

		if (!wanted(d, o))
			continue;
		g.kind = d->kind;
		g.size = o->worst_size != 0 && is_worst(d) ? o->worst_size
							   : d->size;
		g.count = d->count;
		g.seed = o->seed;
		g.canonical = d->canonical;
		rc = lab_gen(&g, &bufs[i], err);
		if (rc != LAB_OK)
			return rc;
	}
	return LAB_OK;
}

static int find_dataset(const char *name, size_t *out)
{
	size_t i;

	for (i = 0; i < lab_ndatasets; i++)
		if (strcmp(lab_datasets[i].name, name) == 0) {
			*out = i;
			return 1;
		}
	return 0;
}

/*
 * 1 when case c can run on a --data file: set up, run once and torn down
 * without an error.  Otherwise one line says which case leaves the file
 * out and why, and the run goes on without that pair: a file any case
 * can use is measured by those that can.
 */
static int runs_on(const lab_case *c, const lab_case_data *d)
{
	void *ctx = NULL;
	lab_err err;
	int rc;

	lab_err_clear(&err);
	rc = c->setup(&ctx, d, &err);
	if (rc == LAB_OK) {
		rc = c->run(ctx, &err);
		if (ctx != NULL)
			c->teardown(ctx);
	}
	if (rc == LAB_OK)
		return 1;
	fprintf(stderr, "domlab-bench: bench: --data: %s/%s skipped: %s: %s\n",
		c->stage, d->name, lab_strerror(rc), err.msg);
	return 0;
}

/*
 * 0 when the run will not run case c on dataset d: --icount names
 * another case, or --benchmark_filter (read as a POSIX extended regular
 * expression, which Google Benchmark's patterns are in practice) does not
 * match it.  1 when it may, or when the filter is no POSIX pattern or a
 * negative one ("-RE", Google Benchmark's "all but").
 */
static int selected(const bench_opts *o, const lab_case *c, const char *d)
{
	char name[512];
	regex_t re;
	int n = snprintf(name, sizeof name, "%s/%s", c->stage, d), match;

	if (n < 0 || (size_t)n >= sizeof name)
		return 1;
	if (o->icount != NULL)
		return strcmp(o->icount, name) == 0;
	if (o->filter == NULL || o->filter[0] == '-' ||
	    regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
		return 1;
	match = regexec(&re, name, 0, NULL, 0) == 0;
	regfree(&re);
	return match;
}

/* The --data files' jobs of case c, after its generated ones: each file
 * the case will run on is tried first (runs_on). */
static void file_jobs(const bench_opts *o, const lab_case *c,
		      const lab_data_files *files, lab_bench_job *jobs,
		      size_t *njobs)
{
	size_t k;

	if (!lab_data_files_take(c))
		return;
	for (k = 0; k < files->count; k++) {
		lab_bench_job *j = &jobs[*njobs];

		j->c = c;
		j->data.name = files->items[k].name;
		j->data.bytes = files->items[k].bytes.data;
		j->data.len = files->items[k].bytes.len;
		j->data.keys = o->keys;
		if (selected(o, c, j->data.name) && runs_on(c, &j->data))
			(*njobs)++;
	}
}

/* Every (case, dataset) pair that this run selects, in table order. */
static int make_jobs(const bench_opts *o, const lab_buf *bufs,
		     const lab_data_files *files, lab_bench_job *jobs,
		     size_t *njobs, lab_err *err)
{
	size_t i, k;

	*njobs = 0;
	for (i = 0; i < lab_ncases; i++) {
		const lab_case *c = &lab_cases[i];
		const char *const *sets;

		/* --icount names its case, whatever the flags. */
		if (o->icount == NULL &&
		    ((c->ref && !o->ref) || (is_floor(c) && !o->floor)))
			continue;
		sets = !o->full && c->core != NULL ? c->core : c->datasets;
		for (k = 0; sets[k] != NULL; k++) {
			lab_bench_job *j = &jobs[*njobs];
			size_t d;

			if (!find_dataset(sets[k], &d))
				return lab_fail(err, LAB_EUSAGE,
						"case %s names unknown dataset "
						"%s",
						c->stage, sets[k]);
			if (!wanted(&lab_datasets[d], o))
				continue;
			j->c = c;
			j->data.name = lab_datasets[d].name;
			j->data.bytes = bufs[d].data;
			j->data.len = bufs[d].len;
			j->data.keys = o->keys;
			(*njobs)++;
		}
		file_jobs(o, c, files, jobs, njobs);
	}
	return LAB_OK;
}

/* Calls run n times; callgrind counts only this function (with what it
 * calls), so it must stay a function of its own. */
__attribute__((noinline)) static int icount_loop(const lab_case *c, void *ctx,
						 size_t n, lab_err *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int rc = c->run(ctx, err);

		if (rc != LAB_OK)
			return rc;
	}
	return LAB_OK;
}

/* --icount: the named job, once untimed, then icount_loop; a case that
 * asks to be reset between runs (lab_case_info.reset) is, outside
 * icount_loop, so the reset is not counted. */
static int icount(const bench_opts *o, const lab_bench_job *jobs,
		  size_t njobs, lab_err *err)
{
	const lab_bench_job *j = NULL;
	lab_case_info info;
	char name[256];
	void *ctx = NULL;
	size_t i;
	int rc;

	for (i = 0; i < njobs && j == NULL; i++) {
		snprintf(name, sizeof name, "%s/%s", jobs[i].c->stage,
			 jobs[i].data.name);
		if (strcmp(name, o->icount) == 0)
			j = &jobs[i];
	}
	if (j == NULL)
		return lab_fail(err, LAB_EUSAGE, "no case named '%s'",
				o->icount);
	rc = j->c->setup(&ctx, &j->data, err);
	if (rc != LAB_OK)
		return rc;
	memset(&info, 0, sizeof info);
	rc = j->c->run(ctx, err);
	if (rc == LAB_OK && j->c->info != NULL)
		rc = j->c->info(ctx, &info, err);
	if (info.reset == NULL) {
		if (rc == LAB_OK)
			rc = icount_loop(j->c, ctx, o->icount_iters, err);
	} else {
		for (i = 0; rc == LAB_OK && i < o->icount_iters; i++) {
			rc = info.reset(ctx, err);
			if (rc == LAB_OK)
				rc = icount_loop(j->c, ctx, 1, err);
		}
	}
	j->c->teardown(ctx);
	if (rc == LAB_OK)
		printf("%s: %zu iterations\n%s: %zu bytes\n", o->icount,
		       o->icount_iters, o->icount, j->data.len);
	return rc;
}

/* What the JSON output's "context" records beside Google Benchmark's own. */
typedef struct bench_context {
	char seed[32];
	char libxml[32];
	char malloc_cfg[96];
	lab_bench_kv kv[7];
} bench_context;

/* `names`: the --data datasets' names (harness/reports/datafiles.py). */
static void fill_context(bench_context *bc, const bench_opts *o, int tuned,
			 const char *names)
{
	int v = atoi(xmlParserVersion);

	snprintf(bc->seed, sizeof bc->seed, "%zu", o->seed);
	snprintf(bc->libxml, sizeof bc->libxml, "%d.%d.%d", v / 10000,
		 v / 100 % 100, v % 100);
	if (tuned)
		snprintf(bc->malloc_cfg, sizeof bc->malloc_cfg,
			 "trim_threshold=%zu mmap_threshold=%zu",
			 LAB_BENCH_TRIM_THRESHOLD, LAB_BENCH_MMAP_THRESHOLD);
	else
		snprintf(bc->malloc_cfg, sizeof bc->malloc_cfg, "glibc refused");
	bc->kv[0] = (lab_bench_kv){"domlab_variant", dom_variant_name()};
	bc->kv[1] = (lab_bench_kv){"data_seed", bc->seed};
	bc->kv[2] = (lab_bench_kv){"quick", o->quick ? "yes" : "no"};
	bc->kv[3] = (lab_bench_kv){"full", o->full ? "yes" : "no"};
	bc->kv[4] = (lab_bench_kv){"libxml2", bc->libxml};
	bc->kv[5] = (lab_bench_kv){"malloc", bc->malloc_cfg};
	bc->kv[6] = (lab_bench_kv){"data_files", names};
}

int lab_cmd_bench(int argc, char **argv, lab_err *err)
{
	static char prog[] = "domlab-bench bench";
	static char quick_time[] = "--benchmark_min_time=0.05";
	bench_opts o = {0, 0, 0, 0, NULL, 3, 0, 0, "build/keys", NULL, NULL};
	lab_data_files files = {NULL, 0};
	lab_buf names = LAB_BUF_INIT;
	bench_context bc;
	lab_buf *bufs = NULL;
	lab_bench_job *jobs = NULL;
	char **gb = NULL;
	size_t njobs, i;
	int ngb = 0, rc, tuned;

	rc = lab_bench_mem_setup(&tuned, err);
	if (rc != LAB_OK)
		return rc;
	if (!tuned)
		fputs("domlab: bench: warning: glibc refused the malloc "
		      "settings; times include page faults\n",
		      stderr);
	gb = lab_calloc((size_t)argc + 3, sizeof *gb);
	bufs = lab_calloc(lab_ndatasets, sizeof *bufs);
	if (gb == NULL || bufs == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	gb[ngb++] = prog;
	rc = parse_args(argc, argv, &o, gb, &ngb, err);
	if (rc == LAB_OK && o.data != NULL)
		rc = lab_data_files_load(o.data, o.keys, &files, err);
	if (rc != LAB_OK)
		goto out;
	jobs = lab_calloc(lab_ncases * (lab_ndatasets + files.count),
			  sizeof *jobs);
	if (jobs == NULL) {
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
		goto out;
	}
	if (o.quick) {
		/* First, so a --benchmark_min_time given later wins. */
		memmove(gb + 2, gb + 1, (size_t)(ngb - 1) * sizeof *gb);
		gb[1] = quick_time;
		ngb++;
	}
	rc = gen_datasets(&o, bufs, err);
	if (rc == LAB_OK)
		rc = make_jobs(&o, bufs, &files, jobs, &njobs, err);
	if (rc != LAB_OK)
		goto out;
	if (o.icount != NULL) {
		rc = icount(&o, jobs, njobs, err);
		goto out;
	}
	rc = lab_data_files_names(&files, &names, err);
	if (rc != LAB_OK)
		goto out;
	fill_context(&bc, &o, tuned, names.data);
	rc = lab_bench_run(jobs, njobs, bc.kv, sizeof bc.kv / sizeof bc.kv[0],
			   ngb, gb, err);
out:
	for (i = 0; bufs != NULL && i < lab_ndatasets; i++)
		lab_buf_free(&bufs[i]);
	lab_free(bufs);
	lab_data_files_free(&files);
	lab_buf_free(&names);
	lab_free(jobs);
	lab_free(gb);
	/* The reference peer's process-wide state (xmlsec, its key cache). */
	lab_ref_cleanup();
#ifdef LAB_GSOAP
	lab_gsoap_cleanup();
#endif
	return rc;
}
