/*
 * DKIM verification (RFC 6376) with libopendkim 2.11, behind our own
 * words.  What its header leaves open, as its sources (libopendkim/dkim.c,
 * dkim-keys.c, dkim-canon.c of 2.11.0-Beta2) show it:
 *
 * - dkim_header() takes one field as it stands in the mail, folding
 *   included, without the line break that ends it.  DKIM_LIBFLAGS_FIXCRLF
 *   makes a bare LF in it CRLF but keeps the field's old length: a folded
 *   field stored with LF loses one byte at its end per fold, and a
 *   DKIM-Signature is always folded, so its b= comes out cut and no mail
 *   stored with LF verified (relaxed or simple; tried on
 *   tests/fixtures/dkim/).  So we hand over fields (and the body) with
 *   CRLF line ends ourselves, and FIXCRLF only backs that up.
 * - The key file (DKIM_QUERY_FILE) is read line by line with fgets(): a
 *   line starting with '#' is skipped, the name runs to the first blank
 *   and is compared without regard to case, the rest of the line is the
 *   TXT record.  A line longer than the key buffer (1 KB) is cut: 4096-bit
 *   RSA keys fit.  The file is opened again for every key looked up.
 * - A signature field whose tags do not parse is dropped before the list
 *   of signatures is made: a mail with only such ones looks unsigned
 *   (DKIM_STAT_NOSIG from dkim_eoh()).  dkim_eoh() also fails when there
 *   is no From: it can read an address from.
 * - A signature whose h= lacks "from" gets DKIM_SIGERROR_INVALID_H and is
 *   never checked; its body hash is compared only when its header hash
 *   verified.
 * - An l= longer than the canonical body fails (DKIM_SIGERROR_TOOLARGE_L);
 *   a shorter one passes, since only l= bytes are hashed and the library
 *   cannot say whether more followed: we measure the canonical body
 *   ourselves (canon_len()).
 * - Its own DNS stub (dkim_res_query()) calls res_nquery() with the
 *   resolver's defaults: 5 s a try, two tries a name server, whatever
 *   DKIM_OPTS_TIMEOUT says (that timeout is only for asynchronous
 *   resolvers).  glibc goes on waiting when a signal interrupts it, so a
 *   SIGTERM waited for the whole of a lookup whose server did not answer.
 *   We give the library our own stub (dns_start() and its fellows): the
 *   same res_nquery() on a resolver state of ours, one try of DNS_TRY_S
 *   seconds a name server.
 * - The key cache (DKIM_LIBFLAGS_CACHE, an in-memory BerkeleyDB) keeps a
 *   key for its DNS TTL and never shrinks by itself: dkim_flush_cache()
 *   drops the expired keys, and we drop the whole cache when that is not
 *   enough (trim_cache()).
 */
#include "bot/workflow/dkim.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <opendkim/dkim.h>
#include <resolv.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

/* libopendkim's own default, for a timeout of 0. */
#define DEFAULT_TIMEOUT 10
/* Seconds a key's DNS query waits for a name server, once: what a stop
 * (SIGTERM) may have to wait for a lookup in progress. */
#define DNS_TRY_S 1

/* The key cache: its size is looked at every CACHE_CHECK signatures
 * (BerkeleyDB counts its keys by walking them), and held under
 * CACHE_MAX_KEYS keys, a few MB (each entry is 1 KB of record).  A list
 * sees far fewer signing keys than that. */
#define CACHE_CHECK 256
#define CACHE_MAX_KEYS 4096

struct dkimv {
	DKIM_LIB *lib;
	char *keyfile; /* NULL: DNS */
	unsigned timeout_s;
	unsigned since_check; /* signatures since the cache was measured */
};

/* How far a signature got, worst first: of several signatures none of
 * which counts, the reason told is that of the one that got furthest. */
enum rank {
	RANK_NONE,
	RANK_MALFORMED, /* the library would not check it */
	RANK_NO_FROM, /* h= leaves From out */
	RANK_KEY, /* no key, or one that cannot be used */
	RANK_BAD_SIG, /* the header hash does not verify */
	RANK_BODY, /* it does, but the body does not */
	RANK_POLICY, /* it verifies, but we do not take it */
	RANK_OK,
};

