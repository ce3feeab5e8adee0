/*
 * test_digest_ahead.c - the Body's digest made behind its decryption
 * (wss/digest_ahead.h), on a second thread or on this one, taken only
 * when proved.
 *
 * A Body whose only child is replaced, through dom_replace_parsed_held
 * with the guesser's watch, by plaintext lying in the child's text's
 * bytes (as a decrypted CipherValue's do), either decrypted there from
 * base64 (GCM, CBC) with the guesser's decryption watch, or, for the
 * thread, put there (the thread then hashes during the parse):
 * - canonical plaintext: the guess is taken, where the variant keeps
 *   the bytes, and is the digest wss_digest makes;
 * - plaintext whose canonical form differs (an empty-element tag, an
 *   attribute in single quotes): never taken, so a signature over the
 *   plaintext's own bytes does not verify;
 * - not taken for another element, a Reference with a PrefixList, after
 *   the document changes, below the threshold, when the child is not
 *   alone, for bytes that move before the parse, after a parse that
 *   failed, or on this thread for plaintext not decrypted behind it;
 * - after a ciphertext that fails, stopped before the wipe and never
 *   taken.
 * Whenever a guess is taken it must be wss_digest's.  Named threads_* so
 * that `make test` runs it under ThreadSanitizer too.
 */
#include <stdio.h>

#include "tests/util.h"
#include "util/base64.h"
#include "wss/digest_ahead.h"
#include "wss/dsig.h"
#include "wss/guess.h"
#include "wss/pass.h"

/* Room in front of the plaintext for the parse's wrapper tag. */
enum { ROOM = 600, BIG = 300000 };

/* A payload of at least n bytes: canonical, or with one tail that is
 * not (its canonical form is other bytes). */
static int payload(lab_buf *b, size_t n, const char *tail)
{
	int ok = lab_buf_puts(b, "<q:r xmlns:q=\"urn:q\">") == LAB_OK;
	unsigned i;

	for (i = 0; ok && b->len < n; i++)
		ok = lab_buf_printf(b, "<q:v n=\"%u\">%u &amp; x</q:v>", i,
				    i * 7) == LAB_OK;
	ok = ok && lab_buf_puts(b, tail) == LAB_OK &&
	     lab_buf_puts(b, "</q:r>") == LAB_OK;
	return CHECK(ok);
}

typedef struct scene {
	dom_doc *doc;
	dom_node *body;
	wss_ahead *a;
	int kept; /* the variant keeps the Body's canonical bytes */
} scene;

/* Both ways of hashing: the guesser's wss_ahead_new argument. */
static const int on_threads[] = {1, 0};

static void mode_context(int on_thread, const char *more)
{
	t_context("%s%s%s", on_thread ? "on a second thread" : "on this thread",
		  more != NULL ? ", " : "", more != NULL ? more : "");
}

/* How replaced() sets the scene: a text beside the Body's child, the
 * Body changed between the parse and the check, or the plaintext at the
 * start of its bytes, so that it moves for the wrapper's start tag. */
enum { ALONE, SPACED, CHANGED, MOVED };

/* The scene's document, its Body's only child x (beside a space when
 * SPACED) holding a text of size bytes, taken (dom_text_take) into *b. */
static int stage_scene(scene *s, int how, int on_thread, size_t size,
		       dom_node **x, char **b)
{
	lab_buf in = LAB_BUF_INIT;
	size_t got = 0;
	lab_err err;
	int ok;

	memset(s, 0, sizeof *s);
	ok = CHECK_OK(wss_ahead_new(&s->a, on_thread, NULL, &err), &err) &&
	     CHECK(lab_buf_printf(&in,
				  "<s:Envelope xmlns:s=\"urn:s\" xmlns:w=\"urn:w\"><s:Body "
				  "xmlns:u=\"urn:u\" u:Id=\"b\">%s<x>%0*d</x>"
				  "</s:Body></s:Envelope>",
				  how == SPACED ? " " : "", (int)size,
				  0) == LAB_OK) &&
	     (s->doc = T_PARSE_N(in.data, in.len)) != NULL;
	if (ok) {
		s->body = t_find(dom_doc_element(s->doc), "Body");
		*x = t_find(s->body, "x");
		*b = dom_text_take(dom_first_child(*x), &got);
		ok = CHECK(*b != NULL) && CHECK_EQ_INT(got, size);
	}
	lab_buf_free(&in);
	return ok;
}

