/*
 * bench_main.c - the domlab-bench command line: the benchmark (Google
 * Benchmark, the pugixml peer) and the reference peer (libxml2 + xmlsec1),
 * which the benchmark measures against and the tests check domlab
 * against.  One binary for both: the benchmark's ref: cases run the
 * reference peer's code, so it links xmlsec1 either way.
 * Not for: the pipeline's own commands (domlab, harness/cli/main.c).
 */
#include "harness/cli/cli.h"
#ifdef LAB_GSOAP
#include "harness/gsoap/gsoap.h"
#endif

static const lab_command commands[] = {
	{"bench", lab_cmd_bench, NULL, lab_bench_options, 0,
	 "Runs the benchmark cases under Google Benchmark."},
	{"ref", lab_cmd_ref, "sign|verify|encrypt|decrypt|send|receive",
	 lab_ref_options, LAB_TAKES_IO,
	 "The pipeline's commands done by the reference peer (libxml2 + "
	 "xmlsec1), with the same input, output and exit codes."},
#ifdef LAB_GSOAP
	{"gsoap", lab_cmd_gsoap, "send|receive", lab_gsoap_options,
	 LAB_TAKES_IO,
	 "send and receive done by the gSOAP peer (gSOAP's wsse plugin, "
	 "quakes records only), with the same input, output and exit "
	 "codes."},
#endif
};

int main(int argc, char **argv)
{
	static const lab_program bench = {
		"domlab-bench", commands, sizeof commands / sizeof commands[0]};

	return lab_main(&bench, argc, argv);
}