/* ---- the DNS stub: res_nquery() on a state of our own ---- */

/* A query's outcome, told by dns_wait(). */
struct dns_q {
	size_t len;
	int error; /* DKIM_DNS_SUCCESS or DKIM_DNS_ERROR */
};

static int
dns_init(void **srv)
{
	struct __res_state *rs = xcalloc(1, sizeof(*rs));

	if (res_ninit(rs) != 0) {
		free(rs);
		return -1;
	}
	rs->retrans = DNS_TRY_S;
	rs->retry = 1;
	*srv = rs;
	return 0;
}

static void
dns_close(void *srv)
{
	if (srv != NULL) {
		res_nclose(srv);
		free(srv);
	}
}

/*
 * Ask, and wait for the answer here (the resolver is synchronous).  A
 * name that does not exist, or has no record of the type, is answered
 * as an NXDOMAIN header, so that the library tells "no key" from a
 * failed lookup, as its own stub does.
 */
static int
dns_start(void *srv, int type, unsigned char *query, unsigned char *buf,
    size_t buflen, void **qh)
{
	struct dns_q *q = xcalloc(1, sizeof(*q));
	int n = res_nquery(srv, (const char *)query, C_IN, type, buf,
	    buflen > INT_MAX ? INT_MAX : (int)buflen);

	q->error = DKIM_DNS_SUCCESS;
	if (n >= 0) {
		q->len = (size_t)n;
	} else if ((h_errno == HOST_NOT_FOUND || h_errno == NO_DATA) &&
	    buflen >= HFIXEDSZ) {
		HEADER *h = (HEADER *)(void *)buf;

		memset(buf, 0, HFIXEDSZ);
		h->qr = 1;
		h->rcode = NXDOMAIN;
		q->len = HFIXEDSZ;
	} else {
		q->error = DKIM_DNS_ERROR;
	}
	*qh = q;
	return 0;
}

static int
dns_wait(void *srv, void *qh, struct timeval *to, size_t *bytes, int *error,
    int *dnssec)
{
	const struct dns_q *q = qh;

	(void)srv;
	(void)to;
	if (bytes != NULL)
		*bytes = q->len;
	if (error != NULL)
		*error = q->error;
	if (dnssec != NULL)
		*dnssec = DKIM_DNSSEC_UNKNOWN;
	return DKIM_DNS_SUCCESS;
}

static int
dns_cancel(void *srv, void *qh)
{
	(void)srv;
	free(qh);
	return 0;
}

/* The library set up as v asks: keys from the file, or from DNS with a
 * timeout and a cache.  NULL (logged) when it fails. */
static DKIM_LIB *
lib_open(const struct dkimv *v)
{
	DKIM_LIB *lib = dkim_init(NULL, NULL);
	unsigned int flags = DKIM_LIBFLAGS_FIXCRLF;
	DKIM_STAT st;

	if (lib == NULL) {
		log_err("dkim: libopendkim: dkim_init() failed");
		return NULL;
	}
	if (v->keyfile != NULL) {
		dkim_query_t q = DKIM_QUERY_FILE;

		st = dkim_options(
		    lib, DKIM_OP_SETOPT, DKIM_OPTS_QUERYMETHOD, &q, sizeof(q));
		if (st == DKIM_STAT_OK)
			st = dkim_options(lib, DKIM_OP_SETOPT,
			    DKIM_OPTS_QUERYINFO, v->keyfile,
			    strlen(v->keyfile));
	} else {
		unsigned int t = v->timeout_s;

		if (dkim_libfeature(lib, DKIM_FEATURE_QUERY_CACHE))
			flags |= DKIM_LIBFLAGS_CACHE;
		dkim_dns_set_init(lib, dns_init);
		dkim_dns_set_close(lib, dns_close);
		dkim_dns_set_query_start(lib, dns_start);
		dkim_dns_set_query_waitreply(lib, dns_wait);
		dkim_dns_set_query_cancel(lib, dns_cancel);
		st = dkim_options(
		    lib, DKIM_OP_SETOPT, DKIM_OPTS_TIMEOUT, &t, sizeof(t));
	}
	if (st == DKIM_STAT_OK)
		st = dkim_options(lib, DKIM_OP_SETOPT, DKIM_OPTS_FLAGS, &flags,
		    sizeof(flags));
	if (st != DKIM_STAT_OK) {
		log_err("dkim: libopendkim: cannot set it up: %s",
		    dkim_getresultstr(st));
		dkim_close(lib);
		return NULL;
	}
	return lib;
}

