/*
 * tokens.h - the `tokens` axis: a client's store of the tokens it issued
 * with its requests, found again when the replies come back.
 *
 * The scenario is secure conversation as WSS 1.1 clients ran it: every
 * request carries an EncryptedKey, the client keeps the key material
 * under the key's SHA-1 identifier (the EncryptedKeySHA1 a reply names
 * it by), and looks it up when the reply arrives.
 *
 *   list  appends every token, never removes one, and finds one the way
 *         Apache Rampart's SimpleTokenStore.getToken() did before
 *         RAMPART-298 (variants/tokens/list.c cites the source): every
 *         lookup first compares every stored token's expiry with the
 *         clock (a clock read per token), then, the reply naming the
 *         token by a SecurityTokenReference rather than by the token's
 *         own id, scans all tokens without stopping at the match,
 *         resolving each token's attached and unattached reference
 *         through the DOM (first child element, two name comparisons,
 *         the URI attribute copied without its '#', compared).  Each
 *         token keeps those two references as small elements of a
 *         document the store owns.  Not modelled: the JVM's and Axiom's
 *         allocation and GC costs, nor how often Rampart's callback
 *         handler called getToken per reply (once here);
 *   hash  keys tokens by identifier and drops a token once its reply is
 *         validated (wss_tokens_done); no expiry, no references.
 *
 * A store belongs to one client object and is not a process global:
 * nothing is shared, so nothing is locked; one thread uses a store at a
 * time.  Both choices find the same key for the same identifier while the
 * token is outstanding.  Not for: deciding whether a reply is valid (the
 * pipeline does that) or removing tokens by time (list counts the expired
 * ones where the Java marked them, and still returns them).
 */
#ifndef WSS_TOKENS_H
#define WSS_TOKENS_H

#include <stddef.h>

#include "util/err.h"
#include "wss/crypto.h"

/* The largest key material a token holds: an RSA-4096 wrapped key. */
#define WSS_TOKEN_KEY_MAX 512

typedef struct wss_token_store wss_token_store;

int wss_tokens_new(wss_token_store **out, lab_err *err);

/* Frees the store and every token in it (NULL is fine). */
void wss_tokens_free(wss_token_store *s);

/*
 * Stores a token: its identifier and a copy of its key material (at most
 * WSS_TOKEN_KEY_MAX bytes, else LAB_EUSAGE).  Put is the append or
 * insert alone, it does not search: identifiers are SHA-1s of fresh keys,
 * and which of two tokens with one identifier get finds is unspecified.
 */
int wss_tokens_put(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN],
		   const unsigned char *key, size_t key_len, lab_err *err);

/* Put's check of key_len, one message for both choices. */
static inline int wss_tokens_check_key_len(size_t key_len, lab_err *err)
{
	if (key_len > WSS_TOKEN_KEY_MAX)
		return lab_fail(err, LAB_EUSAGE,
				"token key material of %zu bytes is over %d",
				key_len, WSS_TOKEN_KEY_MAX);
	return LAB_OK;
}

/* The key material stored under id, valid until the next put, done or
 * free on this store; NULL when there is none.  Not const: list counts
 * the tokens past their lifetime as it walks them (wss_tokens_expired),
 * where the Java marked them. */
const unsigned char *wss_tokens_get(wss_token_store *s,
				    const unsigned char id[WSS_SHA1_LEN],
				    size_t *key_len);

/* The reply for id was validated: hash forgets the token, list keeps it
 * (that is the finding).  An unknown id is ignored. */
void wss_tokens_done(wss_token_store *s, const unsigned char id[WSS_SHA1_LEN]);

/* Tokens held now. */
size_t wss_tokens_count(const wss_token_store *s);

/* Tokens the last get found past their lifetime: list's per-token
 * expiry check has its result here (the benchmark adds it to what it
 * keeps, so the check is work that counts); hash has no expiry, 0. */
size_t wss_tokens_expired(const wss_token_store *s);

extern const char wss__tokens_choice[];   /* "list" / "hash" */

#endif
