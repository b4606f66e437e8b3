/*
 * The IMAP source's guard on what the server sends: see imap_guard.h.
 *
 * libetpan reads a command's whole answer before it returns: every
 * untagged line until the tagged one, each parsed into its lists, the
 * text kept in one buffer.  It has a timeout for each read and nothing
 * else, so a server that trickles a literal a byte at a time, or sends
 * untagged lines without end, held the daemon for ever, and a UID SEARCH
 * answer of 69 MB of UIDs took 717 MB.  The guard sees every byte first
 * and ends the stream (a read error, for libetpan) when an answer passes
 * one of these bounds:
 *
 * - time: a command's answer has `timeout` seconds (the source's key,
 *   60 by default), and one more for every IMAP_GUARD_RATE (64 KB) it
 *   has brought.  An answer that keeps coming at 64 KB/s or faster is
 *   bounded by its size alone (below); a trickle of a byte a second is
 *   cut off after `timeout` seconds, an answer at half the rate after
 *   twice that.  The longest a server can hold one command is its
 *   largest answer at that rate: one mail of LIMIT_MAIL_STORE (64 MB)
 *   fetched alone, 17 minutes (a chunk of 16 such mails, each fetched
 *   alone, 16 times that), or the first MB of a chunk's 16 mails,
 *   4 minutes (every byte of it mail we asked for); any other
 *   command's, `timeout` and 32 s.
 *   Every wait is cut into slices of IMAP_GUARD_SLICE_MS that look at
 *   the stop flag: SIGTERM ends the stream within one slice, even when
 *   it came just before a poll() began (a signal then interrupts
 *   nothing).
 * - text: at most IMAP_GUARD_TEXT_MAX (1 MB) outside literals in one
 *   answer.  libetpan keeps that text and parses it into lists of about
 *   ten times its size; 1 MB holds a UID SEARCH answer of 95,000 UIDs of
 *   10 digits (imap.c asks for UIDs in windows that stay under it) and
 *   far more than any other answer we ask for.
 * - literals: at most what the command asked for in all (imap.c says:
 *   the mails of a UID FETCH, each cut at what was asked of it), and no
 *   single one above LITERAL_MAX, refused at its announcement, before
 *   libetpan allocates its size.
 */
#include "bot/source/imap_guard.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

/*
 * The largest literal ("{N}" CRLF and N bytes) a server may send: a
 * whole mail of LIMIT_MAIL_STORE (64 MB), the most imap.c asks for when
 * it fetches a large mail again alone (BODY.PEEK[]<0.LIMIT_MAIL_STORE>;
 * the mails of a chunk come as their first IMAP_PART bytes).  libetpan
 * 1.9.4 allocates a literal's whole announced size before it reads a
 * byte of it, up to 4 GB (found by fuzz_imap); newer libetpan refuses
 * one above 64 MB, and so do we, at the transport, before the parser
 * sees the announcement.
 */
#define LITERAL_MAX LIMIT_MAIL_STORE

/* The slowest average an answer may come at, after its first `timeout`
 * seconds: 64 KB/s. */
#define IMAP_GUARD_RATE (64.0 * 1024)

/* How often a wait looks at the stop flag. */
#define IMAP_GUARD_SLICE_MS 100

enum guard_why {
	GW_NONE,
	GW_STOPPED,
	GW_TIMEOUT,
	GW_DEADLINE,
	GW_LITERAL,
	GW_LITERALS,
	GW_TEXT,
	GW_BYE,
	GW_CLOSED,
	GW_ERROR
};

struct imap_guard {
	/* Where the stream is, as far as literals go: in one (skip bytes
	 * of it left) or in a line, reading a "{digits}" CRLF
	 * announcement. */
	uint64_t skip;
	uint64_t num;
	enum {
		LG_TEXT,
		LG_NUM,
		LG_CLOSED,
		LG_CR
	} state;
	/* The greeting, while it is being read: how much of "* BYE" it
	 * has matched (GREET_DONE once it cannot), and the text of a BYE. */
	int greet;
	char bye[160];
	/* The answer in hand: when its command went out, what came. */
	double armed;
	uint64_t bytes, text, lit, lit_max;
	int timeout_ms;
	volatile sig_atomic_t *stop;
	enum guard_why why;
	uint64_t why_num;
	double why_took;
	char detail[160];
};

#define GREET_DONE (-1)

struct imap_guard *
imap_guard_new(const struct imap_guard_opts *o)
{
	struct imap_guard *g = xcalloc(1, sizeof(*g));

	g->greet = o->greeting ? 0 : GREET_DONE;
	g->timeout_ms = o->timeout > 0 ? o->timeout * 1000 : 60000;
	g->stop = o->stop;
	imap_guard_arm(g, IMAP_GUARD_TEXT_MAX);
	return g;
}

void
imap_guard_free(struct imap_guard *g)
{
	free(g);
}

