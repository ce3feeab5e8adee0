/*
 * test_digest_ahead.c - the Body's digest made on a second thread while
 * its plaintext is parsed (wss/digest_ahead.h), taken only when proved.
 *
 * A Body whose only child is replaced, through dom_replace_parsed_held
 * with the guesser's watch, by plaintext lying in the child's text's
 * bytes (as a decrypted CipherValue's do):
 * - canonical plaintext: the guess is taken, where the variant keeps
 *   the bytes, and is the digest wss_digest makes;
 * - plaintext whose canonical form differs (an empty-element tag, an
 *   attribute in single quotes): never taken, so a signature over the
 *   plaintext's own bytes does not verify;
 * - not taken for another element, a Reference with a PrefixList, after
 *   the document changes, below the thread's threshold, when the child
 *   is not alone, or after a parse that failed;
 * - plaintext decrypted in place from base64 (GCM, CBC) with the thread
 *   hashing behind the decryption: taken as above; after a ciphertext
 *   that fails, stopped before the wipe and never taken.
 * Whenever a guess is taken it must be wss_digest's.  Named threads_* so
 * that `make test` runs it under ThreadSanitizer too.
 */
#include <stdio.h>

#include "tests/util.h"
#include "util/base64.h"
#include "wss/digest_ahead.h"
#include "wss/dsig.h"
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

/* How replaced() sets the scene: a text beside the Body's child, the
 * Body changed between the parse and the check, or the plaintext at the
 * start of its bytes, so that it moves for the wrapper's start tag. */
enum { ALONE, SPACED, CHANGED, MOVED };

/* The scene's document, its Body's only child x (beside a space when
 * SPACED) holding a text of size bytes, taken (dom_text_take) into *b. */
