/*
 * main.c - the domlab-http command line: serve and load, which domlab
 * runs through this binary (harness/http/sibling.c), with the same
 * options and exit codes.
 * Not for: the pipeline's commands (domlab, harness/cli/main.c).
 */
#include "harness/http/http.h"

static const lab_command commands[] = {
	{"serve", lab_cmd_serve, NULL, lab_serve_options, LAB_TAKES_LIMITS,
	 LAB_SERVE_WHAT},
	{"load", lab_cmd_load, NULL, lab_load_options,
	 LAB_TAKES_IO | LAB_TAKES_LIMITS,
	 LAB_LOAD_WHAT},
};

int main(int argc, char **argv)
{
	static const lab_program http = {
		"domlab", commands, sizeof commands / sizeof commands[0]};

	return lab_main(&http, argc, argv);
}
