/*
 * test_tokens.c - the token store (wss/tokens.h) on whichever choice this
 * variant links: what put, get and done promise on both, and what only
 * the choice decides (whether done forgets).  The expectations do not
 * depend on the choice except where the test says so.
 */
#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "wss/crypto.h"
#include "wss/tokens.h"

/* Token i's identifier (a SHA-1, as the client's are) and key material. */
static void token(size_t i, unsigned char id[WSS_SHA1_LEN],
		  unsigned char key[256])
{
	size_t k;

	(void)wss_sha1(&i, sizeof i, id);
	for (k = 0; k < 256; k++)
		key[k] = (unsigned char)(i * 31 + k);
}

static int is_list(void)
{
	return strcmp(wss__tokens_choice, "list") == 0;
}

static void store_and_find(void)
{
	unsigned char id[WSS_SHA1_LEN], key[256], other[WSS_SHA1_LEN];
	wss_token_store *s = NULL;
	size_t i, len = 0;
	lab_err err;

	if (!CHECK_OK(wss_tokens_new(&s, &err), &err))
		return;
	CHECK_EQ_INT(wss_tokens_count(s), 0);
	for (i = 0; i < 3; i++) {
		token(i, id, key);
		CHECK_OK(wss_tokens_put(s, id, key, i * 100, &err), &err);
	}
	CHECK_EQ_INT(wss_tokens_count(s), 3);
	for (i = 0; i < 3; i++) {
		const unsigned char *got;

		token(i, id, key);
		got = wss_tokens_get(s, id, &len);
		if (CHECK(got != NULL))
			CHECK_EQ_MEM(got, len, key, i * 100);
	}
	/* Put just now, all three are well within their lifetime. */
	CHECK_EQ_INT(wss_tokens_expired(s), 0);
	token(99, other, key);
	CHECK(wss_tokens_get(s, other, &len) == NULL);
	/* done on an unknown id changes nothing. */
	wss_tokens_done(s, other);
	CHECK_EQ_INT(wss_tokens_count(s), 3);
	wss_tokens_free(s);
}

static void done_forgets_on_hash_only(void)
{
	unsigned char id[WSS_SHA1_LEN], key[256], id2[WSS_SHA1_LEN];
	wss_token_store *s = NULL;
	const unsigned char *got;
	size_t len = 0;
	lab_err err;

	if (!CHECK_OK(wss_tokens_new(&s, &err), &err))
		return;
	token(1, id, key);
	CHECK_OK(wss_tokens_put(s, id, key, 256, &err), &err);
	token(2, id2, key);
	CHECK_OK(wss_tokens_put(s, id2, key, 256, &err), &err);
	wss_tokens_done(s, id);
	/* The choice's difference, the finding itself. */
	CHECK_EQ_INT(wss_tokens_count(s), is_list() ? 2 : 1);
	CHECK_EQ_INT(wss_tokens_get(s, id, &len) != NULL, is_list());
	/* The other token is untouched on both. */
	got = wss_tokens_get(s, id2, &len);
	if (CHECK(got != NULL))
		CHECK_EQ_MEM(got, len, key, 256);
	wss_tokens_free(s);
}

static void key_material_bounded(void)
{
	static unsigned char big[WSS_TOKEN_KEY_MAX + 1];
	unsigned char id[WSS_SHA1_LEN], key[256];
	wss_token_store *s = NULL;
	lab_err err;

	if (!CHECK_OK(wss_tokens_new(&s, &err), &err))
		return;
	token(5, id, key);
	CHECK_EQ_INT(wss_tokens_put(s, id, big, sizeof big, &err), LAB_EUSAGE);
	CHECK_EQ_INT(wss_tokens_count(s), 0);
	CHECK_OK(wss_tokens_put(s, id, big, WSS_TOKEN_KEY_MAX, &err), &err);
	CHECK_EQ_INT(wss_tokens_count(s), 1);
	wss_tokens_free(s);
}

/*
 * Identifiers that differ in their last byte alone: list compares them
 * as the text of a reference, hash by bytes; both must tell them apart,
 * and find nothing for a third one that differs there too.
 */
static void near_identifiers(void)
{
	unsigned char id[3][WSS_SHA1_LEN], key[2][256];
	wss_token_store *s = NULL;
	size_t i, len = 0;
	lab_err err;

	if (!CHECK_OK(wss_tokens_new(&s, &err), &err))
		return;
	for (i = 0; i < 3; i++) {
		memset(id[i], 0xab, WSS_SHA1_LEN);
		id[i][WSS_SHA1_LEN - 1] = (unsigned char)(0x0f + 16 * i);
	}
	for (i = 0; i < 2; i++) {
		memset(key[i], (int)(i + 1), sizeof key[i]);
		CHECK_OK(wss_tokens_put(s, id[i], key[i], sizeof key[i], &err),
			 &err);
	}
	for (i = 0; i < 2; i++) {
		const unsigned char *got = wss_tokens_get(s, id[i], &len);

		if (CHECK(got != NULL))
			CHECK_EQ_MEM(got, len, key[i], sizeof key[i]);
	}
	CHECK(wss_tokens_get(s, id[2], &len) == NULL);
	wss_tokens_free(s);
}

/* Looks token i up, counts it when its own key comes back, marks done. */
static size_t reply(wss_token_store *s, size_t i)
{
	unsigned char id[WSS_SHA1_LEN], key[256];
	const unsigned char *got;
	size_t len = 0, ok;

	token(i, id, key);
	got = wss_tokens_get(s, id, &len);
	ok = got != NULL && len == sizeof key && memcmp(got, key, len) == 0;
	wss_tokens_done(s, id);
	return ok;
}

/*
 * A client's life: N requests, each putting its token, finding it when
 * the reply comes and marking it done; every LATE-th reply arrives after
 * the next request.  Every lookup must return the token's own key on
 * both choices; only the count left over differs.
 */
static void many_requests(void)
{
	enum { N = 3000, LATE = 7 };
	unsigned char id[WSS_SHA1_LEN], key[256];
	wss_token_store *s = NULL;
	size_t i, found = 0, pending = N;
	lab_err err;

	if (!CHECK_OK(wss_tokens_new(&s, &err), &err))
		return;
	for (i = 0; i < N; i++) {
		token(i, id, key);
		if (!CHECK_OK(wss_tokens_put(s, id, key, sizeof key, &err),
			      &err))
			break;
		if (pending != N) {
			found += reply(s, pending);
			pending = N;
		}
		if (i % LATE == LATE - 1)
			pending = i;
		else
			found += reply(s, i);
	}
	if (pending != N)
		found += reply(s, pending);
	CHECK_EQ_INT(found, N);
	CHECK_EQ_INT(wss_tokens_count(s), is_list() ? N : 0);
	wss_tokens_free(s);
}

const t_case tests_tokens[] = {
	{"tokens/store_and_find", store_and_find},
	{"tokens/done_forgets_on_hash_only", done_forgets_on_hash_only},
	{"tokens/key_material_bounded", key_material_bounded},
	{"tokens/near_identifiers", near_identifiers},
	{"tokens/many_requests", many_requests},
	{NULL, NULL},
};
