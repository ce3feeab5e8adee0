/*
 * envelope.h - a --data envelope shaped for a case that needs a header of
 * its own: a header block added to whatever Header the file has (one made
 * when it has none), the addressing header a hop case adds removed
 * first (harness/bench/envelope.c).
 * Not for: the generated datasets' fast path (stages.c splices their
 * empty soap:Header as text) or checking a file (data_files.c).
 */
#ifndef LAB_ENVELOPE_H
#define LAB_ENVELOPE_H

#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/*
 * Parses the SOAP 1.1 or 1.2 envelope `bytes`, removes every header block
 * {drop_ns}drop_local (drop_ns NULL: none), appends the fragment `block`
 * (NULL: none) to the Header, made before the Body when the envelope has
 * none, and serializes the result into out.  LAB_EMALFORMED when the
 * bytes are no envelope with a Body.
 */
int lab_envelope_shape(const char *bytes, size_t len, const char *block,
		       const char *drop_ns, const char *drop_local,
		       lab_buf *out, lab_err *err);

/* 1 when the envelope has a header block {ns}local; 0 when not or when it
 * does not parse (the case's own setup then says why). */
int lab_envelope_has_block(const char *bytes, size_t len, const char *ns,
			   const char *local);

#endif
