/*
 * version.h - what `--version` prints for every binary: the version, the
 * commit the build was made from and the variant.  The version and commit
 * are written by the build into one generated file (mk/build.mk), so a
 * new commit relinks the binaries without recompiling the rest.
 * Not for: the variant's axes (`domlab variant`, harness/cli/variant.c).
 */
#ifndef LAB_VERSION_H
#define LAB_VERSION_H

#include <stdio.h>

/* The project's version (the Makefile's VERSION, the .pc file's too). */
const char *lab_version(void);
/* `git describe --always --dirty` when built, or a note that the tree
 * was no git checkout. */
const char *lab_commit(void);

/* Writes "PROG VERSION (commit COMMIT, variant VARIANT)\n" to f. */
void lab_print_version(FILE *f, const char *prog);

#endif
