/*
 * list.c - tokens=list: the never-evicted token store of RAMPART-298.
 *
 * The model, kept as close to the Java store as C allows:
 *   - an entry is one heap object per token, as a Java Token was, holding
 *     the 20-byte SHA-1 identifier and a copy of the key material (the
 *     wrapped key, 256 bytes with RSA-2048);
 *   - the store is a growable array of pointers to entries in arrival
 *     order (an ArrayList<Token>); put appends, nothing ever removes;
 *   - a lookup walks the array from the oldest entry and compares
 *     identifiers: one pointer dereference and a 20-byte memcmp per entry.
 *     A reply looks up the newest token, so the walk passes every entry:
 *     after n requests a lookup costs n comparisons, a run of R requests
 *     R(R+1)/2.
 * Nothing here is made slower than that on purpose; how much the growth
 * shows against the request's crypto is what the benchmark measures.
 */
#include "wss/tokens.h"

#include <string.h>

#include "dom/alloc.h"

const char wss__tokens_choice[] = "list";

typedef struct entry {
	unsigned char id[WSS_SHA1_LEN];
	size_t key_len;
	unsigned char key[];
} entry;

struct wss_token_store {
	entry **items;
	size_t n, cap;
};

int wss_tokens_new(wss_token_store **out, lab_err *err)
{
	*out = dom_calloc(1, sizeof **out);
	return *out != NULL ? LAB_OK
			    : lab_fail(err, LAB_ENOMEM,
				       "out of memory for a token store");
}

void wss_tokens_free(wss_token_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		dom_free(s->items[i]);
	dom_free(s->items);
	dom_free(s);
}

static entry *find(const wss_token_store *s,
		   const unsigned char id[WSS_SHA1_LEN])
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (memcmp(s->items[i]->id, id, WSS_SHA1_LEN) == 0)
			return s->items[i];
	return NULL;
}

int wss_tokens_put(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN],
		   const unsigned char *key, size_t key_len, lab_err *err)
{
	entry *e;

	if (key_len > WSS_TOKEN_KEY_MAX)
		return lab_fail(err, LAB_EUSAGE,
				"token key material of %zu bytes is over %d",
				key_len, WSS_TOKEN_KEY_MAX);
	if (s->n == s->cap) {
		size_t cap = s->cap != 0 ? s->cap * 2 : 16;
		entry **items = dom_realloc(s->items, cap * sizeof *items);

		if (items == NULL)
			return lab_fail(err, LAB_ENOMEM,
					"out of memory storing a token");
		s->items = items;
		s->cap = cap;
	}
	e = dom_malloc(sizeof *e + key_len);
	if (e == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory storing a token");
	memcpy(e->id, id, WSS_SHA1_LEN);
	e->key_len = key_len;
	if (key_len > 0)
		memcpy(e->key, key, key_len);
	s->items[s->n++] = e;
	return LAB_OK;
}

const unsigned char *wss_tokens_get(const wss_token_store *s,
				    const unsigned char id[WSS_SHA1_LEN],
				    size_t *key_len)
{
	const entry *e = find(s, id);

	if (e == NULL)
		return NULL;
	*key_len = e->key_len;
	return e->key;
}

void wss_tokens_done(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN])
{
	(void)s;
	(void)id;
}

size_t wss_tokens_count(const wss_token_store *s)
{
	return s->n;
}
