/*
 * msg.h - a SOAP message as the pipeline sees it: the document, the
 * profile's names interned in it, and the elements every stage needs,
 * located once and strictly.  Also the small tree helpers the stages
 * share.  Not for: the cryptography (crypto.h) or canonical form (c14n.h).
 */
#ifndef WSS_MSG_H
#define WSS_MSG_H

#include "dom/dom.h"
#include "wss/caps.h"
#include "wss/crypto.h"
#include "wss/profile.h"

struct wss_ahead;
struct lab_timeline;
struct wss_attachment;
struct wss_seal;
struct wss_send_ahead;

enum { WSS_ID_CAP = 32, WSS_DRAWN_MAX = 5 };

typedef struct wss_msg {
	dom_doc *doc;
	wss_names n;
	dom_node *envelope;
	dom_node *header;   /* NULL until there is one */
	dom_node *body;
	dom_node *security; /* NULL until there is one */
	/* Sending: when the caller sets it, signing leaves here the exc-c14n
	 * of the Body's content (digested anyway), after the content_at
	 * bytes it already holds, which encryption then takes as its
	 * plaintext instead of serializing the content again (and can put
	 * the IV in those bytes instead of moving the plaintext). */
	lab_buf *content;
	size_t content_at;
	/* Sending: the Body's CipherValue made while signing digests the
	 * content (wss/seal.h); then content is the seal's. */
	struct wss_seal *seal;
	/* Sending on two threads: the Body's digest guessed from the
	 * message's bytes during the parse (wss/send_ahead.h); NULL: none. */
	struct wss_send_ahead *send_ahead;
	/* Receiving on two threads: a decrypted Body's digest made while
	 * its plaintext is parsed (wss/digest_ahead.h); NULL: one thread. */
	struct wss_ahead *ahead;
	/* Where the steps are marked (wss_opts.timeline); NULL: nowhere. */
	struct lab_timeline *timeline;
	/* Signing: the SignatureValue wss_dsig_sign_begin left for
	 * wss_dsig_sign_end, its SignedInfo and key, and its text, made
	 * at its final size, placeholders in chars[0..len) until then
	 * (text NULL: none left). */
	struct {
		const dom_node *si;
		const wss_privkey *key;
		dom_node *text;
		char *chars;
		size_t len;
	} unsigned_sv;
	/* The receiver's caps on pre-authentication work, from wss_opts
	 * (NULL: the defaults). */
	const wss_caps *caps;
	/* Receiving: 0 refuses AES-128-CBC; 1 accepts it where a Signature
	 * verified first covers the EncryptedData (wss_opts.allow_cbc); 2
	 * decrypts it unauthenticated (the decrypt command). */
	int allow_cbc;
	/* The message's attachments (wss/attach.h), from wss_opts. */
	const struct wss_attachment *att;
	size_t natt;
	/* Signing: a header block signed besides the Timestamp (NULL:
	 * none), and 1 to leave the Body unsigned (wss/hop.h). */
	dom_node *sign_to;
	int headers_only;
	/* Verifying: NULL, references resolve in the whole document; else
	 * within this element only, and a Reference that names nothing
	 * there is not digested: it is the Body's, a hop's to forward
	 * (wss/hop.h). */
	const dom_node *id_scope;
	/* IDs drawn ahead by wss_draw_ids, each taken once by
	 * wss_msg_new_id; base NULL once taken. */
	struct {
		const char *base;
		char id[WSS_ID_CAP];
	} drawn[WSS_DRAWN_MAX];
	size_t ndrawn;
} wss_msg;

/*
 * Finds soap:Envelope (the root), its one soap:Header (optional, before
 * the Body) and its one soap:Body, and the one wsse:Security in the
 * Header.  With `create`, adds Header and Security when missing (the
 * sending side).  The SOAP version is the Envelope's namespace (1.1 or
 * 1.2; m->n.soap is it).  A document that is neither is malformed input
 * (LAB_EMALFORMED) on either side, as a parse error is.  An envelope with
 * no Body or two, two Headers or Security headers, another child or its
 * Header last is refused with `code`: on the receiving side these are
 * the shapes a signature-wrapping attack makes.
 */
