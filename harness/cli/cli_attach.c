/*
 * cli_attach.c - SOAP with Attachments at the command line: `send
 * --attach FILE` signs FILE's bytes with the envelope and writes a
 * multipart/related message; `receive` reads such a message (recognised by
 * its first byte: MIME headers start with a letter, XML never does)
 * through the io axis and `--attachment-out FILE` writes the verified
 * attachment.  Not for: MIME framing (wss/multipart.c) or what the
 * signature covers (wss/attach.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "wss/attach.h"
#include "wss/io.h"
#include "wss/send_ahead.h"

/* The Content-IDs `send --attach` writes. */
static const char root_id[] = "soap-envelope@domlab";
static const char attach_id[] = "attachment-1@domlab";

void lab_msg_free(lab_msg *m)
{
	/* Its thread reads m->in. */
	wss_send_ahead_free(m->ahead);
	m->ahead = NULL;
	wss_multipart_free(&m->mp);
	lab_buf_free(&m->in);
	lab_buf_free(&m->att_file);
	dom_doc_free(m->doc);
	m->doc = NULL;
}

int lab_msg_read_mime(int fd, const char *pre, size_t npre,
		      const dom_limits *lim, lab_msg *m, lab_err *err)
{
	wss_io *r = NULL;
	const wss_part *root;
	size_t i, k = 0;
	int rc = wss_io_open(fd, &r, err);

	if (rc == LAB_OK)
		rc = wss_multipart_read(r, pre, npre, lim->max_input, &m->mp,
					err);
	wss_io_free(r);
	if (rc != LAB_OK)
		return rc;
	m->mime = 1;
	for (i = 0; i < m->mp.n; i++) {
		const wss_part *p = &m->mp.parts[i];

		if (i == m->mp.root)
			continue;
		m->att[k].id = p->id;
		m->att[k].data = (const unsigned char *)p->body.data;
		m->att[k].len = p->body.len;
		k++;
	}
	m->natt = k;
	root = &m->mp.parts[m->mp.root];
	return dom_parse(root->body.data, root->body.len, lim, &m->doc, err);
}

int lab_msg_load(const lab_io *io, int allow_mime, int signing,
		 const wss_opts *send, lab_msg *m, lab_err *err)
{
	int fd = io->in != NULL ? open(io->in, O_RDONLY) : STDIN_FILENO;
	unsigned char first;
	ssize_t n;
	int rc;

	if (fd < 0)
		return lab_fail(err, LAB_EIO, "cannot open %s: %s", io->in,
				strerror(errno));
	do
		n = read(fd, &first, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = lab_fail(err, LAB_EIO, "cannot read %s: %s",
			      io->in != NULL ? io->in : "standard input",
			      strerror(errno));
		goto out;
	}
	if (n == 1 && allow_mime && wss_multipart_sniff(first)) {
		rc = lab_msg_read_mime(fd, (const char *)&first, 1, &io->lim,
				       m, err);
		goto out;
	}
	rc = lab_buf_put(&m->in, &first, (size_t)n) == LAB_OK
		     ? lab_read_fd(fd, io->in, io->lim.max_input, &m->in, err)
		     : lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && send != NULL)
		wss_send_ahead_start(&m->ahead, m->in.data, m->in.len, send);
	if (rc == LAB_OK && signing)
		rc = dom_parse_signing_fed(m->in.data, m->in.len, &io->lim,
					   wss_send_ahead_feed(m->ahead),
					   &m->doc, err);
	else if (rc == LAB_OK)
		rc = dom_parse(m->in.data, m->in.len, &io->lim, &m->doc, err);
out:
	if (io->in != NULL)
		close(fd);
	return rc;
}

int lab_msg_attach_file(const char *path, lab_msg *m, lab_err *err)
{
	int rc = lab_read_input(path, 0, &m->att_file, err);

	if (rc != LAB_OK)
		return rc;
	m->att[0].id = attach_id;
	m->att[0].data = (const unsigned char *)m->att_file.data;
	m->att[0].len = m->att_file.len;
	m->natt = 1;
	return LAB_OK;
}

int lab_msg_wrap(const lab_msg *m, const lab_buf *envelope, lab_buf *out,
		 lab_err *err)
{
	wss_part parts[WSS_MIME_MAX_PARTS];
	size_t i;

	memset(parts, 0, sizeof parts);
	for (i = 0; i < m->natt; i++) {
		/* The writer reads these only. */
		parts[i].id = (char *)m->att[i].id;
		parts[i].body.data = (char *)m->att[i].data;
		parts[i].body.len = m->att[i].len;
	}
	return wss_multipart_write(root_id, envelope->data, envelope->len,
				   parts, m->natt, out, err);
}

int lab_msg_write_attachment(const lab_msg *m, const char *path,
			     lab_err *err)
{
	if (m->natt == 0)
		return lab_fail(err, LAB_EMALFORMED,
				"--attachment-out: the message has no "
				"attachment");
	return lab_write_output(path, (const char *)m->att[0].data,
				m->att[0].len, err);
}
