/*
 * data_files.h - `domlab-bench bench --data PATH`: SOAP envelopes from
 * files as datasets, beside the generated ones (harness/bench/data_files.c).
 * Not for: the generated datasets or the cases (bench.h).
 */
#ifndef LAB_DATA_FILES_H
#define LAB_DATA_FILES_H

#include <stddef.h>

#include "harness/bench/bench.h"
#include "util/buf.h"
#include "util/err.h"

/* One file's dataset: its name (the file's) and its bytes. */
typedef struct lab_data_file {
	char *name;
	lab_buf bytes;
} lab_data_file;

typedef struct lab_data_files {
	lab_data_file *items;
	size_t count;
} lab_data_files;

/*
 * Reads PATH (a file, or a folder whose regular files each count, in name
 * order, hidden ones left out) into *out.  A file that cannot serve as a
 * dataset -- unreadable, not well-formed, not a SOAP 1.1 or 1.2 envelope
 * with a Body, refused by send or receive with the test keys under `keys`, or
 * with a name a case name cannot carry -- is left out with a line on
 * standard error naming it and why.  Fails only when PATH itself cannot
 * be read or memory runs out; *out is then empty.
 */
int lab_data_files_load(const char *path, const char *keys,
			lab_data_files *out, lab_err *err);
void lab_data_files_free(lab_data_files *f);

/* The datasets' names, separated by spaces (a name has none), into out
 * as a NUL-terminated string: the run's context names them, so the
 * reports tell the files from the generated datasets. */
int lab_data_files_names(const lab_data_files *f, lab_buf *out, lab_err *err);

/* 1 when a case runs on the files' datasets: the cases that take a
 * generated envelope (quakes-200k), threaded ones left out. */
int lab_data_files_take(const lab_case *c);

#endif
