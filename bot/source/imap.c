/*
 * The IMAP source: libetpan speaks the protocol and parses the server's
 * responses; the socket, its timeout and TLS are ours (imap_tls.c), as
 * libetpan verifies no certificate.  Nothing of the server's answers is
 * parsed here beyond what libetpan hands back as structures.  What the
 * server may send is bounded before libetpan sees it (imap_guard.c):
 * each command below arms the guard with what its answer may bring.
 */
#include "bot/source/imap.h"

#include <errno.h>
#include <fcntl.h>
#include <libetpan/libetpan.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bot/source/imap_guard.h"
#include "bot/source/imap_tls.h"
#include "parsers/imapurl.h"
#include "parsers/limits.h"
#include "util/secret.h"
#include "util/xalloc.h"

struct imap {
	mailimap *s;
	struct imapurl url;
	bool idle; /* the server offers IDLE */
	bool move; /* ... MOVE */
	bool uidplus; /* ... UIDPLUS (UID EXPUNGE) */
};

/* libetpan's codes in words, for the one-line reasons. */
static const char *
etpan_str(int r)
{
	switch (r) {
	case MAILIMAP_ERROR_STREAM:
		return "the connection was lost or timed out";
	case MAILIMAP_ERROR_PARSE:
		return "an answer libetpan cannot parse";
	case MAILIMAP_ERROR_LOGIN:
		return "login refused";
	case MAILIMAP_ERROR_SELECT:
	case MAILIMAP_ERROR_EXAMINE:
		return "no such mailbox";
	case MAILIMAP_ERROR_MEMORY:
		return "out of memory";
	default:
		return "the server refused the command";
	}
}

/* The guard of the session's stream (NULL before there is one). */
static struct imap_guard *
guard(const struct imap *im)
{
	return im->s->imap_stream != NULL
	    ? imap_stream_guard(mailstream_get_low(im->s->imap_stream))
	    : NULL;
}

/* A command goes out: its answer may bring literals bytes of them. */
static void
arm(struct imap *im, uint64_t literals)
{
	struct imap_guard *g = guard(im);

	if (g != NULL)
		imap_guard_arm(g, literals);
}

/* what failed: in the guard's words when it ended the stream (the
 * connection is then what failed, ERR_NET), else in libetpan's. */
static enum err
fail(const struct imap *im, char *err, size_t errn, enum err e,
    const char *what, int r)
{
	char why[256];

	if (imap_guard_why(guard(im), why, sizeof(why))) {
		snprintf(err, errn, "%s: %s", what, why);
		return ERR_NET;
	}
	snprintf(err, errn, "%s: %s", what, etpan_str(r));
	return e;
}

/* The greeting failed: say so in the server's words when it turned us
 * away with a BYE. */
static enum err
greeting_fail(const struct imap *im, char *err, size_t errn, int r)
{
	const char *bye = imap_guard_bye(guard(im));

	if (bye != NULL) {
		snprintf(err, errn, "the server turned us away: %s", bye);
		return ERR_NET;
	}
	return fail(im, err, errn, ERR_NET, "greeting", r);
}

/* A TCP connection to host:port within timeout seconds (or until
 * *stop); -1 with a reason in err. */
