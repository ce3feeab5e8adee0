/*
 * args.h - command-line parsing shared by serve and load (args.c).
 * Not for: the option tables (http.h).
 */
#ifndef LAB_HTTP_ARGS_H
#define LAB_HTTP_ARGS_H

#include "harness/http/http.h"

/* Receives one option of the table (value NULL for a flag). */
typedef int (*http_set_fn)(void *ctx, const char *name, const char *value,
			   lab_err *err);

/*
 * Splits argv as lab_io_args does (FILE, -o and the parser's limits go
 * into io), hands every option of opts to set in order, refuses any other
 * and checks that each required one was given.
 */
int http_args(int argc, char **argv, const lab_opt *opts, lab_io *io,
	      http_set_fn set, void *ctx, lab_err *err);

#endif
