/*
 * err.c - filling a lab_err.  Formatting only; no policy on what is an
 * error lives here.
 */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>

static int vfail(lab_err *err, int code, unsigned long line, unsigned long col,
		 const char *fmt, va_list ap)
{
	if (err == NULL)
		return code;
	err->code = code;
	err->line = line;
	err->col = col;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	return code;
}

int lab_fail(lab_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vfail(err, code, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

int lab_fail_at(lab_err *err, int code, unsigned long line, unsigned long col,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = vfail(err, code, line, col, fmt, ap);
	va_end(ap);
	return code;
}

void lab_err_clear(lab_err *err)
{
	if (err == NULL)
		return;
	err->code = LAB_OK;
	err->line = 0;
	err->col = 0;
	err->msg[0] = '\0';
}

const char *lab_strerror(int code)
{
	switch (code) {
	case LAB_OK: return "ok";
	case LAB_EUSAGE: return "usage error";
	case LAB_EMALFORMED: return "malformed input";
	case LAB_ESECURITY: return "security failure";
	case LAB_EIO: return "I/O error";
	case LAB_ENOMEM: return "out of memory";
	default: return "unknown error";
	}
}
