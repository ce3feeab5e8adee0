/*
 * sibling.c - `domlab serve` and `domlab load`: exec domlab-http, found
 * in the folder of the running domlab (/proc/self/exe, so a domlab found
 * through PATH or a symlink finds its own sibling), with the same
 * arguments.  domlab itself links neither libmicrohttpd nor libcurl: a
 * one-shot command would pay their relocations at every start.
 * Not for: running the server or the load (serve.c, load.c).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "harness/http/http.h"
#include "util/alloc.h"

static int exec_sibling(const char *cmd, int argc, char **argv,
			lab_err *err)
{
	static const char name[] = "domlab-http";
	char path[PATH_MAX];
	char **args;
	ssize_t n = readlink("/proc/self/exe", path, sizeof path);
	char *slash;

	if (n < 0 || (size_t)n >= sizeof path - sizeof name)
		return lab_fail(err, LAB_EIO, "cannot find domlab's folder");
	path[n] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash != NULL ? slash + 1 : path, name);
	args = lab_calloc((size_t)argc + 3, sizeof *args);
	if (args == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	args[0] = (char *)name;
	args[1] = (char *)cmd;
	memcpy(args + 2, argv, (size_t)argc * sizeof *args);
	execv(path, args);
	lab_free(args);
	return lab_fail(err, LAB_EIO, "cannot run %s: %s", path,
			strerror(errno));
}

int lab_cmd_serve_exec(int argc, char **argv, lab_err *err)
{
	return exec_sibling("serve", argc, argv, err);
}

int lab_cmd_load_exec(int argc, char **argv, lab_err *err)
{
	return exec_sibling("load", argc, argv, err);
}
