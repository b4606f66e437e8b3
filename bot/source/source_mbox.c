/*
 * Streaming mbox reader.  Message boundaries, CRLF handling and mboxrd
 * un-escaping follow git's builtin/mailsplit.c (`git mailsplit --mboxrd`)
 * line for line, so that a mail handed out here has exactly the bytes of
 * the file mailsplit writes, minus its "From " separator line:
 *
 * - leading whitespace (space, tab, CR, LF) at the start of the file is
 *   skipped; a file that holds nothing else holds no mail (mailsplit
 *   fails with "empty mbox");
 * - when the first line is not a "From " line (is_from_line below), the
 *   whole file is one mail, as with mailsplit -b (without -b mailsplit
 *   fails with "corrupt mailbox");
 * - otherwise every line that passes is_from_line starts a new mail, with
 *   no need for a blank line before it; the blank line an mbox writer puts
 *   before a separator stays with the mail above it, as in mailsplit;
 * - a line ending in CR LF loses the CR (mailsplit without --keep-cr);
 * - mboxrd: a line matching ^>+From loses one '>'; mboxo: only ^>From .
 *
 * The file is read in big chunks into one buffer.  A mail is handed out
 * in place, pointing into that buffer; only a mail that needs a CR or a
 * '>' removed is compacted, in place, from its first such line on.  The
 * buffer grows to at most limit + chunk bytes (limit: LIMIT_MAIL_STORE):
 * a mail over limit is skipped through a window of at least chunk bytes,
 * counted, and reported (ERR_LIMIT, and a log line with its byte
 * offset) instead of handed out: never cut.  Deviation from mailsplit,
 * for inputs no mbox writer produces: a line longer than that window is
 * handed on in pieces and is never taken as a "From " separator.
 *
 * gzip input (any number of members) goes through zlib's gzread().  A
 * position is the offset in the uncompressed stream where the next mail's
 * separator line starts, or the end of the stream; seeking checks that a
 * separator (or the end) is really there, and for gzip decompresses and
 * skips up to it.
 */
#include "bot/source/source_mbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "parsers/limits.h"
#include "util/log.h"
#include "util/xalloc.h"

#define MBOX_CHUNK (4u * 1024 * 1024)

struct source_mbox {
	char *path; /* for log lines */
	int fd; /* plain file, or -1 */
	gzFile gz; /* gzip file, or NULL */
	uint64_t fsize; /* on-disk size, for progress */
	bool mboxo;
	size_t chunk, limit, maxcap;

	char *buf;
	size_t cap, len;
	uint64_t nread; /* uncompressed offset of buf[len] */
	bool eof; /* nothing more to read */

	/* The mail being built: output in [mstart, w), unread input from r. */
	size_t mstart, w, r;
	size_t seen; /* bytes from r known to hold no LF */
	bool midline; /* r is inside a line split for its length */
	bool trunc; /* the output reached limit; the rest is skipped */
	uint64_t size; /* the mail's size, counted on when skipped */
	uint64_t at; /* where the mail (its separator line) starts */

	bool started; /* leading whitespace and the first line are done */
	bool bare; /* the file does not start with a "From " line */
	bool pending_from; /* the line at r is a separator to skip */
	bool done;
	enum err err; /* sticky read error */
};

/* git's isspace(): its sane_ctype table has only these four. */
static bool
mb_gitspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
mb_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * strtol(p, NULL, 10) > 90 for the bytes [p, end), which in git are
 * followed by a NUL: leading C-locale whitespace, a sign, digits.
 * Overflow saturates in strtol, which is still > 90.
 */
static bool
mb_year_ok(const char *p, const char *end)
{
	bool neg = false;
	uint64_t v = 0;

	while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r')))
		p++;
	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	while (p < end && mb_digit(*p) && v <= 90)
		v = v * 10 + (uint64_t)(*p++ - '0');
	return !neg && v > 90;
}

/*
 * git mailsplit's is_from_line(), on one line of n bytes including its LF
 * (when it has one): "From " and, at the last colon, something that looks
 * like hh:mm followed by a year above 90.
 */
