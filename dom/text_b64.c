/*
 * text_b64.c - base64 text nodes (dom_create_text_b64): made at their
 * final size, filled a piece at a time by the shared encoder
 * (util/base64.h), 0-2 bytes carried to the next piece, and marked plain
 * once whole, so the serializer writes them without an escape scan.
 * Not for: decoding (util/base64.h), or text the caller writes itself
 * (dom_create_text_buf), which the DOM cannot vouch for.
 */
#include <stdint.h>
#include <string.h>

#include "dom/internal.h"
#include "util/base64.h"

int dom_create_text_b64(dom_doc *doc, size_t n, dom_b64 *w, dom_node **out,
			lab_err *err)
{
	int rc;

	memset(w, 0, sizeof *w);
	*out = NULL;
	if (n / 3 >= SIZE_MAX / 8)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	rc = dom_create_text_buf(doc, lab_base64_len(n), &w->o, out, err);
	if (rc != LAB_OK)
		return rc;
	w->left = n;
	w->text = *out;
	return LAB_OK;
}

int dom_b64_put(dom_b64 *w, const void *p, size_t n)
{
	const unsigned char *in = p;
	size_t k;

	/* A failed piece leaves the text unfinished for good: text NULL,
	 * which dom_b64_end refuses. */
	if (n > w->left) {
		w->text = NULL;
		return LAB_EUSAGE;
	}
	w->left -= n;
	while (w->ncarry > 0 && w->ncarry < 3 && n > 0) {
		w->carry[w->ncarry++] = *in++;
		n--;
	}
	if (w->ncarry == 3) {
		if (lab_base64_put(w->carry, 3, 0, w->o) == NULL)
			goto nomem;
		w->o += 4;
		w->ncarry = 0;
	}
	k = n - n % 3;
	if (k > 0 && lab_base64_put(in, k, 0, w->o) == NULL)
		goto nomem;
	w->o += k / 3 * 4;
	memcpy(w->carry + w->ncarry, in + k, n - k);
	w->ncarry += n - k;
	return LAB_OK;
nomem:
	w->text = NULL;
	return LAB_ENOMEM;
}

int dom_b64_end(dom_b64 *w, lab_err *err)
{
	if (w->text == NULL || w->left != 0)
		return lab_fail(err, LAB_EUSAGE,
				"a base64 text not given exactly its bytes");
	if (w->ncarry > 0 &&
	    lab_base64_put(w->carry, w->ncarry, 0, w->o) == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	w->o += w->ncarry > 0 ? 4 : 0;
	w->ncarry = 0;
	w->text->flags |= DOM__PLAIN;
	return LAB_OK;
}
