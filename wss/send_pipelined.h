/*
 * send_pipelined.h - a second thread for one message: the bytes one
 * thread produces (the sender's canonical Body content, digested there)
 * handed in order to a worker thread that does its own work on them
 * (wss/seal.c: AES-GCM and base64 into the CipherValue's text).
 *
 * The bytes go through a bounded ring of WSS_PIPELINED_SLOTS slots of
 * WSS_PIPELINED_PIECE bytes, copied in: the pieces the producer has are
 * not all stable (deferred content is read through a window that is
 * reused), and a copy into a slot small enough to stay in L2 costs less
 * than either thread waits.  A full ring stops the producer; an empty
 * one the worker.  The slots are wiped when freed: they held plaintext.
 * Not for: more than one worker, or a producer on several threads.
 */
#ifndef WSS_SEND_PIPELINED_H
#define WSS_SEND_PIPELINED_H

#include <stddef.h>

#include "util/err.h"

enum { WSS_PIPELINED_PIECE = 64 * 1024, WSS_PIPELINED_SLOTS = 4 };

typedef struct wss_pipelined wss_pipelined;

/* The worker's two steps, on its thread: each piece in order (LAB_OK or
 * a code), then, after the last, the end. */
typedef int (*wss_pipelined_piece_fn)(void *ctx, const char *p, size_t n);
typedef int (*wss_pipelined_end_fn)(void *ctx, lab_err *err);

/* Starts the worker; ctx is its own until wss_pipelined_join or
 * _cancel returns.  LAB_ENOMEM when the ring or the thread cannot be
 * had. */
int wss_pipelined_start(wss_pipelined **out, wss_pipelined_piece_fn piece,
			wss_pipelined_end_fn end, void *ctx, lab_err *err);
/* Hands over p[0..n) (a copy), waiting for a free slot when the ring is
 * full.  LAB_EIO once the worker failed (its reason comes with join). */
int wss_pipelined_put(wss_pipelined *w, const char *p, size_t n);
/* The last bytes and the end handed over; returns without waiting for
 * the worker.  LAB_EIO as put. */
int wss_pipelined_finish(wss_pipelined *w);
/* After finish: waits for the worker, frees w, and returns the worker's
 * code (its message in err). */
int wss_pipelined_join(wss_pipelined *w, lab_err *err);
/* Stops the worker where it is (its end is not run) and frees w;
 * NULL is fine. */
void wss_pipelined_cancel(wss_pipelined *w);

#endif