struct dkimv *
dkimv_new(const char *keyfile, unsigned timeout_s)
{
	struct dkimv *v = xcalloc(1, sizeof(*v));
	char q[256];
	int fd;

	v->timeout_s = timeout_s ? timeout_s : DEFAULT_TIMEOUT;
	if (keyfile != NULL) {
		/* The library keeps the name in a PATH_MAX buffer, cut
		 * silently; and finds a missing file only at the first
		 * signature.  Both are configuration errors: say so now. */
		if (strlen(keyfile) >= PATH_MAX) {
			log_err("dkim: %s: name too long",
			    log_quote(q, sizeof(q), keyfile, strlen(keyfile)));
			goto fail;
		}
		fd = open(keyfile, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			log_err("dkim: %s: %s",
			    log_quote(q, sizeof(q), keyfile, strlen(keyfile)),
			    strerror(errno));
			goto fail;
		}
		close(fd);
		v->keyfile = xstrdup(keyfile);
	}
	v->lib = lib_open(v);
	if (v->lib == NULL)
		goto fail;
	return v;
fail:
	dkimv_free(v);
	return NULL;
}

void
dkimv_free(struct dkimv *v)
{
	if (v == NULL)
		return;
	if (v->lib != NULL)
		dkim_close(v->lib);
	free(v->keyfile);
	free(v);
}

/*
 * Keep the key cache bounded: every CACHE_CHECK signatures, measure it;
 * over CACHE_MAX_KEYS drop the expired keys, and when that is not enough,
 * start a new library handle with an empty cache.
 */
static void
trim_cache(struct dkimv *v, unsigned nsigs)
{
	unsigned int keys = 0;
	DKIM_LIB *fresh;

	v->since_check += nsigs;
	if (v->keyfile != NULL || v->since_check < CACHE_CHECK)
		return;
	v->since_check = 0;
	if (dkim_getcachestats(v->lib, NULL, NULL, NULL, &keys, false) !=
	        DKIM_STAT_OK ||
	    keys <= CACHE_MAX_KEYS)
		return;
	(void)dkim_flush_cache(v->lib);
	if (dkim_getcachestats(v->lib, NULL, NULL, NULL, &keys, false) !=
	        DKIM_STAT_OK ||
	    keys <= CACHE_MAX_KEYS)
		return;
	fresh = lib_open(v);
	if (fresh == NULL)
		return; /* logged; the old cache serves on */
	log_info(
	    "dkim: key cache over %u keys: started afresh", CACHE_MAX_KEYS);
	dkim_close(v->lib);
	v->lib = fresh;
}

/*
 * p[0..n) with every line break CRLF (a bare LF or CR becomes one), into
 * out (2 * n bytes are enough); returns the length.
 */
static size_t
to_crlf(const char *p, size_t n, char *out)
{
	size_t i, j = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '\r' || p[i] == '\n') {
			out[j++] = '\r';
			out[j++] = '\n';
			if (p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
				i++;
			continue;
		}
		out[j++] = p[i];
	}
	return j;
}

/*
 * The length of a CRLF body in DKIM's canonical form (RFC 6376 §3.4.3,
 * §3.4.4): "simple" drops the empty lines at the end and keeps one CRLF
 * (an empty body is CRLF); "relaxed" also drops the blanks at the end of
 * each line, makes runs of blanks one space, and leaves an empty body
 * empty.  A last line without CRLF gets one.
 */
static size_t
canon_len(const char *p, size_t n, bool relaxed)
{
	size_t total = 0, upto = 0, i = 0;

	while (i < n) {
		size_t len = 0, start = i;
		bool blank = false;

		for (;
		     i < n && !(p[i] == '\r' && i + 1 < n && p[i + 1] == '\n');
		     i++) {
			if (relaxed && (p[i] == ' ' || p[i] == '\t')) {
				blank = true;
				continue;
			}
			if (blank) /* a run before a word: one space */
				len++;
			blank = false;
			len++;
		}
		if (!relaxed)
			len = i - start;
		i += i < n ? 2 : 0;
		total += len + 2;
		if (len > 0)
			upto = total;
	}
	if (relaxed)
		return upto;
	return upto > 0 ? upto : 2;
}