static int
tcp_connect(const struct imapurl *u, int timeout, volatile sig_atomic_t *stop,
    char *err, size_t errn)
{
	struct addrinfo hints, *res = NULL, *ai;
	int fd = -1, r, soerr = 0;
	socklen_t sl = sizeof(soerr);

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	r = getaddrinfo(u->host, u->port, &hints, &res);
	if (r != 0) {
		snprintf(err, errn, "%s: %s", u->host, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd < 0)
			continue;
		fcntl(fd, F_SETFL, O_NONBLOCK);
		r = connect(fd, ai->ai_addr, ai->ai_addrlen);
		if (r != 0 && errno == EINPROGRESS) {
			int w = imap_wait(fd, POLLOUT, timeout * 1000, stop);

			if (w == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) ==
			        0) {
				r = soerr ? -1 : 0;
				errno = soerr ? soerr : ETIMEDOUT;
			} else {
				errno =
				    w < 0 && errno == EINTR ? EINTR : ETIMEDOUT;
			}
		}
		if (r == 0) {
			fcntl(fd, F_SETFL, 0);
			break;
		}
		snprintf(err, errn, "%s port %s: %s", u->host, u->port,
		    strerror(errno));
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* The stream, in TLS: at once for imaps://, after STARTTLS otherwise. */
static enum err
open_stream(struct imap *im, const struct imap_config *c, int fd, char *err,
    size_t errn)
{
	struct imap_tls_opts to = { im->url.host, c->ca_file, c->pin_sha256,
		c->timeout, c->stop, false };
	struct imap_guard_opts go = { c->timeout, c->stop, true };
	mailstream_low *low = NULL, *plain;
	enum err e;
	int r;

	if (im->url.tls) {
		to.greeting = true;
		if ((e = imap_tls_open(fd, &to, &low, err, errn)) != ERR_OK) {
			close(fd);
			return e;
		}
		/* The greeting's clock starts after the handshake. */
		imap_guard_arm(imap_stream_guard(low), IMAP_GUARD_TEXT_MAX);
		r = mailimap_connect(im->s, mailstream_new(low, 8192));
		if (r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
		    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
			return greeting_fail(im, err, errn, r);
		return ERR_OK;
	}
	plain = imap_plain_open(fd, &go);
	if (plain == NULL) {
		close(fd);
		snprintf(err, errn, "out of memory");
		return ERR_NOMEM;
	}
	r = mailimap_connect(im->s, mailstream_new(plain, 8192));
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
		return greeting_fail(im, err, errn, r);
	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_starttls(im->s);
	if (r != MAILIMAP_NO_ERROR)
		return fail(im, err, errn, ERR_NET,
		    "STARTTLS (required before logging in)", r);
	/* Anything already read came before TLS: an injection. */
	if (im->s->imap_stream->read_buffer_len != 0) {
		snprintf(err, errn, "data sent with the STARTTLS answer");
		return ERR_NET;
	}
	if ((e = imap_tls_open(fd, &to, &low, err, errn)) != ERR_OK)
		return e;
	mailstream_low_free(plain);
	mailstream_set_low(im->s->imap_stream, low);
	return ERR_OK;
}

/*
 * Whether the server named capability name.  libetpan 1.9.4's
 * mailimap_has_extension() follows the capability list without looking:
 * a CAPABILITY answer that left none (found by fuzz_imap) crashed it.
 */
static bool
has_cap(const struct imap *im, const char *name)
{
	const struct mailimap_connection_info *ci = im->s->imap_connection_info;
	clistiter *it;

	if (ci == NULL || ci->imap_capability == NULL ||
	    ci->imap_capability->cap_list == NULL)
		return false;
	for (it = clist_begin(ci->imap_capability->cap_list); it != NULL;
	     it = clist_next(it)) {
		const struct mailimap_capability *c = clist_content(it);

		if (c != NULL && c->cap_type == MAILIMAP_CAPABILITY_NAME &&
		    c->cap_data.cap_name != NULL &&
		    strcasecmp(c->cap_data.cap_name, name) == 0)
			return true;
	}
	return false;
}

static enum err
login_select(
    struct imap *im, const struct imap_config *c, char *err, size_t errn)
{
	char password[512] = "";
	int r;
	enum err e = ERR_OK;

	if (c->password_file &&
	    (e = secret_read(c->password_file, password, sizeof(password), err,
	         errn)) != ERR_OK)
		return e;
	if (im->s->imap_state == MAILIMAP_STATE_NON_AUTHENTICATED) {
		arm(im, IMAP_GUARD_TEXT_MAX);
		r = mailimap_login(im->s, im->url.user, password);
		if (r != MAILIMAP_NO_ERROR)
			e = fail(im, err, errn, ERR_AUTH, im->url.user, r);
	}
	explicit_bzero(password, sizeof(password));
	if (e != ERR_OK)
		return e;
	/* The capabilities after login are the ones that count: asked for
	 * as a plain command, whose answer libetpan records in the session,
	 * and read with has_cap().  Not mailimap_capability(): libetpan
	 * 1.9.4 copies the recorded list there without checking it, and a
	 * server that never sent one, or sent "[CAPABILITY]" with none,
	 * crashed it (tests/fixtures/regress/imap/capability-*). */
	if (im->s->imap_connection_info != NULL) {
		arm(im, IMAP_GUARD_TEXT_MAX);
		(void)mailimap_custom_command(im->s, "CAPABILITY");
	}
	im->idle = has_cap(im, "IDLE");
	im->move = has_cap(im, "MOVE");
	im->uidplus = has_cap(im, "UIDPLUS");
	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_select(im->s, im->url.mailbox);
	if (r != MAILIMAP_NO_ERROR)
		return fail(im, err, errn, ERR_NET, im->url.mailbox, r);
	return ERR_OK;
}

enum err
imap_connect(
    const struct imap_config *c, struct imap **out, char *err, size_t errn)
{
	struct imap *im = xcalloc(1, sizeof(*im));
	struct imap_config cc = *c;
	const char *why;
	enum err e;
	int fd;

	*out = NULL;
	err[0] = '\0';
	if (cc.timeout <= 0)
		cc.timeout = 60;
	if (imapurl_parse(c->url, &im->url, &why) != ERR_OK) {
		snprintf(err, errn, "%s", why);
		free(im);
		return ERR_CONFIG;
	}
	if (im->url.user[0] == '\0') {
		snprintf(err, errn, "the URL names no user (imaps://USER@...)");
		free(im);
		return ERR_CONFIG;
	}
	im->s = mailimap_new(0, NULL);
	if (im->s == NULL)
		fatal("imap: out of memory");
	mailimap_set_timeout(im->s, cc.timeout);
	fd = tcp_connect(&im->url, cc.timeout, cc.stop, err, errn);
	e = fd < 0 ? ERR_NET : open_stream(im, &cc, fd, err, errn);
	if (e == ERR_OK)
		e = login_select(im, &cc, err, errn);
	if (e != ERR_OK) {
		imap_close(im);
		return e;
	}
	*out = im;
	return ERR_OK;
}

/*
 * The way in of the unit tests and the fuzz target (tests/unit/
 * test_imap.c, tests/fuzz/fuzz_imap.c): the same session as
 * imap_connect() over a descriptor already connected, in the clear.  No
 * configuration reaches it: a real source always speaks TLS.
 */
enum err
imap_open_fd(const struct imap_config *cf, int fd, struct imap **out, char *err,
    size_t errn)
{
	struct imap_config c = *cf;
	struct imap *im = xcalloc(1, sizeof(*im));
	struct imap_guard_opts go;
	mailstream_low *low;
	const char *why;
	enum err e = ERR_OK;
	int r;

	*out = NULL;
	if (c.timeout <= 0)
		c.timeout = 5;
	if (imapurl_parse(c.url, &im->url, &why) != ERR_OK) {
		snprintf(err, errn, "%s", why);
		free(im);
		close(fd);
		return ERR_CONFIG;
	}
	im->s = mailimap_new(0, NULL);
	if (im->s == NULL)
		fatal("imap: out of memory");
	mailimap_set_timeout(im->s, c.timeout);
	go.timeout = c.timeout;
	go.stop = c.stop;
	go.greeting = true;
	low = imap_plain_open(fd, &go);
	if (low == NULL)
		fatal("imap: out of memory");
	r = mailimap_connect(im->s, mailstream_new(low, 8192));
	if (r != MAILIMAP_NO_ERROR_AUTHENTICATED &&
	    r != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
		e = greeting_fail(im, err, errn, r);
	if (e == ERR_OK)
		e = login_select(im, &c, err, errn);
	if (e != ERR_OK) {
		imap_close(im);
		return e;
	}
	*out = im;
	return ERR_OK;
}

void
imap_close(struct imap *im)
{
	if (im == NULL)
		return;
	/* No LOGOUT: it would wait for an answer from a server that may be
	 * gone, and we may be stopping. */
	if (im->s->imap_stream != NULL) {
		mailstream_close(im->s->imap_stream);
		im->s->imap_stream = NULL;
	}
	mailimap_free(im->s);
	free(im);
}

uint32_t
imap_uidvalidity(const struct imap *im)
{
	return im->s->imap_selection_info
	    ? im->s->imap_selection_info->sel_uidvalidity
	    : 0;
}

bool
imap_has_idle(const struct imap *im)
{
	return im->idle;
}

static int
cmp_uid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * One UID SEARCH for the UIDs lo..hi (hi 0: to the last), those above
 * after and in the window appended to *uids.
 */
static enum err
search_window(struct imap *im, uint32_t lo, uint32_t hi, uint32_t after,
    uint32_t **uids, size_t *n, size_t *cap, char *err, size_t errn)
{
	struct mailimap_search_key *key;
	clist *res = NULL;
	clistiter *it;
	int r;

	key = mailimap_search_key_new_uid(mailimap_set_new_interval(lo, hi));
	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_uid_search(im->s, NULL, key, &res);
	mailimap_search_key_free(key);
	if (r != MAILIMAP_NO_ERROR) {
		/* A refused search still hands over what the server sent
		 * before refusing (libetpan 1.9.4): ours to free. */
		if (res != NULL)
			mailimap_search_result_free(res);
		return fail(im, err, errn, ERR_NET, "UID SEARCH", r);
	}
	/* "N:*" always matches the highest UID, even when it is below N;
	 * and a server may answer what it was not asked. */
	for (it = clist_begin(res); it != NULL; it = clist_next(it)) {
		uint32_t u = *(uint32_t *)clist_content(it);

		if (u <= after || u < lo || (hi != 0 && u > hi))
			continue;
		*uids = xgrow(*uids, cap, *n + 1, sizeof(**uids));
		(*uids)[(*n)++] = u;
	}
	mailimap_search_result_free(res);
	return ERR_OK;
}

/*
 * An answer to UID SEARCH is one line that libetpan keeps whole and
 * turns into a list of about ten times its size (69 MB of UIDs took
 * 717 MB); the guard refuses one above 1 MB (imap_guard.c).  So a large
 * mailbox is asked in windows of IMAP_SEARCH_SPAN UIDs, whose answers
 * stay under 550 KB (50,000 UIDs of 10 digits and their blanks), as far
 * as the UIDNEXT of its SELECT says there can be mail; the rest, mail
 * that came since, in one search to the end.  The first window that
 * holds any UIDs is the answer: the caller asks again after its last.
 */
enum err
imap_search(struct imap *im, uint32_t after, uint32_t **uids, size_t *n,
    char *err, size_t errn)
{
	const struct mailimap_selection_info *si = im->s->imap_selection_info;
	uint32_t next = si != NULL ? si->sel_uidnext : 0, lo = after + 1, hi;
	size_t cap = 0;
	enum err e;

	*uids = NULL;
	*n = 0;
	if (after == UINT32_MAX)
		return ERR_OK;
	for (;;) {
		hi = next > lo && next - lo > IMAP_SEARCH_SPAN
		    ? lo + (IMAP_SEARCH_SPAN - 1)
		    : 0;
		e = search_window(im, lo, hi, after, uids, n, &cap, err, errn);
		if (e != ERR_OK || *n > 0 || hi == 0)
			break;
		lo = hi + 1;
	}
	if (e != ERR_OK) {
		free(*uids);
		*uids = NULL;
		*n = 0;
	} else if (*n > 1) {
		size_t i, k = 1;

		/* Ascending and each once, whatever the server repeats
		 * (found by fuzz_imap). */
		qsort(*uids, *n, sizeof(**uids), cmp_uid);
		for (i = 1; i < *n; i++)
			if ((*uids)[i] != (*uids)[k - 1])
				(*uids)[k++] = (*uids)[i];
		*n = k;
	}
	return e;
}

static struct mailimap_set *
uid_set(const uint32_t *uids, size_t n)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	size_t i;

	for (i = 0; i < n; i++)
		mailimap_set_add_single(set, uids[i]);
	return set;
}

struct fetched {
	uint32_t uid;
	uint32_t size;
	const char *raw;
	size_t n;
};

static int
cmp_fetched(const void *a, const void *b)
{
	return cmp_uid(&((const struct fetched *)a)->uid,
	    &((const struct fetched *)b)->uid);
}

/* The UID, size and body of one FETCH response. */
static void
read_att(struct mailimap_msg_att *att, struct fetched *f)
{
	clistiter *it;

	memset(f, 0, sizeof(*f));
	for (it = clist_begin(att->att_list); it; it = clist_next(it)) {
		struct mailimap_msg_att_item *item = clist_content(it);
		struct mailimap_msg_att_static *s;

		if (item->att_type != MAILIMAP_MSG_ATT_ITEM_STATIC)
			continue;
		s = item->att_data.att_static;
		if (s->att_type == MAILIMAP_MSG_ATT_UID)
			f->uid = s->att_data.att_uid;
		else if (s->att_type == MAILIMAP_MSG_ATT_RFC822_SIZE)
			f->size = s->att_data.att_rfc822_size;
		else if (s->att_type == MAILIMAP_MSG_ATT_BODY_SECTION &&
		    s->att_data.att_body_section->sec_body_part != NULL) {
			f->raw = s->att_data.att_body_section->sec_body_part;
			f->n = s->att_data.att_body_section->sec_length;
		}
	}
}

/* UID FETCH of uids[0..n) (UID, RFC822.SIZE, the first part bytes of
 * the body) into *res. */
static enum err
fetch_cmd(struct imap *im, const uint32_t *uids, size_t n, size_t part,
    clist **res, char *err, size_t errn)
{
	struct mailimap_fetch_type *ft =
	    mailimap_fetch_type_new_fetch_att_list_empty();
	struct mailimap_set *set = uid_set(uids, n);
	int r;

	*res = NULL;
	mailimap_fetch_type_new_fetch_att_list_add(
	    ft, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(
	    ft, mailimap_fetch_att_new_rfc822_size());
	mailimap_fetch_type_new_fetch_att_list_add(ft,
	    mailimap_fetch_att_new_body_peek_section_partial(
	        mailimap_section_new(NULL), 0, (uint32_t)part));
	/* The mails asked for, each cut at part bytes, are all the
	 * literals its answer needs; a little more for a server's oddities.
	 * A large mail fetched again alone has part at the limit, up to
	 * LIMIT_MAIL_STORE, which a literal may be (imap_guard.c). */
	arm(im, (uint64_t)n * part + IMAP_GUARD_TEXT_MAX);
	r = mailimap_uid_fetch(im->s, set, ft, res);
	mailimap_fetch_type_free(ft);
	mailimap_set_free(set);
	/* Unlike UID SEARCH, a refused UID FETCH has freed its list
	 * already (libetpan 1.9.4 goes through its QRESYNC code, which
	 * frees it and leaves res pointing at it: not ours to touch).  It
	 * only refuses an answer without a FETCH in it, though: with one,
	 * a NO still counts as done. */
	if (r != MAILIMAP_NO_ERROR) {
		*res = NULL;
		return fail(im, err, errn, ERR_NET, "UID FETCH", r);
	}
	return ERR_OK;
}

/* Whether f holds less than the whole mail (its RFC822.SIZE, or when
 * the server gave none, as much as was asked for). */
static bool
cut_short(const struct fetched *f, size_t part)
{
	return f->size ? f->n < f->size : f->n >= part;
}

/* Mail uid again alone, whole (up to limit bytes), to fn. */
static enum err
fetch_whole(struct imap *im, uint32_t uid, size_t limit, imap_mail_fn *fn,
    void *arg, char *err, size_t errn)
{
	struct fetched f;
	clist *res;
	clistiter *it;
	enum err e = fetch_cmd(im, &uid, 1, limit, &res, err, errn);

	if (e != ERR_OK)
		return e;
	for (it = clist_begin(res); it; it = clist_next(it)) {
		read_att(clist_content(it), &f);
		if (f.uid == uid && f.raw != NULL)
			break;
	}
	if (it == NULL)
		e = fail(im, err, errn, ERR_NET, "UID FETCH of one mail",
		    MAILIMAP_ERROR_FETCH);
	else if (f.n > limit)
		e = fn(arg, uid, NULL, f.n);
	else
		e = fn(arg, uid, f.raw, f.n);
	mailimap_fetch_list_free(res);
	return e;
}

enum err
imap_fetch(struct imap *im, const uint32_t *uids, size_t n, size_t limit,
    imap_mail_fn *fn, void *arg, char *err, size_t errn)
{
	size_t part;
	struct fetched *fs = NULL;
	uint32_t *asked;
	size_t nf = 0, cap = 0, i;
	clist *res = NULL;
	clistiter *it;
	enum err e;

	/* The guard lets no literal above LIMIT_MAIL_STORE through. */
	if (limit > LIMIT_MAIL_STORE)
		limit = LIMIT_MAIL_STORE;
	part = limit < IMAP_PART ? limit : IMAP_PART;
	if ((e = fetch_cmd(im, uids, n, part, &res, err, errn)) != ERR_OK)
		return e;
	/* Only the mails asked for, each once, in UID order: a FETCH the
	 * server sent on its own (a flag change) has no body, and one for a
	 * UID we did not ask for, or a second one for the same UID, is not
	 * ours either (found by fuzz_imap). */
	asked = xmalloc((n ? n : 1) * sizeof(*asked));
	memcpy(asked, uids, n * sizeof(*asked));
	qsort(asked, n, sizeof(*asked), cmp_uid);
	for (it = clist_begin(res); it; it = clist_next(it)) {
		fs = xgrow(fs, &cap, nf + 1, sizeof(*fs));
		read_att(clist_content(it), &fs[nf]);
		if (fs[nf].uid != 0 && fs[nf].raw != NULL &&
		    bsearch(&fs[nf].uid, asked, n, sizeof(*asked), cmp_uid))
			nf++;
	}
	if (nf > 1)
		qsort(fs, nf, sizeof(*fs), cmp_fetched);
	for (i = 0; i < nf && e == ERR_OK; i++) {
		const struct fetched *f = &fs[i];

		if (i > 0 && f->uid == fs[i - 1].uid)
			continue;
		/* A server may send more than it was asked for. */
		if (f->size > limit || f->n > limit)
			e = fn(
			    arg, f->uid, NULL, f->size > f->n ? f->size : f->n);
		else if (cut_short(f, part))
			e = fetch_whole(im, f->uid, limit, fn, arg, err, errn);
		else
			e = fn(arg, f->uid, f->raw, f->n);
	}
	free(asked);
	free(fs);
	mailimap_fetch_list_free(res);
	return e;
}

enum err
imap_mark(struct imap *im, const uint32_t *uids, size_t n, const char *seen,
    char *err, size_t errn)
{
	struct mailimap_flag_list *fl;
	struct mailimap_store_att_flags *sa;
	struct mailimap_set *set = uid_set(uids, n);
	const char *folder = strncmp(seen, "move:", 5) == 0 ? seen + 5 : NULL;
	int r;

	arm(im, IMAP_GUARD_TEXT_MAX);
	if (folder && im->move) {
		r = mailimap_uid_move(im->s, set, folder);
		mailimap_set_free(set);
		return r == MAILIMAP_NO_ERROR
		    ? ERR_OK
		    : fail(im, err, errn, ERR_NET, "UID MOVE", r);
	}
	if (folder &&
	    (r = mailimap_uid_copy(im->s, set, folder)) != MAILIMAP_NO_ERROR) {
		mailimap_set_free(set);
		return fail(im, err, errn, ERR_NET, "UID COPY", r);
	}
	fl = mailimap_flag_list_new_empty();
	mailimap_flag_list_add(fl,
	    folder ? mailimap_flag_new_deleted() : mailimap_flag_new_seen());
	sa = mailimap_store_att_flags_new_add_flags_silent(fl);
	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_uid_store(im->s, set, sa);
	mailimap_store_att_flags_free(sa);
	if (r == MAILIMAP_NO_ERROR && folder) {
		arm(im, IMAP_GUARD_TEXT_MAX);
		r = im->uidplus ? mailimap_uid_expunge(im->s, set)
		                : mailimap_expunge(im->s);
	}
	mailimap_set_free(set);
	return r == MAILIMAP_NO_ERROR
	    ? ERR_OK
	    : fail(im, err, errn, ERR_NET, "UID STORE", r);
}

bool
imap_news(struct imap *im)
{
	struct mailimap_selection_info *si = im->s->imap_selection_info;
	bool news = si != NULL && si->sel_has_exists;

	if (si != NULL)
		si->sel_has_exists = 0;
	return news;
}

enum err
imap_idle(struct imap *im, char *err, size_t errn)
{
	int r;

	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_idle(im->s);
	return r == MAILIMAP_NO_ERROR ? ERR_OK
	                              : fail(im, err, errn, ERR_NET, "IDLE", r);
}

int
imap_fd(const struct imap *im)
{
	return mailimap_idle_get_fd(im->s);
}

bool
imap_ready(struct imap *im)
{
	struct pollfd p = { imap_fd(im), POLLIN, 0 };

	if (im->s->imap_stream->read_buffer_len > 0 ||
	    imap_tls_pending(mailstream_get_low(im->s->imap_stream)))
		return true;
	return p.fd >= 0 && poll(&p, 1, 0) > 0;
}

enum err
imap_idle_done(struct imap *im, char *err, size_t errn)
{
	int r;

	/* What the server said during IDLE is read with DONE's answer. */
	arm(im, IMAP_GUARD_TEXT_MAX);
	r = mailimap_idle_done(im->s);
	return r == MAILIMAP_NO_ERROR ? ERR_OK
	                              : fail(im, err, errn, ERR_NET, "DONE", r);
}