/* After the replace: the Body changed when CHANGED (by bytes of the
 * same length: only the bytes tell), then the guess checked. */
static int checked(scene *s, int how, int rc)
{
	size_t got;
	lab_err err;

	if (rc == LAB_OK && how == CHANGED)
		rc = dom_attr_set(s->body, "urn:u", "u:Id", "c", 1, &err);
	if (rc == LAB_OK) {
		wss_ahead_check(s->a, s->body);
		s->kept = dom_canonical_content_peek(s->body, &got, &got) !=
			  NULL;
	}
	return rc;
}

/*
 * The document with plain in place of the Body's child, through the
 * guesser's watch, then the guess checked.  The code of the replace.
 */
static int replaced(scene *s, const lab_buf *plain, int how, int on_thread)
{
	size_t size = ROOM + plain->len + 32, at;
	dom_node *x;
	char *b;
	lab_err err;

	if (!stage_scene(s, how, on_thread, size, &x, &b))
		return LAB_EUSAGE;
	at = how == MOVED ? 0 : ROOM;
	memset(b, ' ', size);
	memcpy(b + at, plain->data, plain->len);
	return checked(s, how,
		       dom_replace_parsed_held(
			       x, b, size, at, plain->len, NULL,
			       wss_ahead_begin(s->a, s->body, x, plain->len),
			       &err));
}

/* How decrypted() treats the ciphertext. */
typedef struct crypt {
	wss_cipher cipher;
	int tamper;  /* one octet changed so that the decryption fails */
	size_t room; /* in front of the plaintext for the wrapper's tag */
} crypt;

static const crypt gcm = {WSS_AES256_GCM, 0, ROOM};

/*
 * The same with plain arriving as xenc.c has it: encrypted under
 * k->cipher, in base64 in the child's text, decrypted in place with the
 * guesser's decryption watch (hashing behind it), then parsed with its
 * parse watch; `how` as for replaced() but MOVED.  With `tamper` one
 * ciphertext octet is changed so that the decryption fails (GCM's tag,
 * CBC's padding; LAB_ESECURITY) after what came before was hashed.
 * With no room in front, the plaintext moves for the wrapper's start
 * tag while the thread may still be reading it.
 */
static int decrypted(scene *s, const lab_buf *plain, const crypt *k, int how,
		     int on_thread)
{
	wss_cipher c = k->cipher;
	unsigned char key[WSS_MAX_KEY_LEN];
	lab_buf ct = LAB_BUF_INIT, txt = LAB_BUF_INIT;
	size_t off = 0, len = 0, size;
	dom_node *x = NULL;
	char *b = NULL;
	lab_err err;
	int rc = LAB_EUSAGE;

	if (!CHECK_OK(wss_random(key, sizeof key, &err), &err) ||
	    !CHECK_OK(wss_encrypt(c, key, (const unsigned char *)plain->data,
				  plain->len, &ct, &err), &err))
		goto out;
	/* GCM: any octet; CBC: the one that sets the pad count to 0. */
	if (k->tamper && c == WSS_AES256_GCM)
		ct.data[ct.len / 2] ^= 0x01;
	else if (k->tamper)
		ct.data[ct.len - 17] ^= (char)(16 - plain->len % 16);
	if (!CHECK_EQ_INT(lab_base64_encode(ct.data, ct.len, 76, &txt),
			  LAB_OK))
		goto out;
	size = txt.len + 32;
	if (!stage_scene(s, how, on_thread, size, &x, &b))
		goto out;
	memset(b, ' ', size);
	memcpy(b, txt.data, txt.len);
	rc = wss_pass_open(b, size, k->room, c, key,
			   wss_ahead_decrypting(s->a, s->body, x, size), &off,
			   &len, &err);
	if (rc == LAB_OK)
		rc = checked(s, how,
			     dom_replace_parsed_held(
				     x, b, size, off, len, NULL,
				     wss_ahead_begin(s->a, s->body, x, len),
				     &err));
out:
	lab_buf_free(&ct);
	lab_buf_free(&txt);
	return rc;
}

static void scene_free(scene *s)
{
	wss_ahead_free(s->a);
	dom_doc_free(s->doc);
	memset(s, 0, sizeof *s);
}

/* Whether the guess is taken for (target, nprefixes); if so, it must
 * be wss_digest's. */