static bool
mb_is_from_line(const char *line, size_t n)
{
	const char *colon, *start;

	if (n < 20 || memcmp(line, "From ", 5) != 0)
		return false;
	colon = line + n - 2;
	start = line + 5;
	for (;;) {
		if (colon < start)
			return false;
		if (*--colon == ':')
			break;
	}
	if (!mb_digit(colon[-4]) || !mb_digit(colon[-2]) ||
	    !mb_digit(colon[-1]) || !mb_digit(colon[1]) || !mb_digit(colon[2]))
		return false;
	return mb_year_ok(colon + 3, line + n);
}

/* Read up to want bytes into dst; 0 at the end of the input. */
static enum err
mb_read(struct source_mbox *mb, char *dst, size_t want, size_t *got)
{
	ssize_t r;
	int gr, zerr;

	if (mb->gz != NULL) {
		if (want > INT_MAX)
			want = INT_MAX;
		gr = gzread(mb->gz, dst, (unsigned)want);
		if (gr < 0 ||
		    (gr == 0 && (gzerror(mb->gz, &zerr), zerr) != Z_OK)) {
			log_err("source: %s: gzip: %s", mb->path,
			    gzerror(mb->gz, &zerr));
			return ERR_IO;
		}
		*got = (size_t)gr;
		return ERR_OK;
	}
	do
		r = read(mb->fd, dst, want);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		log_err("source: %s: read: %s", mb->path, strerror(errno));
		return ERR_IO;
	}
	*got = (size_t)r;
	return ERR_OK;
}

/*
 * Make room and read more.  The live bytes are the mail's output
 * [mstart, w) and the unread input [r, len); everything else is dropped.
 * *full is set when neither compacting nor growing made room: the line
 * at r then fills the whole window.
 */
static enum err
mb_fill(struct source_mbox *mb, bool *full)
{
	size_t out = mb->w - mb->mstart, rest = mb->len - mb->r, got;
	enum err e;

	*full = false;
	if (mb->mstart > 0 || mb->w < mb->r) {
		memmove(mb->buf, mb->buf + mb->mstart, out);
		memmove(mb->buf + out, mb->buf + mb->r, rest);
		mb->mstart = 0;
		mb->w = out;
		mb->r = out;
		mb->len = out + rest;
	}
	if (mb->len == mb->cap) {
		if (mb->cap == mb->maxcap) {
			*full = true;
			return ERR_OK;
		}
		mb->cap = mb->cap > mb->maxcap / 2 ? mb->maxcap : mb->cap * 2;
		mb->buf = xrealloc(mb->buf, mb->cap);
	}
	e = mb_read(mb, mb->buf + mb->len, mb->cap - mb->len, &got);
	if (e != ERR_OK)
		return e;
	if (got == 0)
		mb->eof = true;
	mb->len += got;
	mb->nread += got;
	return ERR_OK;
}

/*
 * The line at r: [r, *end), its LF included when it has one.  *frag is
 * set for a piece of a line too long for the window.  ERR_NOTFOUND at the
 * end of the input.
 */
static enum err
mb_line(struct source_mbox *mb, size_t *end, bool *frag)
{
	const char *nl;
	enum err e;
	bool full;

	*frag = false;
	for (;;) {
		nl = memchr(mb->buf + mb->r + mb->seen, '\n',
		    mb->len - mb->r - mb->seen);
		if (nl != NULL) {
			*end = (size_t)(nl - mb->buf) + 1;
			mb->seen = 0;
			return ERR_OK;
		}
		mb->seen = mb->len - mb->r;
		if (mb->eof) {
			mb->seen = 0;
			if (mb->r == mb->len)
				return ERR_NOTFOUND;
			*end = mb->len;
			return ERR_OK;
		}
		e = mb_fill(mb, &full);
		if (e != ERR_OK)
			return e;
		if (full) {
			/* Keep the last byte back: it may be the CR of a
			 * CR LF that mailsplit strips. */
			*end = mb->len - 1;
			*frag = true;
			mb->seen = 0;
			return ERR_OK;
		}
	}
}

