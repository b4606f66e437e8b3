#include "bot/source/mboxout.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/log.h"
#include "util/xalloc.h"

/* What public-inbox writes before each mail of an mboxrd. */
#define MBOXRD_FROM "From mboxrd@z Thu Jan  1 00:00:00 1970\n"

struct mboxout {
	struct buf *out;
	bool gzip;
	bool started; /* deflateInit2 done */
	z_stream z;
	struct buf mail; /* one mail's mboxrd text, for deflate */
};

struct mboxout *
mboxout_new(struct buf *out, bool gzip)
{
	struct mboxout *m = xcalloc(1, sizeof(*m));

	m->out = out;
	m->gzip = gzip;
	return m;
}

void
mboxout_free(struct mboxout *m)
{
	if (m == NULL)
		return;
	if (m->started)
		deflateEnd(&m->z);
	buf_free(&m->mail);
	free(m);
}

/* Compress n bytes at p into out; flush Z_FINISH ends the stream. */
static enum err
squeeze(struct mboxout *m, const char *p, size_t n, int flush)
{
	unsigned char chunk[16384];
	int rc;

	if (!m->started) {
		/* 15 + 16: a gzip header and trailer around the stream. */
		if (deflateInit2(&m->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
		        15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			log_err("mboxout: zlib: %s",
			    m->z.msg ? m->z.msg : "cannot start");
			return ERR_INTERNAL;
		}
		m->started = true;
	}
	if (n > UINT_MAX)
		return ERR_LIMIT;
	m->z.next_in = (Bytef *)(uintptr_t)p;
	m->z.avail_in = (uInt)n;
	do {
		m->z.next_out = chunk;
		m->z.avail_out = sizeof(chunk);
		rc = deflate(&m->z, flush);
		if (rc == Z_STREAM_ERROR) {
			log_err("mboxout: zlib: %s",
			    m->z.msg ? m->z.msg : "stream error");
			return ERR_INTERNAL;
		}
		buf_add(m->out, chunk, sizeof(chunk) - m->z.avail_out);
	} while (
	    m->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return ERR_OK;
}

/* Whether a line needs one more '>' in mboxrd: ^>*From  */
static bool
quoted_from(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && p[i] == '>')
		i++;
	return n - i >= 5 && memcmp(p + i, "From ", 5) == 0;
}

enum err
mboxout_add(struct mboxout *m, const char *raw, size_t n)
{
	struct buf *b = m->gzip ? &m->mail : m->out;
	struct str rest = str_make(raw, n), line;

	buf_reset(&m->mail);
	buf_adds(b, MBOXRD_FROM);
	/* A mail piped in by an MTA may start with its envelope's "From "
	 * line: the line above stands for it (hdr_split() skips it too), and
	 * quoted it would be a header line that is none. */
	if (str_nextline(&rest, &line) && !str_startswith(line, "From "))
		rest = str_make(raw, n);
	while (str_nextline(&rest, &line)) {
		if (quoted_from(line.p, line.n))
			buf_addc(b, '>');
		buf_addstr(b, line);
		buf_addc(b, '\n');
	}
	/* The blank line that ends a mail in an mbox. */
	buf_addc(b, '\n');
	return m->gzip ? squeeze(m, m->mail.p, m->mail.n, Z_NO_FLUSH) : ERR_OK;
}

enum err
mboxout_end(struct mboxout *m)
{
	return m->gzip ? squeeze(m, "", 0, Z_FINISH) : ERR_OK;
}