int wss_msg_open(dom_doc *doc, int create, int code, wss_msg *m,
		 lab_err *err);

/*
 * Makes `content` the Body's canonical content's buffer, with room for
 * the IV in front of it: encryption in place then never moves the
 * plaintext.  The Body is most of a message, so the message's length
 * (and the tag or padding the cipher adds) is room for its canonical
 * content: the capture does not grow the buffer by doubling and
 * copying, nor leave half of it unused.
 */
int wss_msg_content_room(wss_msg *m, lab_buf *content, lab_err *err);

/* Element children only. */
dom_node *wss_first_el(const dom_node *parent);
dom_node *wss_next_el(const dom_node *n);

/* The only child element named (ns, local) -- interned -- or NULL when
 * there is none; *count tells how many there were. */
dom_node *wss_child(const dom_node *parent, const char *ns, const char *local,
		    size_t *count);

/* Creates an element and appends it (ref NULL) or inserts it before ref. */
int wss_add(dom_node *parent, dom_node *ref, const char *ns,
	    const char *qname, dom_node **out, lab_err *err);
int wss_add_text(dom_node *parent, const char *s, size_t n, lab_err *err);
/* An element with an Algorithm attribute, the shape of every *Method. */
int wss_add_alg(dom_node *parent, const char *ns, const char *qname,
		const char *alg, dom_node **out, lab_err *err);
int wss_set(dom_node *el, const char *ns, const char *qname,
	    const char *value, lab_err *err);

/* Appends the base64 of p[0..n) as el's text. */
int wss_add_b64(dom_node *el, const void *p, size_t n, lab_err *err);

/* The base64 text of el, decoded (appended to out); text that is not
 * base64 is LAB_ESECURITY: it came from a message. */
int wss_b64_text(const dom_node *el, lab_buf *out, lab_err *err);

/*
 * The message's token as a secure-conversation store keeps it: the
 * wrapped key of its Security header's EncryptedKey (appended to
 * wrapped) and that key's SHA-1 in id, the EncryptedKeySHA1 a reply names
 * it by.  A message without one, or with more than one (a request for
 * several recipients: which key a reply names is then not the
 * client's to know), is LAB_ESECURITY naming how many it has.
 */
int wss_msg_key_token(dom_doc *doc, lab_buf *wrapped,
		      unsigned char id[WSS_SHA1_LEN], lab_err *err);

/* An ID "base-N" no element of the document carries yet. */
int wss_new_id(dom_doc *doc, const char *base, char *out, size_t cap,
	       lab_err *err);

/*
 * Draws an ID for each base (at most WSS_DRAWN_MAX in all, the rest are
 * left to wss_msg_new_id; a base already drawn is skipped) before the caller changes the tree, so every draw
 * reads one build of the document's ID index instead of a rebuild after
 * each change.  Bases hold no '-', so "base-N" IDs of different bases
 * never collide.  Sound only while every change made to the tree before
 * the IDs are taken adds no ID attribute but drawn ones: wss_dsig_sign
 * and wss_xenc_encrypt set IDs through wss_msg_new_id alone.
 */
int wss_draw_ids(wss_msg *m, const char *const *bases, size_t n,
		 lab_err *err);

/* The ID drawn ahead for base, taken (once); wss_new_id when there is
 * none. */
int wss_msg_new_id(wss_msg *m, const char *base, char *out, size_t cap,
		   lab_err *err);

/* The element a same-document reference "#id" names, refusing anything
 * else (code LAB_ESECURITY): other URI forms, unknown or duplicate IDs. */
int wss_resolve(dom_doc *doc, const char *uri, dom_node **out, lab_err *err);

/* The element's text (text and CDATA children), trimmed of XML
 * whitespace at both ends; appends to out (without a writer). */
int wss_text(const dom_node *el, lab_buf *out, lab_err *err);

#endif
