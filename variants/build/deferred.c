/*
 * deferred.c - build=deferred, for parser=insitu: a document is checked
 * whole, at the parser's full strictness, but the content of some
 * elements is built only when something first reads it (Axiom's
 * deferred building).  That content is read by a check pass that
 * writes nothing (variants/parser/insitu/check/); where it is not sure
 * -- any error, a limit, a form it does not read -- the content is built
 * at once by the building pass, so every error and limit is still
 * reported by the parse with the same message, line and column as under
 * direct.  What it keeps for later is the content's byte range in the
 * document's copy of the input, which the check left as it was, and the
 * namespace bindings it starts in (dom/deferred.h).
 *
 * Which elements: the root's grandchildren, each with its own start tag
 * built (name, attributes, declarations) and its content deferred.  In a
 * SOAP message that is each header block and each child of the Body, so
 * the pieces that a step may not read (a Body under a header-only
 * intermediary, the Security header under a receiver that only wants the
 * Body) are cut where the protocol cuts them, while the Envelope, Header
 * and Body, which every step navigates, are built, as are the Body's and
 * each block's attributes (wsu:Id, mustUnderstand).  A size rule would
 * leave a small message all built and cut a large one in places no step
 * asks for separately.
 *
 * IDs: the check notes, per deferred element, whether an attribute in its
 * content is named Id or ID; the ID index (dom/ids.c) builds those
 * elements and no others, so every ID is counted and uniqueness holds as
 * SECURITY.md requires, while content with no ID, a Body's payload, stays
 * bytes.
 *
 * Serialization: an element still unbuilt is written from its bytes when
 * the check found them to be, byte for byte, what dom_serialize writes
 * for the nodes they parse to, and every binding they were parsed under
 * still holds at the element (dom__deferred_source); the output is the
 * same as a walk's, without the build.  Digests: emit=canonical's copy
 * of a Body leaves a gap for content the parse defers, filled by the
 * check pass's canonical note when a digest first asks for the copy
 * (dom/kept.c), so only a digest pays for that form; a fragment that
 * dom_replace_parsed parses (a decrypted Body) defers its top elements'
 * content too, with its canonical answer from the same note.
 * The Makefile refuses this choice with parser=libxml2.
 * Not for: the parse (variants/parser/insitu/) or the records
 * (dom/deferred.c).
 */
#include "dom/build.h"
#include "dom/parser.h"

const char dom__build_choice[] = "deferred";

int dom__build_defer(int signing)
{
	return DOM__DEFER | signing;
}

/* A deferred parse builds a few nodes of a large message (the envelope,
 * the headers), so its arena starts at most at what a message of about
 * 10 KB takes built whole, and grows as content is built. */
enum { DEFERRED_START = 16384 };

size_t dom__build_arena_start(size_t whole)
{
	return whole < DEFERRED_START ? whole : DEFERRED_START;
}

/* The Makefile refuses this choice with parser=libxml2; were it linked
 * there, libxml2 would build every node from its events. */
int dom__build_via_tree(void)
{
	return 0;
}