void
imap_guard_arm(struct imap_guard *g, uint64_t literals)
{
	g->armed = time_mono();
	g->bytes = g->text = g->lit = 0;
	g->lit_max = literals;
}

static bool
refuse(struct imap_guard *g, enum guard_why why, uint64_t num)
{
	if (g->why == GW_NONE) {
		g->why = why;
		g->why_num = num;
		g->why_took = time_mono() - g->armed;
	}
	return false;
}

void
imap_guard_fail(struct imap_guard *g, const char *what)
{
	if (g->why != GW_NONE)
		return;
	snprintf(g->detail, sizeof(g->detail), "%s", what);
	refuse(g, GW_ERROR, 0);
}

int
imap_wait(int fd, short events, int ms, volatile sig_atomic_t *stop)
{
	double end = time_mono() + ms / 1000.0;

	for (;;) {
		struct pollfd p = { fd, events, 0 };
		int slice = ms < 0 ? -1 : ms, r;

		if (stop != NULL && *stop) {
			errno = EINTR;
			return -1;
		}
		if (ms >= 0) {
			double left = (end - time_mono()) * 1000.0;

			if (left <= 0)
				return 0;
			slice = (int)left + 1;
		}
		if (stop != NULL && (slice < 0 || slice > IMAP_GUARD_SLICE_MS))
			slice = IMAP_GUARD_SLICE_MS;
		r = poll(&p, 1, slice);
		if (r > 0)
			return 1;
		/* A signal with no stop flag to look at ends the wait, as
		 * it always did; with one, the flag says. */
		if (r < 0 && (errno != EINTR || stop == NULL))
			return -1;
	}
}

/* When the answer in hand must be complete (time_mono() seconds). */
static double
deadline(const struct imap_guard *g)
{
	return g->armed + g->timeout_ms / 1000.0 +
	    (double)g->bytes / IMAP_GUARD_RATE;
}

int
imap_guard_wait(struct imap_guard *g, int fd, short events, int ms)
{
	double now = time_mono(), dl = deadline(g);
	double rd = now + g->timeout_ms / 1000.0;
	double end = dl < rd ? dl : rd;
	bool caller = ms >= 0 && now + ms / 1000.0 < end;
	int r;

	if (g->why != GW_NONE)
		return -1;
	if (!caller && end <= now)
		return refuse(g, g->bytes > 0 ? GW_DEADLINE : GW_TIMEOUT, 0),
		       -1;
	r = imap_wait(
	    fd, events, caller ? ms : (int)((end - now) * 1000.0) + 1, g->stop);
	if (r > 0)
		return 1;
	if (r < 0) {
		if (g->stop != NULL && *g->stop)
			refuse(g, GW_STOPPED, 0);
		else
			imap_guard_fail(g, strerror(errno));
		return -1;
	}
	if (caller)
		return 0;
	/* An answer of which nothing came has timed out, whichever
	 * clock ran out first. */
	refuse(g, dl <= rd && g->bytes > 0 ? GW_DEADLINE : GW_TIMEOUT, 0);
	return -1;
}

/*
 * A greeting that is "* BYE": libetpan 1.9.4 leaks the greeting it
 * parsed when it is a BYE (found by fuzz_imap), once per connection a
 * busy server turns away.  The guard refuses the stream there instead,
 * before libetpan reads the line, and keeps the server's words for the
 * error.  libetpan's unstrict syntax allows blanks before the star and
 * several after it; "BYE" is a case-insensitive atom.
 */
static void
greeting_read(struct imap_guard *g, const char *p, size_t n)
{
	size_t i, k, m;

	for (i = 0; i < n && g->greet != GREET_DONE; i++) {
		char c = p[i];
		bool blank = c == ' ' || c == '\t';

		switch (g->greet) {
		case 0: /* before the star */
			g->greet = c == '*' ? 1 : blank ? 0 : GREET_DONE;
			break;
		case 1: /* right after it: a blank must follow */
			g->greet = blank ? 2 : GREET_DONE;
			break;
		case 2: /* blanks, then B */
			if (!blank)
				g->greet =
				    c == 'B' || c == 'b' ? 3 : GREET_DONE;
			break;
		case 3:
			g->greet = c == 'Y' || c == 'y' ? 4 : GREET_DONE;
			break;
		case 4:
			if (c != 'E' && c != 'e') {
				g->greet = GREET_DONE;
				break;
			}
			/* Its text, to the end of the line or of what came,
			 * printable ASCII only (it goes to the log). */
			for (k = i + 1; k < n && p[k] == ' '; k++)
				;
			for (m = 0; k < n && p[k] != '\r' && p[k] != '\n' &&
			     m + 1 < sizeof(g->bye);
			     k++)
				g->bye[m++] =
				    p[k] >= ' ' && p[k] < 127 ? p[k] : '?';
			g->bye[m] = '\0';
			refuse(g, GW_BYE, 0);
			g->greet = GREET_DONE;
			return;
		}
	}
}

