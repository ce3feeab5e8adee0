/*
 * http.h - SOAP over HTTP: `domlab serve` (a libmicrohttpd endpoint that
 * runs receive, then sends the request's Body back) and `domlab load`
 * (a libcurl load generator).  Both live in the domlab-http binary,
 * which links libmicrohttpd, libcurl and the reference peer; `domlab
 * serve` and `domlab load` exec it from the folder domlab is in, so a
 * one-shot `domlab send` never pays for loading those libraries.
 * Not for: the pipeline (wss/) or the reference peer (harness/refpeer/).
 */
#ifndef LAB_HTTP_H
#define LAB_HTTP_H

#include <pthread.h>

#include "harness/cli/cli.h"
#include "util/buf.h"
#include "wss/keys.h"
#include "wss/tokens.h"
#include "wss/wss.h"

/* The option tables, shared by domlab (for --help) and domlab-http. */
extern const lab_opt lab_serve_options[];
extern const lab_opt lab_load_options[];

/* What each command does, for both binaries' tables. */
#define LAB_SERVE_WHAT                                                       \
	"Serves SOAP over HTTP/1.1: receives each POSTed request and "       \
	"answers with its Body sent back to the client (docs/http.md)."
#define LAB_LOAD_WHAT                                                        \
	"Sends the envelope FILE, secured, to a `serve` endpoint from 1, "  \
	"2, 4 ... clients and writes a table of throughput and latency."

/* domlab's serve and load: exec domlab-http from domlab's own folder. */
int lab_cmd_serve_exec(int argc, char **argv, lab_err *err);
int lab_cmd_load_exec(int argc, char **argv, lab_err *err);

/* domlab-http's commands. */
int lab_cmd_serve(int argc, char **argv, lab_err *err);
int lab_cmd_load(int argc, char **argv, lab_err *err);

/* Which implementation answers: domlab's pipeline, or the reference
 * peer (libxml2 + xmlsec1). */
typedef enum http_stack { HTTP_STACK_DOMLAB, HTTP_STACK_REF } http_stack;

/*
 * `serve --tokens`: every received request's token (its EncryptedKey's
 * wrapped key, under its SHA-1) kept in one store of the `tokens` axis
 * for the server's life, and a request whose token is held refused as a
 * replay.  The store serves one thread at a time: the lock is that.
 */
typedef struct http_tokens {
	pthread_mutex_t lock;
	wss_token_store *store;
} http_tokens;

/* Looks the token up and, when it is not held, keeps it; LAB_ESECURITY
 * when it is (a replay).  Under the lock. */
int http_tokens_admit(http_tokens *t, const unsigned char id[WSS_SHA1_LEN],
		      const unsigned char *key, size_t len, lab_err *err);

/* The tokens held (under the lock). */
size_t http_tokens_count(http_tokens *t);

/* What answering a request needs; read-only once the server runs. */
typedef struct http_answer_cfg {
	http_stack stack;
	wss_key_paths paths; /* key, cert, trust; peer_cert: the response's */
	dom_limits lim;
	http_tokens *tokens; /* NULL: no store, no replay refused */
} http_answer_cfg;

/*
 * Answers one POSTed request body of Content-Type ctype (NULL: none):
 * *status and the response body in out (a secured envelope for 200, a
 * SOAP Fault otherwise).  A multipart/related body is SOAP with
 * Attachments: its root part the envelope, its other parts the
 * attachments the signature covers.  400: the body is not a SOAP 1.1
 * envelope (or not a multipart message) within the limits; 415: the
 * reference stack was sent attachments; 500 with faultcode Client:
 * receive refused it, with receive's message, or its token was held;
 * 500 with faultcode Server: the server failed (out of memory), saying
 * nothing more.  Returns LAB_ENOMEM only when not even the Fault could
 * be built.
 */
int http_answer(const http_answer_cfg *cfg, const char *req, size_t len,
		const char *ctype, unsigned *status, lab_buf *out);

/* 1 when a Content-Type value names multipart/related. */
int http_is_multipart(const char *ctype);

/* A SOAP 1.1 Fault envelope with faultcode soap:<code> and the message
 * escaped as faultstring, appended to out. */
int http_fault(const char *code, const char *msg, lab_buf *out);

/* Parses an option's whole-number value, at most max. */
int http_parse_uint(const char *opt, const char *s, unsigned max,
		    unsigned *out, lab_err *err);

#endif
