/* placeholder replaced by the benchmark work */
#include "harness/cli.h"
int lab_cmd_bench(int argc, char **argv, lab_err *err)
{
	(void)argc; (void)argv;
	return lab_fail(err, LAB_EUSAGE, "not built yet");
}
