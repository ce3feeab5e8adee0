/*
 * framed.c - read=framed: the body ends where the HTTP framing says, so
 * there is nothing to wait for once libmicrohttpd has read it.
 */
#include "wss/read.h"

const char wss__read_choice[] = "framed";

int wss_read_body_end(int fd, unsigned timeout_ms, wss_read_end *how,
		      lab_err *err)
{
	(void)fd;
	(void)timeout_ms;
	(void)err;
	*how = WSS_READ_FRAMED;
	return LAB_OK;
}