/* A DNS name as selectors and domains are: letters, digits, '-', '_'
 * and '.', at most 253 bytes.  Only such a name is quoted in a reason. */
static bool
dns_name(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!ascii_isalnum(s[i]) && s[i] != '-' && s[i] != '_' &&
		    s[i] != '.')
			return false;
	return i > 0 && i <= 253;
}

/* "<selector>._domainkey.<domain>" of sig, or words that stand for it. */
static const char *
key_name(struct arena *a, DKIM_SIGINFO *sig)
{
	const char *s = (const char *)dkim_sig_getselector(sig);
	const char *d = (const char *)dkim_sig_getdomain(sig);

	if (s == NULL || d == NULL || !dns_name(s) || !dns_name(d))
		return "the signature's selector and domain";
	return arena_printf(a, "%s._domainkey.%s", s, d);
}

/* Whether the h= of sig names "from" (blanks around names allowed). */
static bool
signs_from(DKIM_SIGINFO *sig)
{
	const char *h =
	    (const char *)dkim_sig_gettagvalue(sig, false, (u_char *)"h");
	struct str rest, name;

	if (h == NULL)
		return false;
	rest = str_from(h);
	while (rest.n > 0) {
		long colon = str_find(rest, ':');

		name = str_trim(
		    str_make(rest.p, colon < 0 ? rest.n : (size_t)colon));
		if (str_ieqs(name, "from"))
			return true;
		rest = colon < 0 ? str_make(NULL, 0)
		                 : str_skip(rest, (size_t)colon + 1);
	}
	return false;
}

/* Why a signature the library failed does not count. */
static enum rank
failed(struct arena *a, DKIM_SIGINFO *sig, const char **why)
{
	int err = dkim_sig_geterror(sig);

	switch (err) {
	case DKIM_SIGERROR_NOKEY:
		*why = arena_printf(a, "no key for %s", key_name(a, sig));
		return RANK_KEY;
	case DKIM_SIGERROR_KEYFAIL:
		*why = arena_printf(
		    a, "the key for %s could not be fetched", key_name(a, sig));
		return RANK_KEY;
	case DKIM_SIGERROR_DNSSYNTAX:
	case DKIM_SIGERROR_MULTIREPLY:
	case DKIM_SIGERROR_KEYVERSION:
	case DKIM_SIGERROR_KEYUNKNOWNHASH:
	case DKIM_SIGERROR_KEYHASHMISMATCH:
	case DKIM_SIGERROR_NOTEMAILKEY:
	case DKIM_SIGERROR_KEYTYPEMISSING:
	case DKIM_SIGERROR_KEYTYPEUNKNOWN:
	case DKIM_SIGERROR_KEYREVOKED:
	case DKIM_SIGERROR_KEYDECODE:
	case DKIM_SIGERROR_KEYTOOSMALL:
	case DKIM_SIGERROR_SUBDOMAIN:
		*why = arena_printf(a, "the key for %s cannot be used (%s)",
		    key_name(a, sig), dkim_sig_geterrorstr(err));
		return RANK_KEY;
	case DKIM_SIGERROR_INVALID_H:
		*why = "DKIM signature does not cover From";
		return RANK_NO_FROM;
	case DKIM_SIGERROR_TOOLARGE_L:
		*why = "DKIM signature's l= is longer than the body";
		return RANK_BAD_SIG;
	}
	if ((dkim_sig_getflags(sig) & DKIM_SIGFLAG_PASSED) != 0 &&
	    dkim_sig_getbh(sig) == DKIM_SIGBH_MISMATCH) {
		*why = "the body changed after the DKIM signature";
		return RANK_BODY;
	}
	if (err == DKIM_SIGERROR_BADSIG) {
		*why = "DKIM signature does not verify";
		return RANK_BAD_SIG;
	}
	*why = arena_printf(a, "DKIM signature not checked (%s)",
	    dkim_sig_geterrorstr(err) ? dkim_sig_geterrorstr(err)
	                              : "unknown error");
	return RANK_MALFORMED;
}