static int taken(const scene *s, const dom_node *target, size_t nprefixes)
{
	unsigned char got[WSS_SHA256_LEN], want[WSS_SHA256_LEN];
	lab_err err;

	if (!wss_ahead_take(s->a, target, nprefixes, got))
		return 0;
	if (CHECK_OK(wss_digest(target, NULL, 0, want, &err), &err))
		CHECK_EQ_MEM(got, sizeof got, want, sizeof want);
	return 1;
}

/* What a taken guess must still refuse: another element, a
 * PrefixList, and any change to the document after it was proved. */
static void not_beyond(scene *s)
{
	lab_err err;

	CHECK(!taken(s, dom_doc_element(s->doc), 0));
	CHECK(!taken(s, s->body, 1));
	CHECK_OK(dom_attr_set(dom_doc_element(s->doc), NULL, "z", "1", 1,
			      &err),
		 &err);
	CHECK(!taken(s, s->body, 0));
}

/* Canonical plaintext: taken where the variant keeps the bytes (else
 * there is nothing to prove), decrypted behind either hashing; put in
 * place without a decryption, only by the thread, which hashes during
 * the parse. */
static void test_ahead_canonical(void)
{
	lab_buf plain = LAB_BUF_INIT;
	size_t i;

	if (!payload(&plain, BIG, ""))
		return;
	for (i = 0; i < 2; i++) {
		scene s = {NULL, NULL, NULL, 0};

		mode_context(on_threads[i], "decrypted");
		if (CHECK_OK(decrypted(&s, &plain, &gcm, ALONE, on_threads[i]),
			     NULL)) {
			CHECK_EQ_INT(taken(&s, s.body, 0), s.kept);
			not_beyond(&s);
		}
		scene_free(&s);
		mode_context(on_threads[i], "not decrypted");
		if (CHECK_OK(replaced(&s, &plain, ALONE, on_threads[i]),
			     NULL)) {
			CHECK_EQ_INT(taken(&s, s.body, 0),
				     s.kept && on_threads[i]);
			not_beyond(&s);
		}
		scene_free(&s);
	}
	t_context(NULL);
	lab_buf_free(&plain);
}

/* Plaintext that is not its own canonical form: the bytes hashed are
 * not the Body's digest, and are never taken for it, decrypted behind
 * either hashing or (for the thread) put in place. */