/* Bytes to drop from the front of the line at r for mboxrd or mboxo. */
static size_t
mb_unescape(const struct source_mbox *mb, const char *p, size_t n)
{
	size_t k = 0;

	if (mb->midline || n < 6 || p[0] != '>')
		return 0;
	if (mb->mboxo)
		return memcmp(p + 1, "From ", 5) == 0;
	while (k < n && p[k] == '>')
		k++;
	return n - k >= 5 && memcmp(p + k, "From ", 5) == 0;
}

/* Append the line [r, end) to the output, transformed; advance r. */
static void
mb_emit(struct source_mbox *mb, size_t end, bool frag)
{
	const char *p = mb->buf + mb->r;
	size_t n = end - mb->r, skip, crlf, outn, room;

	skip = mb_unescape(mb, p, n);
	crlf = n >= 2 && p[n - 1] == '\n' && p[n - 2] == '\r';
	outn = n - skip - crlf;
	room = mb->limit - (mb->w - mb->mstart);
	mb->size += outn;
	if (mb->trunc) {
		/* skipping the rest of a mail over the limit */
	} else if (skip == 0 && crlf == 0 && mb->w == mb->r && outn <= room) {
		mb->w += n; /* the common case: no copy at all */
	} else {
		memmove(mb->buf + mb->w, p + skip, n - skip - 2 * crlf);
		if (crlf)
			mb->buf[mb->w + n - skip - 2] = '\n';
		if (outn > room) {
			outn = room;
			mb->trunc = true;
		}
		mb->w += outn;
	}
	mb->r = end;
	mb->midline = frag;
}

/*
 * The start of the file: skip leading whitespace, then look at the first
 * line.  A "From " line is consumed; anything else makes the file bare.
 */
static enum err
mb_start(struct source_mbox *mb)
{
	size_t end;
	bool frag, full;
	enum err e;

	mb->started = true;
	for (;;) {
		while (mb->r < mb->len && mb_gitspace(mb->buf[mb->r]))
			mb->r++;
		mb->mstart = mb->w = mb->r;
		if (mb->r < mb->len)
			break;
		if (mb->eof) {
			mb->done = true;
			return ERR_NOTFOUND;
		}
		e = mb_fill(mb, &full);
		if (e != ERR_OK)
			return e;
	}
	e = mb_line(mb, &end, &frag);
	if (e != ERR_OK)
		return e;
	mb->bare = frag || !mb_is_from_line(mb->buf + mb->r, end - mb->r);
	if (!mb->bare)
		mb->r = end;
	return ERR_OK;
}

/* Skip the separator line at r that ended the previous mail. */
static enum err
mb_skip_from(struct source_mbox *mb)
{
	size_t end;
	bool frag;
	enum err e;

	mb->mstart = mb->w = mb->r;
	e = mb_line(mb, &end, &frag);
	if (e != ERR_OK)
		return e == ERR_NOTFOUND ? ERR_INTERNAL : e;
	mb->r = end;
	mb->pending_from = false;
	return ERR_OK;
}

static int
mb_setpos(char *pos, size_t n, uint64_t off)
{
	int r = snprintf(pos, n, "%llu", (unsigned long long)off);

	return r < 0 || (size_t)r >= n ? -1 : 0;
}

static enum err
mb_next(struct source_mbox *mb, struct source_mail *m)
{
	size_t end;
	bool frag;
	enum err e;

	mb->at = mb->nread - (mb->len - mb->r);
	if (!mb->started)
		e = mb_start(mb);
	else
		e = mb->pending_from ? mb_skip_from(mb) : ERR_OK;
	if (e != ERR_OK)
		return e;
	mb->mstart = mb->w = mb->r;
	mb->trunc = false;
	mb->size = 0;
	mb->midline = false;
	for (;;) {
		e = mb_line(mb, &end, &frag);
		if (e == ERR_NOTFOUND) {
			mb->done = true;
			break;
		}
		if (e != ERR_OK)
			return e;
		if (!mb->bare && !frag && !mb->midline &&
		    mb_is_from_line(mb->buf + mb->r, end - mb->r)) {
			mb->pending_from = true;
			break;
		}
		mb_emit(mb, end, frag);
	}
	m->raw = mb->buf + mb->mstart;
	m->n = mb->w - mb->mstart;
	if (mb_setpos(m->pos, sizeof(m->pos), mb->nread - (mb->len - mb->r)))
		return ERR_INTERNAL;
	if (mb->trunc) {
		log_err("source: %s: the mail at byte %llu is %llu bytes, over "
		        "the %zu bytes a mail may have: not imported",
		    mb->path, (unsigned long long)mb->at,
		    (unsigned long long)mb->size, mb->limit);
		m->raw = NULL;
		m->n = 0;
		return ERR_LIMIT;
	}
	return ERR_OK;
}

