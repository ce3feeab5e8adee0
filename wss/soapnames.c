/*
 * soapnames.c - whether decrypted content may name one of SOAP's own
 * elements (wss/soapnames.h).
 */
#include "wss/soapnames.h"

#include <string.h>

#include "util/wordscan.h"

/* SOAP's own element names, which decrypted content may not add. */
static const lab_words soap_words = {
	{"Envelope", "Header", "Body"}, {8, 6, 4}, 3};

/* The longest word: one that ends in the bytes after `done` starts at
 * most LONGEST - 1 bytes before them. */
enum { LONGEST = sizeof "Envelope" - 1 };

/* An element's name follows its '<' at once and cannot come from an
 * entity or a character reference, so bytes without one parse into no
 * such element.  Bytes that do not spell one of the three words
 * anywhere name none (util/wordscan.h tells, 32 bytes at a time); else
 * memchr skips to each '<', and only the name after it is read, up to
 * the first byte that cannot be in one. */
static int names_after_filter(const char *p, size_t n)
{
	/* The bytes that end a name, and the one that ends a part of it. */
	enum { NAME_END = 1, PART_END = 2 };
	static const unsigned char stop[256] = {
		[' '] = NAME_END, ['\t'] = NAME_END, ['\r'] = NAME_END,
		['\n'] = NAME_END, ['/'] = NAME_END, ['>'] = NAME_END,
		['<'] = NAME_END, [':'] = PART_END};
	const char *q = p, *end = p + n;

	while (q < end && (q = memchr(q, '<', (size_t)(end - q))) != NULL) {
		q++;
		if (q < end && *q == '/')
			q++;
		if (lab_words_at(q, (size_t)(end - q), &soap_words))
			return 1;
		for (; q < end && stop[(unsigned char)*q] != NAME_END; q++)
			if (stop[(unsigned char)*q] == PART_END &&
			    lab_words_at(q + 1, (size_t)(end - q - 1),
					 &soap_words))
				return 1;
	}
	return 0;
}

int wss_names_soap(const char *p, size_t n)
{
	return lab_words_any(p, n, &soap_words) && names_after_filter(p, n);
}

/* The filter over plain[done..n), from far enough before done to see a
 * word that started in the bytes filtered before. */
static void filter_to(wss_soap_scan *s, size_t n)
{
	size_t from;

	if (n <= s->done)
		return;
	from = s->done > LONGEST - 1 ? s->done - (LONGEST - 1) : 0;
	if (!s->seen)
		s->seen = lab_words_any(s->plain + from, n - from, &soap_words);
	s->done = n;
}

static void scan_ready(void *ctx, const char *plain, size_t n)
{
	wss_soap_scan *s = ctx;

	s->plain = plain;
	filter_to(s, n);
	if (s->next != NULL)
		s->next->ready(s->next->ctx, plain, n);
}

static void scan_whole(void *ctx, size_t len)
{
	wss_soap_scan *s = ctx;

	if (s->next != NULL)
		s->next->whole(s->next->ctx, len);
}

static void scan_stop(void *ctx)
{
	wss_soap_scan *s = ctx;

	s->plain = NULL;
	s->done = 0;
	if (s->next != NULL)
		s->next->stop(s->next->ctx);
}

void wss_soap_scan_init(wss_soap_scan *scan, const wss_pass_watch *next)
{
	memset(scan, 0, sizeof *scan);
	scan->watch = (wss_pass_watch){scan_ready, scan_whole, scan_stop, scan};
	scan->next = next;
}

int wss_soap_scan_names(wss_soap_scan *scan, const char *p, size_t n)
{
	if (scan->plain != p)
		return wss_names_soap(p, n);
	/* CBC's last block comes with the padding's check, no ready. */
	filter_to(scan, n);
	return scan->seen && names_after_filter(p, n);
}
