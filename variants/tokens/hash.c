/*
 * hash.c - tokens=hash: tokens in a hash table keyed by identifier, each
 * dropped once its reply is validated, so the store holds only the
 * requests still waiting for a reply and every operation costs the same
 * however many requests came before.
 *
 * Separate chaining, the bucket from the hash axis (dom/hash.h): the
 * identifier is a SHA-1 a client computes, but a peer names tokens too.  The table doubles when it holds
 * more tokens than buckets and never shrinks (a client's outstanding
 * requests are few).
 */
#include "wss/tokens.h"

#include <string.h>

#include "util/alloc.h"
#include "dom/hash.h"

const char wss__tokens_choice[] = "hash";

enum { MIN_BUCKETS = 16 };

typedef struct entry {
	struct entry *next;
	unsigned char id[WSS_SHA1_LEN];
	size_t key_len;
	unsigned char key[];
} entry;

struct wss_token_store {
	entry **b;
	size_t nb, n;   /* nb a power of two */
};

static size_t slot(const unsigned char id[WSS_SHA1_LEN], size_t nb)
{
	return dom__hash_bytes(id, WSS_SHA1_LEN) & (nb - 1);
}

int wss_tokens_new(wss_token_store **out, lab_err *err)
{
	wss_token_store *s;
	int rc = dom__hash_ready(err);

	*out = NULL;
	if (rc != LAB_OK)
		return rc;
	s = lab_calloc(1, sizeof *s);
	if (s == NULL || (s->b = lab_calloc(MIN_BUCKETS, sizeof *s->b)) == NULL) {
		lab_free(s);
		return lab_fail(err, LAB_ENOMEM,
				"out of memory for a token store");
	}
	s->nb = MIN_BUCKETS;
	*out = s;
	return LAB_OK;
}

void wss_tokens_free(wss_token_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nb; i++) {
		entry *e = s->b[i], *next;

		for (; e != NULL; e = next) {
			next = e->next;
			lab_free(e);
		}
	}
	lab_free(s->b);
	lab_free(s);
}

static entry **find(const wss_token_store *s,
		    const unsigned char id[WSS_SHA1_LEN])
{
	entry **p = &s->b[slot(id, s->nb)];

	while (*p != NULL && memcmp((*p)->id, id, WSS_SHA1_LEN) != 0)
		p = &(*p)->next;
	return p;
}

/* Doubles the table; on failure the old one stays in use. */
static int grow(wss_token_store *s, lab_err *err)
{
	size_t nb = s->nb * 2, i;
	entry **b = lab_calloc(nb, sizeof *b);

	if (b == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory storing a token");
	for (i = 0; i < s->nb; i++) {
		entry *e = s->b[i], *next;

		for (; e != NULL; e = next) {
			size_t k = slot(e->id, nb);

			next = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	lab_free(s->b);
	s->b = b;
	s->nb = nb;
	return LAB_OK;
}

int wss_tokens_put(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN],
		   const unsigned char *key, size_t key_len, lab_err *err)
{
	entry *e;
	int rc;

	rc = wss_tokens_check_key_len(key_len, err);
	if (rc != LAB_OK)
		return rc;
	if (s->n >= s->nb && (rc = grow(s, err)) != LAB_OK)
		return rc;
	e = lab_malloc(sizeof *e + key_len);
	if (e == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory storing a token");
	memcpy(e->id, id, WSS_SHA1_LEN);
	e->key_len = key_len;
	if (key_len > 0)
		memcpy(e->key, key, key_len);
	e->next = s->b[slot(id, s->nb)];
	s->b[slot(id, s->nb)] = e;
	s->n++;
	return LAB_OK;
}

const unsigned char *wss_tokens_get(wss_token_store *s,
				    const unsigned char id[WSS_SHA1_LEN],
				    size_t *key_len)
{
	const entry *e = *find(s, id);

	if (e == NULL)
		return NULL;
	*key_len = e->key_len;
	return e->key;
}

void wss_tokens_done(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN])
{
	entry **p = find(s, id), *e = *p;

	if (e == NULL)
		return;
	*p = e->next;
	lab_free(e);
	s->n--;
}

size_t wss_tokens_count(const wss_token_store *s)
{
	return s->n;
}

size_t wss_tokens_expired(const wss_token_store *s)
{
	(void)s;
	return 0;
}
