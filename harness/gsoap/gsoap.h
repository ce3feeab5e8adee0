/*
 * gsoap.h - the gSOAP peer: the quakes records sent and received by
 * gSOAP 2.8 (Debian's libgsoap-dev) through its usual binding
 * (soapcpp2's serializers for harness/gsoap/quakes.h) and its wsse
 * plugin (/usr/share/gsoap/plugin: wsseapi.c, smdevp.c, mecevp.c), with
 * domlab's keys and, as near as the plugin allows, its profile
 * (docs/measuring.md says where it differs).  gSOAP is GPL: this code
 * goes into domlab-bench alone, never into a library.
 *
 * Keys are read once per process and kept, as keys=cached does, behind
 * a mutex; each message gets its own gSOAP context.
 *
 * Not for: any dataset but quakes (the binding is the records'), nor the
 * other layouts, key identifiers or stages: send and receive only.
 */
#ifndef LAB_GSOAP_H
#define LAB_GSOAP_H

#include <stddef.h>

#include "harness/cli/cli.h"
#include "util/buf.h"
#include "util/err.h"
#include "wss/keys.h"
#include "wss/wss.h"

typedef enum lab_gsoap_op {
	LAB_GSOAP_SEND,   /* paths: key, cert, peer_cert; o->cipher, o->now,
			   * o->ttl */
	LAB_GSOAP_RECEIVE /* paths: key, trust; o->now */
} lab_gsoap_op;

/*
 * send: deserializes bytes (a quakes envelope) into the records, then
 * serializes them signed (the Body and the Timestamp) and encrypted (the
 * Body's content) into out.  receive: deserializes bytes with the
 * signature verified and the Body decrypted on the way in, checks that
 * the Body and the Timestamp were signed by paths->trust's key and the
 * Timestamp's times, then appends the records serialized as a plain
 * envelope to out.  Errors: LAB_EMALFORMED for input that is not a
 * quakes envelope, LAB_ESECURITY for a message that does not verify or
 * decrypt (any failure once its Security header was read), LAB_EIO /
 * LAB_EMALFORMED for unreadable keys.  Nothing is appended on failure.
 */
int lab_gsoap_message(lab_gsoap_op op, const char *bytes, size_t len,
		      const wss_key_paths *paths, const wss_opts *o,
		      lab_buf *out, lab_err *err);

/* At exit only: frees the key cache. */
void lab_gsoap_cleanup(void);

/* The benchmark's setups (cases_gsoap.c): a send case's input, a
 * receive case's message as gSOAP sent it. */
struct lab_case_data;
int lab_gsoap_setup_input(void **ctx, const struct lab_case_data *d,
			  lab_err *err);
int lab_gsoap_setup_sent(void **ctx, const struct lab_case_data *d,
			 lab_err *err);

/* `domlab-bench gsoap send|receive` (cmd_gsoap.c); argv[0]: the op. */
int lab_cmd_gsoap(int argc, char **argv, lab_err *err);
extern const lab_opt lab_gsoap_options[];

#endif
