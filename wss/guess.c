/*
 * guess.c - the stream a Body's digest is guessed over (wss/guess.h).
 */
#include "wss/guess.h"

const char *wss_guess_at(const wss_guess *g, size_t at, size_t *run)
{
	if (at < g->split) {
		*run = g->split - at;
		return g->tags.data + at;
	}
	at -= g->split;
	if (at < g->n) {
		*run = g->n - at;
		return g->p + at;
	}
	at -= g->n;
	*run = at < g->tags.len - g->split ? g->tags.len - g->split - at : 0;
	return g->tags.data + g->split + (*run != 0 ? at : 0);
}

int wss_guess_hash(const wss_guess *g, wss_guess_content_fn content,
		   void *ctx, unsigned char out[WSS_SHA256_LEN])
{
	wss_sha256_ctx *h = NULL;
	lab_err ignored;
	int made = wss_sha256_new(&h, &ignored) == LAB_OK &&
		   wss_sha256_update(h, g->tags.data, g->split) == LAB_OK &&
		   content(ctx, h) &&
		   wss_sha256_update(h, g->tags.data + g->split,
				     g->tags.len - g->split) == LAB_OK &&
		   wss_sha256_final(h, out) == LAB_OK;

	wss_sha256_free(h);
	return made;
}
