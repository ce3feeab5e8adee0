/*
 * guess.h - the stream a Body's digest is guessed over on a second
 * thread (wss/digest_ahead.h on receive, wss/send_ahead.h on send): the
 * Body's canonical start tag, its content as bytes that stand somewhere
 * already, and its end tag; where each byte of it stands, and its
 * SHA-256.
 * Not for: when a guess is made, or how it is proved (the two callers).
 */
#ifndef WSS_GUESS_H
#define WSS_GUESS_H

#include <stddef.h>

#include "util/buf.h"
#include "wss/crypto.h"

/*
 * WSS_GUESS_MIN: below this much content the thread costs more than its
 * hashing saves (starting it takes about 70 us here): with the receive's
 * thread behind the decryption and a 64 KB threshold,
 * receive_pipelined/quakes-200k took 9 to 13% longer than receive,
 * while quakes-2m takes 10 to 24% less (one process each, 2 cores); the
 * send's thread starts and hashes alike.  WSS_GUESS_CHUNK: the most a
 * thread hashes between two looks at whether to stop.
 */
enum { WSS_GUESS_MIN = 256 * 1024, WSS_GUESS_CHUNK = 16 * 1024 };

/* On the decrypting thread (a receive's, wss/digest_ahead.h), the least
 * plaintext a guess is made for: below the first-level cache's size the
 * verifier's own digest finds the plaintext there anyway, and the
 * guess's tags and proof are work for nothing (receive/quakes-2k: 0.09%
 * more instructions).  Above it the guess saves the digest's trip to
 * memory: a byte per byte from beyond the last-level cache at 2 MB, into
 * the first level at 200 KB. */
enum { WSS_GUESS_HERE_MIN = 32 * 1024 };

typedef struct wss_guess {
	lab_buf tags;   /* the start tag, then the end tag */
	size_t split;   /* where the end tag starts in tags */
	const char *p;  /* the content */
	size_t n;
} wss_guess;

/* The stream's bytes at offset at, and how many follow in the same part
 * (the start tag, the content, the end tag); *run is 0 past the end. */
const char *wss_guess_at(const wss_guess *g, size_t at, size_t *run);

/* Hashes g->p[0..g->n) into h as it becomes final; 1 when all of it
 * went in. */
typedef int (*wss_guess_content_fn)(void *ctx, wss_sha256_ctx *h);

/* SHA-256 of the stream into out, content hashing its middle part; 1
 * when made. */
int wss_guess_hash(const wss_guess *g, wss_guess_content_fn content,
		   void *ctx, unsigned char out[WSS_SHA256_LEN]);

#endif