/* A literal of g->num bytes begins: within the answer's budget? */
static bool
literal_starts(struct imap_guard *g)
{
	if (g->num > g->lit_max - g->lit)
		return refuse(g, GW_LITERALS, g->lit_max);
	g->skip = g->num;
	return true;
}

/*
 * Follow the bytes the server sent.  A "{N}" with N above LITERAL_MAX is
 * refused whatever follows it (libetpan takes "{N}" and two spaces for a
 * literal too, for Lotus Domino); only "{N}" CRLF starts one to skip, so
 * a mail's own text never counts as an announcement.
 */
bool
imap_guard_read(struct imap_guard *g, const char *p, ssize_t got)
{
	size_t i = 0, n = got > 0 ? (size_t)got : 0;

	if (got <= 0) {
		/* The end of the stream is an error too: libetpan 1.9.4
		 * reads the rest of a literal until it has it, taking 0
		 * bytes for progress, so a server that closes inside a
		 * literal would have it spin for ever (found by
		 * fuzz_imap).  A client has nothing to do with a closed
		 * connection but give up. */
		if (got == 0)
			return refuse(g, GW_CLOSED, 0);
		imap_guard_fail(g, strerror(errno));
		return false;
	}
	if (g->why != GW_NONE)
		return false;
	if (g->greet != GREET_DONE)
		greeting_read(g, p, n);
	g->bytes += n;
	while (i < n && g->why == GW_NONE) {
		if (g->skip > 0) {
			size_t k = g->skip < n - i ? (size_t)g->skip : n - i;

			g->skip -= k;
			g->lit += k;
			i += k;
			continue;
		}
		if (++g->text > IMAP_GUARD_TEXT_MAX)
			return refuse(g, GW_TEXT, IMAP_GUARD_TEXT_MAX);
		switch (g->state) {
		case LG_NUM:
			if (p[i] >= '0' && p[i] <= '9') {
				g->num = g->num * 10 + (uint64_t)(p[i] - '0');
				if (g->num > LITERAL_MAX)
					return refuse(g, GW_LITERAL, g->num);
				i++;
				continue;
			}
			g->state = p[i] == '}' ? LG_CLOSED : LG_TEXT;
			break;
		case LG_CLOSED:
			g->state = p[i] == '\r' ? LG_CR : LG_TEXT;
			break;
		case LG_CR:
			if (p[i] == '\n' && !literal_starts(g))
				return false;
			g->state = LG_TEXT;
			break;
		case LG_TEXT:
			break;
		}
		/* In a line (again: "{1{2}" has a second start), "{" starts
		 * an announcement. */
		if (g->state == LG_TEXT && p[i] == '{') {
			g->state = LG_NUM;
			g->num = 0;
		}
		i++;
	}
	return g->why == GW_NONE;
}

const char *
imap_guard_bye(const struct imap_guard *g)
{
	return g != NULL && g->why == GW_BYE ? g->bye : NULL;
}

static void
size_words(char *out, size_t n, uint64_t bytes)
{
	if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
		snprintf(out, n, "%llu MB",
		    (unsigned long long)(bytes / (1024 * 1024)));
	else if (bytes >= 1024 * 1024)
		snprintf(out, n, "%.1f MB", (double)bytes / (1024 * 1024));
	else
		snprintf(out, n, "%llu bytes", (unsigned long long)bytes);
}

bool
imap_guard_why(const struct imap_guard *g, char *out, size_t n)
{
	char size[32];

	if (g == NULL || g->why == GW_NONE)
		return false;
	size_words(size, sizeof(size), g->why_num);
	switch (g->why) {
	case GW_STOPPED:
		snprintf(out, n, "interrupted: patchyard is stopping");
		break;
	case GW_TIMEOUT:
		snprintf(out, n, "the server said nothing for %d s: timed out",
		    g->timeout_ms / 1000);
		break;
	case GW_DEADLINE:
		snprintf(out, n,
		    "the server's answer was not complete after %.0f s (an "
		    "answer has %d s, and 1 s more for each %.0f KB it "
		    "brings): given up",
		    g->why_took, g->timeout_ms / 1000, IMAP_GUARD_RATE / 1024);
		break;
	case GW_LITERAL:
		snprintf(out, n,
		    "the server announced a literal of %s, over the %u MB "
		    "allowed: refused",
		    size, LITERAL_MAX / (1024 * 1024));
		break;
	case GW_LITERALS:
		snprintf(out, n,
		    "the server's answer brought literals over the %s asked "
		    "for: refused",
		    size);
		break;
	case GW_TEXT:
		snprintf(out, n,
		    "the server's answer passed %s outside its literals "
		    "(endless lines, or a list that large): refused",
		    size);
		break;
	case GW_BYE:
		snprintf(out, n, "the server turned us away: %s", g->bye);
		break;
	case GW_CLOSED:
		snprintf(out, n, "the server closed the connection");
		break;
	default:
		snprintf(out, n, "%s", g->detail);
		break;
	}
	return true;
}