enum err
source_mbox_next(struct source_mbox *mb, struct source_mail *m)
{
	enum err e;

	if (mb->err != ERR_OK)
		return mb->err;
	if (mb->done)
		return ERR_NOTFOUND;
	e = mb_next(mb, m);
	if (e != ERR_OK && e != ERR_NOTFOUND && e != ERR_LIMIT)
		mb->err = e;
	return e;
}

/* Forget the buffer; the input continues at uncompressed offset off. */
static void
mb_reset(struct source_mbox *mb, uint64_t off)
{
	mb->len = mb->r = mb->w = mb->mstart = mb->seen = 0;
	mb->nread = off;
	mb->eof = false;
	mb->midline = mb->trunc = false;
	mb->started = mb->bare = mb->pending_from = mb->done = false;
	mb->err = ERR_OK;
}

/* Position the input at uncompressed offset off (decompress and skip for
 * gzip); ERR_INVAL when the input is shorter. */
static enum err
mb_rewind_to(struct source_mbox *mb, uint64_t off)
{
	uint64_t left = off;
	size_t got;
	enum err e;

	mb_reset(mb, 0);
	if (mb->gz == NULL) {
		if (lseek(mb->fd, (off_t)off, SEEK_SET) < 0) {
			log_err(
			    "source: %s: seek: %s", mb->path, strerror(errno));
			return ERR_IO;
		}
		mb->nread = off;
		return ERR_OK;
	}
	if (gzrewind(mb->gz) != 0) {
		log_err("source: %s: gzip: cannot rewind", mb->path);
		return ERR_IO;
	}
	while (left > 0) {
		e = mb_read(
		    mb, mb->buf, left < mb->cap ? (size_t)left : mb->cap, &got);
		if (e != ERR_OK)
			return e;
		if (got == 0)
			return ERR_INVAL;
		left -= got;
	}
	mb->nread = off;
	return ERR_OK;
}