static void test_ahead_not_canonical(void)
{
	/* The last uses a prefix the Envelope binds, which the Body's
	 * start tag does not render: the canonical form declares it. */
	static const char *const tails[] = {"<q:e/>", "<q:e a='1'></q:e>",
					    "<q:e  a=\"1\"></q:e>",
					    "<w:e></w:e>"};
	size_t i, m;

	for (i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		lab_buf plain = LAB_BUF_INIT;
		scene s = {NULL, NULL, NULL, 0};

		if (!payload(&plain, BIG, tails[i]))
			continue;
		for (m = 0; m < 2; m++) {
			mode_context(on_threads[m], tails[i]);
			if (CHECK_OK(decrypted(&s, &plain, &gcm, ALONE,
					       on_threads[m]),
				     NULL))
				CHECK(!taken(&s, s.body, 0));
			scene_free(&s);
		}
		mode_context(1, tails[i]);
		if (CHECK_OK(replaced(&s, &plain, ALONE, 1), NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
		lab_buf_free(&plain);
	}
	t_context(NULL);
}

/* The Body changed after the bytes were hashed and before the check:
 * its canonical start tag is no longer the one hashed. */
static void test_ahead_changed(void)
{
	lab_buf plain = LAB_BUF_INIT;
	size_t i;

	if (!payload(&plain, BIG, ""))
		return;
	for (i = 0; i < 2; i++) {
		scene s = {NULL, NULL, NULL, 0};

		mode_context(on_threads[i], NULL);
		if (CHECK_OK(decrypted(&s, &plain, &gcm, CHANGED,
				       on_threads[i]),
			     NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
	}
	mode_context(1, "not decrypted");
	{
		scene s = {NULL, NULL, NULL, 0};

		if (CHECK_OK(replaced(&s, &plain, CHANGED, 1), NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
	}
	t_context(NULL);
	lab_buf_free(&plain);
}

/* Decrypted as xenc.c decrypts, under both ciphers (CBC's last block
 * and GCM's tag are held back until the end): taken where the variant
 * keeps the bytes, and wss_digest's; bytes that move before the parse,
 * and a ciphertext that fails, stop the hashing first (ThreadSanitizer
 * sees the order on the thread), and nothing is taken. */
static void test_ahead_decrypted(void)
{
	static const wss_cipher ciphers[] = {WSS_AES256_GCM, WSS_AES128_CBC};
	lab_buf plain = LAB_BUF_INIT;
	size_t i, m;

	if (!payload(&plain, BIG, ""))
		return;
	for (i = 0; i < 2; i++)
		for (m = 0; m < 2; m++) {
			crypt ok = {ciphers[i], 0, ROOM},
			      moved = {ciphers[i], 0, 0},
			      bad = {ciphers[i], 1, ROOM};
			scene s = {NULL, NULL, NULL, 0};
			int rc;

			mode_context(on_threads[m], wss_cipher_uri(ciphers[i]));
			if (CHECK_OK(decrypted(&s, &plain, &ok, ALONE,
					       on_threads[m]),
				     NULL))
				CHECK_EQ_INT(taken(&s, s.body, 0), s.kept);
			scene_free(&s);
			/* Joined before the move, the guess dropped. */
			if (CHECK_OK(decrypted(&s, &plain, &moved, ALONE,
					       on_threads[m]),
				     NULL))
				CHECK(!taken(&s, s.body, 0));
			scene_free(&s);
			rc = decrypted(&s, &plain, &bad, ALONE, on_threads[m]);
			CHECK_EQ_INT(rc, LAB_ESECURITY);
			if (s.a != NULL && s.body != NULL) {
				wss_ahead_check(s.a, s.body);
				CHECK(!taken(&s, s.body, 0));
			}
			scene_free(&s);
		}
	t_context(NULL);
	lab_buf_free(&plain);
}

/* No guess: below the threshold, beside another node, after a failed
 * parse (checked all the same). */
static void test_ahead_none(void)
{
	lab_buf small = LAB_BUF_INIT, big = LAB_BUF_INIT, bad = LAB_BUF_INIT;
	size_t i;

	if (!payload(&small, 1000, "") || !payload(&big, BIG, "") ||
	    !payload(&bad, BIG, "<q:open>"))
		goto out;
	for (i = 0; i < 2; i++) {
		scene s = {NULL, NULL, NULL, 0};

		mode_context(on_threads[i], NULL);
		if (CHECK_OK(decrypted(&s, &small, &gcm, ALONE, on_threads[i]),
			     NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
		if (CHECK_OK(decrypted(&s, &big, &gcm, SPACED, on_threads[i]),
			     NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
		if (CHECK_EQ_INT(decrypted(&s, &bad, &gcm, ALONE,
					   on_threads[i]),
				 LAB_EMALFORMED)) {
			wss_ahead_check(s.a, s.body);
			CHECK(!taken(&s, s.body, 0));
		}
		scene_free(&s);
		if (CHECK_OK(replaced(&s, &big, MOVED, on_threads[i]), NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
	}
	t_context(NULL);
out:
	lab_buf_free(&small);
	lab_buf_free(&big);
	lab_buf_free(&bad);
}

/* A receive makes a guesser for every message that may carry a
 * plaintext a guess is made for (a CipherValue of 4 characters for each
 * 3 bytes), and for none too small to carry one. */
static void test_ahead_worth(void)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		size_t least = on_threads[i] ? WSS_GUESS_MIN
					     : WSS_GUESS_HERE_MIN;
		size_t held = (least + 2) / 3 * 4;

		mode_context(on_threads[i], NULL);
		CHECK(wss_ahead_worth(held, on_threads[i]));
		CHECK(!wss_ahead_worth(held - 4, on_threads[i]));
		CHECK(!wss_ahead_worth(0, on_threads[i]));
	}
	t_context(NULL);
}

const t_case tests_digest_ahead[] = {
	{"threads_ahead_canonical", test_ahead_canonical},
	{"threads_ahead_not_canonical", test_ahead_not_canonical},
	{"threads_ahead_changed", test_ahead_changed},
	{"threads_ahead_none", test_ahead_none},
	{"threads_ahead_decrypted", test_ahead_decrypted},
	{"threads_ahead_worth", test_ahead_worth},
	{NULL, NULL},
};