/*
 * How far sig gets; *why says why it does not count.  body[0..bn) is the
 * body as handed to the library, for the l= check.
 */
static enum rank
judge(struct arena *a, DKIM *d, DKIM_SIGINFO *sig, const char *body, size_t bn,
    const char **why)
{
	dkim_canon_t hc, bc;
	ssize_t msglen, canonlen, signlen;

	if (!DKIM_SIG_CHECK(sig) || dkim_sig_geterror(sig) != DKIM_SIGERROR_OK)
		return failed(a, sig, why);
	if (!signs_from(sig)) {
		*why = "DKIM signature does not cover From";
		return RANK_NO_FROM;
	}
	if ((dkim_sig_getflags(sig) & DKIM_SIGFLAG_TESTKEY) != 0) {
		/* RFC 6376 §3.6.1: t=y, a domain testing DKIM; its
		 * signatures are not to be told from none. */
		*why = "DKIM key in test mode (t=y)";
		return RANK_POLICY;
	}
	if (dkim_sig_getcanonlen(d, sig, &msglen, &canonlen, &signlen) !=
	        DKIM_STAT_OK ||
	    dkim_sig_getcanons(sig, &hc, &bc) != DKIM_STAT_OK) {
		*why = "DKIM signature not checked (internal error)";
		return RANK_MALFORMED;
	}
	if (signlen >= 0 &&
	    canon_len(body, bn, bc == DKIM_CANON_RELAXED) > (size_t)signlen) {
		*why = "DKIM signature leaves body text after l= unsigned";
		return RANK_POLICY;
	}
	if (!dns_name((const char *)dkim_sig_getdomain(sig))) {
		*why = "DKIM signature's d= is no domain name";
		return RANK_POLICY;
	}
	return RANK_OK;
}

/* A libopendkim failure that is ours, not the mail's: logged once. */
static enum err
internal(DKIM *d, const char *step, DKIM_STAT st)
{
	const char *detail = d ? dkim_geterror(d) : NULL;

	log_err("dkim: %s: %s%s%s", step, dkim_getresultstr(st),
	    detail && *detail ? ": " : "", detail ? detail : "");
	return st == DKIM_STAT_NORESOURCE ? ERR_NOMEM : ERR_INTERNAL;
}

/*
 * Hand the header fields to the library, each as it stands in the mail
 * but with CRLF line breaks.  A signature field whose tags do not parse
 * is kept as a field and marked bad as a signature: it is refused, the
 * others go on.  false with *why when another field is none the library
 * can read (it refuses control characters in a name), or with *e on a
 * failure of its own.
 */
static bool
feed_header(DKIM *d, const struct hdr *h, const char **why, enum err *e)
{
	size_t k, len, max = 0;
	char *scratch;
	bool ok = true;

	for (k = 0; k < h->n; k++) {
		len = (size_t)(h->f[k].value.p + h->f[k].value.n -
		    h->f[k].name.p);
		max = len > max ? len : max;
	}
	/* Within the header block, so within LIMIT_HEADER_SIZE; CRLF at
	 * most doubles it. */
	scratch = xmalloc(2 * max + 1);
	for (k = 0; k < h->n && ok; k++) {
		const char *start = h->f[k].name.p;
		const char *end = h->f[k].value.p + h->f[k].value.n;
		DKIM_STAT st;

		len = to_crlf(start, (size_t)(end - start), scratch);
		st = dkim_header(d, (u_char *)scratch, len);

		if (st == DKIM_STAT_SYNTAX &&
		    str_ieqs(h->f[k].name, "DKIM-Signature")) {
			*why = "DKIM signature malformed";
		} else if (st == DKIM_STAT_SYNTAX) {
			*why = "a header field DKIM cannot read";
			ok = false;
		} else if (st != DKIM_STAT_OK) {
			*e = internal(d, "dkim_header()", st);
			ok = false;
		}
	}
	free(scratch);
	return ok;
}