static bool
mb_parse_pos(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (i = 0; s[i] != '\0'; i++) {
		if (!mb_digit(s[i]) || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/*
 * Check where a position points, with the input placed at off - 1: a mail
 * of this file can only end at the end of the input, or at an LF that a
 * separator line follows (and never before the end in a bare file).
 */
static enum err
mb_check_pos(struct source_mbox *mb, bool bare)
{
	size_t end;
	bool frag, full;
	enum err e;

	while (mb->len < 2 && !mb->eof) {
		e = mb_fill(mb, &full);
		if (e != ERR_OK)
			return e;
	}
	if (mb->len == 0)
		return ERR_INVAL; /* off - 1 is past the end */
	mb->r = mb->w = mb->mstart = 1;
	mb->started = true;
	mb->bare = bare;
	if (mb->len == 1 && mb->eof) {
		mb->done = true;
		return ERR_OK;
	}
	if (bare || mb->buf[0] != '\n')
		return ERR_INVAL;
	e = mb_line(mb, &end, &frag);
	if (e != ERR_OK)
		return e == ERR_NOTFOUND ? ERR_INVAL : e;
	if (frag || !mb_is_from_line(mb->buf + mb->r, end - mb->r))
		return ERR_INVAL;
	mb->pending_from = true;
	return ERR_OK;
}

static enum err
mb_seek(struct source_mbox *mb, const char *pos)
{
	uint64_t off;
	bool bare;
	enum err e;

	if (!mb_parse_pos(pos, &off) || off == 0)
		return ERR_INVAL;
	/* Whether the file is bare is decided by its first line. */
	e = mb_rewind_to(mb, 0);
	if (e != ERR_OK)
		return e;
	e = mb_start(mb);
	if (e == ERR_NOTFOUND)
		return ERR_INVAL; /* an empty file has no positions */
	if (e != ERR_OK)
		return e;
	bare = mb->bare;
	e = mb_rewind_to(mb, off - 1);
	if (e != ERR_OK)
		return e;
	return mb_check_pos(mb, bare);
}

enum err
source_mbox_seek(struct source_mbox *mb, const char *pos)
{
	enum err e = mb_seek(mb, pos);

	if (e == ERR_INVAL)
		log_err("source: %s: position %.40s is not one of this mbox",
		    mb->path, pos);
	if (e != ERR_OK) {
		/* Leave the source at its end rather than half-placed. */
		mb_reset(mb, 0);
		mb->started = mb->done = true;
		if (e != ERR_INVAL)
			mb->err = e;
	}
	return e;
}

double
source_mbox_progress(const struct source_mbox *mb)
{
	uint64_t at;

	if (mb->fsize == 0)
		return mb->done ? 1.0 : -1.0;
	if (mb->gz != NULL) {
		z_off_t o = gzoffset(mb->gz);

		at = o < 0 ? 0 : (uint64_t)o;
	} else {
		at = mb->nread - (mb->len - mb->r);
	}
	if (at > mb->fsize)
		at = mb->fsize;
	return (double)at / (double)mb->fsize;
}

static enum err
mb_open_input(struct source_mbox *mb)
{
	unsigned char magic[2];
	struct stat st;
	ssize_t n;

	mb->fd = open(mb->path, O_RDONLY | O_CLOEXEC);
	if (mb->fd < 0) {
		log_err("source: %s: open: %s", mb->path, strerror(errno));
		return errno == ENOENT ? ERR_NOTFOUND : ERR_IO;
	}
	if (fstat(mb->fd, &st) != 0) {
		log_err("source: %s: stat: %s", mb->path, strerror(errno));
		return ERR_IO;
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
	    !S_ISCHR(st.st_mode)) {
		log_err("source: %s: not a file", mb->path);
		return ERR_INVAL;
	}
	mb->fsize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	n = pread(mb->fd, magic, 2, 0);
	if (n != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
		return ERR_OK;
	mb->gz = gzdopen(mb->fd, "rb");
	if (mb->gz == NULL) {
		log_err("source: %s: gzip: cannot open", mb->path);
		return ERR_IO;
	}
	mb->fd = -1; /* gzclose closes it */
	if (gzbuffer(mb->gz, 256 * 1024) != 0) {
		log_err("source: %s: gzip: cannot size the buffer", mb->path);
		return ERR_IO;
	}
	return ERR_OK;
}

enum err
source_mbox_open(const char *path, const struct source_mbox_opts *opts,
    struct source_mbox **out)
{
	struct source_mbox *mb = xcalloc(1, sizeof(*mb));
	enum err e;

	mb->path = xstrdup(path);
	mb->fd = -1;
	mb->mboxo = opts != NULL && opts->mboxo;
	mb->chunk = opts != NULL && opts->chunk ? opts->chunk : MBOX_CHUNK;
	mb->limit =
	    opts != NULL && opts->limit ? opts->limit : LIMIT_MAIL_STORE;
	if (mb->chunk < 16)
		mb->chunk = 16;
	mb->maxcap = mb->limit + mb->chunk;
	mb->cap = mb->chunk;
	mb->buf = xmalloc(mb->cap);
	e = mb_open_input(mb);
	if (e != ERR_OK) {
		source_mbox_free(mb);
		return e;
	}
	*out = mb;
	return ERR_OK;
}

void
source_mbox_free(struct source_mbox *mb)
{
	if (mb == NULL)
		return;
	if (mb->gz != NULL)
		gzclose(mb->gz);
	if (mb->fd >= 0)
		close(mb->fd);
	free(mb->buf);
	free(mb->path);
	free(mb);
}
