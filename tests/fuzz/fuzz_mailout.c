/*
 * Fuzz target of the message composer with hostile values: the input is
 * split at NUL bytes into subject, display names, addresses, parent ids
 * and body, and every composed message must keep the header rules: CRLF
 * line ends only, continuation lines starting with a blank, no field
 * that the values tried to inject, encoded-words of at most 75
 * characters.  A broken rule aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/mailout/mailout.h"

#define FIELDS 9

static void
check(const struct buf *msg)
{
	const char *p = msg->p, *end = msg->p + msg->n, *eol, *w, *q;

	for (; p < end; p = eol + 2) {
		eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		if (eol == NULL || memchr(p, '\n', (size_t)(eol - p)) ||
		    memchr(p, '\r', (size_t)(eol - p)))
			abort();
		if (eol == p)
			return;
		if (*p != ' ' &&
		    (!memchr(p, ':', (size_t)(eol - p)) ||
		        strncmp(p, "Bcc", 3) == 0 ||
		        strncmp(p, "Evil", 4) == 0))
			abort();
		/* Ours start a token; an address may hold "=?" itself, and
		 * even start with "=?utf-8?" (atext allows both), but ours
		 * never hold an "@": Q encodes it, B has none. */
		for (w = p; (w = memmem(w, (size_t)(eol - w), " =?utf-8?", 9));
		     w = q + 2) {
			const char *tok_end;

			w++;
			tok_end = memchr(w, ' ', (size_t)(eol - w));
			if (tok_end == NULL)
				tok_end = eol;
			if (memchr(w, '@', (size_t)(tok_end - w))) {
				q = tok_end - 2;
				continue;
			}
			if (eol - w < 12) /* "=?utf-8?q??=" at least */
				abort();
			q = memmem(w + 10, (size_t)(eol - w - 10), "?=", 2);
			if (q == NULL || q + 2 - w > 75)
				abort();
		}
	}
	abort(); /* no end of the header block */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *f[FIELDS];
	struct mailout_addr to[2], cc[1];
	struct mailout_msg m;
	struct buf msg = BUF_INIT, rcpts = BUF_INIT;
	const char *refs[2];
	size_t i, k = 0, start = 0;

	memcpy(copy, data, size);
	copy[size] = '\0';
	/* Fields end at NULs; the last one (the body) runs to the end and
	 * may hold NULs itself.  Missing fields are empty. */
	for (i = 0; i < FIELDS; i++)
		f[i] = copy + size;
	for (i = 0; i <= size && k < FIELDS - 1; i++)
		if (i == size || copy[i] == '\0') {
			f[k++] = copy + start;
			start = i + 1;
		}
	if (start <= size)
		f[FIELDS - 1] = copy + start;
	to[0].name = f[1];
	to[0].email = f[2];
	to[1].name = f[3];
	to[1].email = "x@example.org";
	cc[0].name = NULL;
	cc[0].email = f[4];
	refs[0] = f[5];
	refs[1] = f[6];
	memset(&m, 0, sizeof(m));
	m.from_email = "patchyard@example.org";
	m.to = to;
	m.nto = 2;
	m.cc = cc;
	m.ncc = 1;
	m.subject = f[0];
	m.message_id = "1.0123456789abcdef.staged@example.org";
	m.in_reply_to = f[7];
	m.references = refs;
	m.nreferences = 2;
	m.event = "staged";
	m.body = f[8];
	m.body_len = (size_t)(copy + size - f[8]);
	if (mailout_compose(&m, &msg, &rcpts) == ERR_OK)
		check(&msg);
	buf_free(&msg);
	buf_free(&rcpts);
	free(copy);
	return 0;
}
