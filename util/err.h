/*
 * err.h - the project's error type: a code that maps to a process exit
 * status, plus a message with the input position when there is one.
 *
 * Every fallible function in domlab returns one of these codes and, when
 * it fails, fills the caller's lab_err.  Not for logging or warnings:
 * an error here always means the operation did not happen.
 */
#ifndef LAB_ERR_H
#define LAB_ERR_H

#include <stddef.h>

/* The values are the command line's exit codes (docs/design.md); keep them so. */
enum {
	LAB_OK = 0,
	LAB_EUSAGE = 1,     /* bad arguments or misuse of an API */
	LAB_EMALFORMED = 2, /* input is not well-formed or breaks a limit */
	LAB_ESECURITY = 3,  /* signature, digest, key, timestamp, wrapping */
	LAB_EIO = 4,        /* reading or writing failed */
	LAB_ENOMEM = 5      /* an allocation failed */
};

typedef struct lab_err {
	int code;
	unsigned long line;  /* 1-based input position, 0 when unknown */
	unsigned long col;
	char msg[512];
} lab_err;

/* Records code and message; returns code so callers can `return lab_fail(...)`. */
int lab_fail(lab_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As lab_fail, with the input position the message refers to. */
int lab_fail_at(lab_err *err, int code, unsigned long line, unsigned long col,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Resets err to LAB_OK, no position, an empty message. */
void lab_err_clear(lab_err *err);

/* A short name for a code ("malformed input", ...), for messages. */
const char *lab_strerror(int code);

#endif