/* dkim_eoh()'s verdict: true to go on to the body. */
static bool
end_header(DKIM *d, const char **why, enum err *e)
{
	DKIM_STAT st = dkim_eoh(d);

	switch (st) {
	case DKIM_STAT_OK:
		return true;
	case DKIM_STAT_NOSIG:
		*why = "DKIM signature malformed";
		return false;
	case DKIM_STAT_SYNTAX:
		*why = "no From address DKIM can read";
		return false;
	default:
		*e = internal(d, "dkim_eoh()", st);
		return false;
	}
}

/* The verdicts of every signature once the whole mail was read. */
static void
collect(struct arena *a, DKIM *d, const char *body, size_t bn,
    const char ***domains, const char **why)
{
	DKIM_SIGINFO **sigs = NULL;
	enum rank best = RANK_NONE;
	size_t nd = 0, j;
	int ns = 0, k;

	if (dkim_getsiglist(d, &sigs, &ns) != DKIM_STAT_OK || ns <= 0) {
		*why = "DKIM signature malformed";
		return;
	}
	*domains = arena_zalloc(a, ((size_t)ns + 1) * sizeof(**domains));
	for (k = 0; k < ns; k++) {
		const char *w = NULL, *dom;
		enum rank r;
		char *low;

		if ((dkim_sig_getflags(sigs[k]) & DKIM_SIGFLAG_IGNORE) != 0)
			continue;
		r = judge(a, d, sigs[k], body, bn, &w);
		if (r != RANK_OK) {
			if (r > best) {
				best = r;
				*why = w;
			}
			continue;
		}
		dom = (const char *)dkim_sig_getdomain(sigs[k]);
		low = arena_strdup(a, dom);
		ascii_lower(low, strlen(low));
		for (j = 0; j < nd && strcmp((*domains)[j], low) != 0; j++)
			;
		if (j == nd)
			(*domains)[nd++] = low;
	}
	if (nd > 0)
		*why = NULL;
}

enum err
dkimv_verify(struct dkimv *v, struct arena *a, const char *raw, size_t n,
    const char ***domains, const char **why)
{
	const char **none = arena_zalloc(a, sizeof(*none));
	DKIM *d = NULL;
	DKIM_STAT st;
	struct hdr h;
	char *body = NULL;
	size_t k, nsigs = 0, bn = 0;
	enum err e = ERR_OK;

	*domains = none;
	*why = "no DKIM signature";
	if (n > LIMIT_MAIL_SIZE || hdr_split(a, raw, n, &h) != ERR_OK) {
		*why = "the mail is over a limit: DKIM not checked";
		return ERR_OK;
	}
	for (k = 0; k < h.n; k++)
		if (str_ieqs(h.f[k].name, "DKIM-Signature"))
			nsigs++;
	if (nsigs == 0)
		return ERR_OK;
	if (nsigs > LIMIT_DKIM_SIGNATURES) {
		*why = "too many DKIM signatures: none checked";
		return ERR_OK;
	}
	d = dkim_verify(v->lib, (const u_char *)"patchyard", NULL, &st);
	if (d == NULL)
		return internal(NULL, "dkim_verify()", st);
	if (!feed_header(d, &h, why, &e) || !end_header(d, why, &e))
		goto out;
	/* CRLF at most doubles the body. */
	body = xmalloc(2 * (n - h.body_off) + 1);
	bn = to_crlf(raw + h.body_off, n - h.body_off, body);
	if (bn > 0) {
		st = dkim_body(d, (u_char *)body, bn);
		if (st != DKIM_STAT_OK) {
			e = internal(d, "dkim_body()", st);
			goto out;
		}
	}
	st = dkim_eom(d, NULL);
	switch (st) {
	case DKIM_STAT_NORESOURCE:
	case DKIM_STAT_INTERNAL:
	case DKIM_STAT_INVALID:
		e = internal(d, "dkim_eom()", st);
		goto out;
	default:
		break;
	}
	collect(a, d, body, bn, domains, why);
	trim_cache(v, (unsigned)nsigs);
out:
	free(body);
	st = dkim_free(d);
	if (st != DKIM_STAT_OK && e == ERR_OK)
		e = internal(NULL, "dkim_free()", st);
	if (e != ERR_OK)
		*domains = none;
	return e;
}
