/*
 * cases_gsoap.c - the gSOAP peer's cases, gsoap:send and gsoap:receive on
 * the quakes datasets: harness/bench/stages.c's runs with gSOAP doing the
 * message (harness/gsoap/gsoap.h), on the same datasets and keys as the
 * send and receive rows (alice sends, bob receives what gSOAP sent).
 * The table entries are in harness/bench/cases.c; these run with --ref.
 *
 * Not for: the other stages or layouts (the peer sends and receives only).
 */
#include "harness/bench/stages.h"
#include "harness/gsoap/gsoap.h"

static int message(lab_stage stage, const char *bytes, size_t len,
		   const wss_key_paths *paths, const wss_opts *o, lab_buf *out,
		   lab_err *err)
{
	if (stage != LAB_STAGE_SEND && stage != LAB_STAGE_RECEIVE)
		return lab_fail(err, LAB_EUSAGE,
				"the gSOAP peer sends and receives only");
	return lab_gsoap_message(stage == LAB_STAGE_SEND ? LAB_GSOAP_SEND
							 : LAB_GSOAP_RECEIVE,
				 bytes, len, paths, o, out, err);
}

static const lab_stage_impl gsoap = {message, NULL, NULL, 0};

int lab_gsoap_setup_input(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&gsoap, ctx, d, LAB_STAGE_NONE, 0, err);
}

int lab_gsoap_setup_sent(void **ctx, const lab_case_data *d, lab_err *err)
{
	return lab_stage_setup(&gsoap, ctx, d, LAB_STAGE_SEND, 0, err);
}
