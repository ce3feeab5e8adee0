/*
 * deferred.c - build=deferred, for parser=insitu: a document is checked
 * whole, at the parser's full strictness, but the content of some
 * elements is built only when something first reads it (Axiom's
 * deferred building).  Every error and limit is still reported by the
 * parse, with its line and column, because the content is read by the
 * same code as under direct, which only does not make nodes; what it
 * keeps for later is the content's byte range in the document's copy of
 * the input (put back as it was before the check decoded it in place)
 * and the namespace bindings it starts in (dom/deferred.h).
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
 * same as a walk's, without the build.  Digests: under emit=canonical the
 * Body's canonical content is the parser's kept copy (dom/kept.c), which
 * signing takes, so the Body's payload is not built for it.
 * The Makefile refuses this choice with parser=libxml2.
 * Not for: the parse (variants/parser/insitu/) or the records
 * (dom/deferred.c).
 */
#include "dom/build.h"

const char dom__build_choice[] = "deferred";
const int dom__build_defers = 1;