static int stage_scene(scene *s, int how, size_t size, dom_node **x, char **b)
{
	lab_buf in = LAB_BUF_INIT;
	size_t got = 0;
	lab_err err;
	int ok;

	memset(s, 0, sizeof *s);
	ok = CHECK_OK(wss_ahead_new(&s->a, &err), &err) &&
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
static int replaced(scene *s, const lab_buf *plain, int how)
{
	size_t size = ROOM + plain->len + 32, at;
	dom_node *x;
	char *b;
	lab_err err;

	if (!stage_scene(s, how, size, &x, &b))
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

/*
 * The same with plain arriving as xenc.c has it: encrypted under
 * cipher, in base64 in the child's text, decrypted in place with the
 * guesser's decryption watch (the thread hashing behind it), then
 * parsed with its parse watch.  With `tamper` one ciphertext octet is
 * changed so that the decryption fails (GCM's tag, CBC's padding;
 * LAB_ESECURITY) after the thread hashed what came before.  With no
 * room in front, the plaintext moves for the wrapper's start tag while
 * the thread may still be reading it.
 */
static int decrypted(scene *s, const lab_buf *plain, wss_cipher c,
		     int tamper, size_t room)
{
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
	if (tamper && c == WSS_AES256_GCM)
		ct.data[ct.len / 2] ^= 0x01;
	else if (tamper)
		ct.data[ct.len - 17] ^= (char)(16 - plain->len % 16);
	if (!CHECK_EQ_INT(lab_base64_encode(ct.data, ct.len, 76, &txt),
			  LAB_OK))
		goto out;
	size = txt.len + 32;
	if (!stage_scene(s, ALONE, size, &x, &b))
		goto out;
	memset(b, ' ', size);
	memcpy(b, txt.data, txt.len);
	rc = wss_pass_open(b, size, room, c, key,
			   wss_ahead_decrypting(s->a, s->body, x, size), &off,
			   &len, &err);
	if (rc == LAB_OK)
		rc = checked(s, ALONE,
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

static void test_ahead_canonical(void)
{
	lab_buf plain = LAB_BUF_INIT;
	lab_err err;
	scene s = {NULL, NULL, NULL, 0};

	if (payload(&plain, BIG, "") &&
	    CHECK_OK(replaced(&s, &plain, ALONE), NULL)) {
		/* Where the bytes are not kept there is nothing to prove. */
		CHECK_EQ_INT(taken(&s, s.body, 0), s.kept);
		CHECK(!taken(&s, dom_doc_element(s.doc), 0));
		CHECK(!taken(&s, s.body, 1));
		/* A change anywhere ends the guess's standing. */
		CHECK_OK(dom_attr_set(dom_doc_element(s.doc), NULL, "z", "1",
				      1, &err),
			 &err);
		CHECK(!taken(&s, s.body, 0));
	}
	scene_free(&s);
	lab_buf_free(&plain);
}

/* Plaintext that is not its own canonical form: the bytes hashed are
 * not the Body's digest, and are never taken for it. */
static void test_ahead_not_canonical(void)
{
	/* The last uses a prefix the Envelope binds, which the Body's
	 * start tag does not render: the canonical form declares it. */
	static const char *const tails[] = {"<q:e/>", "<q:e a='1'></q:e>",
					    "<q:e  a=\"1\"></q:e>",
					    "<w:e></w:e>"};
	size_t i;

	for (i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		lab_buf plain = LAB_BUF_INIT;
		scene s = {NULL, NULL, NULL, 0};

		t_context("tail %s", tails[i]);
		if (payload(&plain, BIG, tails[i]) &&
		    CHECK_OK(replaced(&s, &plain, ALONE), NULL))
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
	scene s = {NULL, NULL, NULL, 0};

	if (payload(&plain, BIG, "") &&
	    CHECK_OK(replaced(&s, &plain, CHANGED), NULL))
		CHECK(!taken(&s, s.body, 0));
	scene_free(&s);
	lab_buf_free(&plain);
}

/* Decrypted as xenc.c decrypts, the hash following the decryption:
 * taken where the variant keeps the bytes, and wss_digest's; bytes that
 * move before the parse, and a ciphertext that fails, stop the thread
 * first (ThreadSanitizer sees the order), and nothing is taken. */
static void test_ahead_decrypted(void)
{
	static const wss_cipher ciphers[] = {WSS_AES256_GCM, WSS_AES128_CBC};
	lab_buf plain = LAB_BUF_INIT;
	size_t i;

	if (!payload(&plain, BIG, ""))
		return;
	for (i = 0; i < 2; i++) {
		scene s = {NULL, NULL, NULL, 0};
		int rc;

		t_context("%s", wss_cipher_uri(ciphers[i]));
		if (CHECK_OK(decrypted(&s, &plain, ciphers[i], 0, ROOM), NULL))
			CHECK_EQ_INT(taken(&s, s.body, 0), s.kept);
		scene_free(&s);
		/* Joined before the move, the guess dropped. */
		if (CHECK_OK(decrypted(&s, &plain, ciphers[i], 0, 0), NULL))
			CHECK(!taken(&s, s.body, 0));
		scene_free(&s);
		rc = decrypted(&s, &plain, ciphers[i], 1, ROOM);
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

/* No guess: below the threshold, beside another node, for bytes that
 * moved before the parse (what was hashed is no longer there), after a
 * failed parse (checked all the same). */
static void test_ahead_none(void)
{
	lab_buf small = LAB_BUF_INIT, big = LAB_BUF_INIT, bad = LAB_BUF_INIT;
	scene s = {NULL, NULL, NULL, 0};

	if (payload(&small, 1000, "") && CHECK_OK(replaced(&s, &small, ALONE), NULL))
		CHECK(!taken(&s, s.body, 0));
	scene_free(&s);
	if (payload(&big, BIG, "") && CHECK_OK(replaced(&s, &big, SPACED), NULL))
		CHECK(!taken(&s, s.body, 0));
	scene_free(&s);
	if (CHECK_OK(replaced(&s, &big, MOVED), NULL))
		CHECK(!taken(&s, s.body, 0));
	scene_free(&s);
	if (payload(&bad, BIG, "<q:open>") &&
	    CHECK_EQ_INT(replaced(&s, &bad, ALONE), LAB_EMALFORMED)) {
		wss_ahead_check(s.a, s.body);
		CHECK(!taken(&s, s.body, 0));
	}
	scene_free(&s);
	lab_buf_free(&small);
	lab_buf_free(&big);
	lab_buf_free(&bad);
}

const t_case tests_digest_ahead[] = {
	{"threads_ahead_canonical", test_ahead_canonical},
	{"threads_ahead_not_canonical", test_ahead_not_canonical},
	{"threads_ahead_changed", test_ahead_changed},
	{"threads_ahead_none", test_ahead_none},
	{"threads_ahead_decrypted", test_ahead_decrypted},
	{NULL, NULL},
};
