#include "bot/workflow/trust.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bot/workflow/devsig.h"
#include "bot/workflow/dkim.h"
#include "parsers/addr.h"
#include "util/ascii.h"
#include "util/xalloc.h"

/* Seconds a DNS lookup of a DKIM key may take. */
#define DKIM_TIMEOUT 5

struct trust {
	const struct config *conf;
	/* An import judges on its reading thread and its writing one: the
	 * verifier (its key cache, its library handle, which trim_cache()
	 * may replace) is one thread's at a time. */
	pthread_mutex_t mu;
	struct dkimv *dkim; /* made at the first signed mail */
};

struct trust *
trust_new(const struct config *conf)
{
	struct trust *t = xcalloc(1, sizeof(*t));

	t->conf = conf;
	pthread_mutex_init(&t->mu, NULL);
	return t;
}

void
trust_free(struct trust *t)
{
	if (t == NULL)
		return;
	dkimv_free(t->dkim);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

/* The header a mail must carry once, given twice, or NULL. */
static const char *
doubled(const struct hdr *h)
{
	static const char *const once[] = { "From", "Sender", "Date",
		"Subject" };
	size_t i, k, seen;

	for (k = 0; k < sizeof(once) / sizeof(once[0]); k++) {
		seen = 0;
		for (i = 0; i < h->n; i++)
			if (str_ieqs(h->f[i].name, once[k]) && ++seen > 1)
				return once[k];
	}
	return NULL;
}

static bool
has_header(const struct hdr *h, const char *name)
{
	return hdr_get(h, name) != NULL;
}

/* A DKIM signature of the From domain (or a parent of it) that
 * verifies: "dkim d=..."; else NULL and *why. */
static const char *
by_dkim(struct trust *t, struct arena *a, const struct mail *m, const char *raw,
    size_t n, const char **why)
{
	const char **d = NULL, *from = addr_domain(m->from.email);
	size_t i;
	bool ok;

	pthread_mutex_lock(&t->mu);
	if (t->dkim == NULL)
		t->dkim = dkimv_new(
		    t->conf ? t->conf->auth_dkim_keys : NULL, DKIM_TIMEOUT);
	ok = t->dkim != NULL &&
	    dkimv_verify(t->dkim, a, raw, n, &d, why) == ERR_OK;
	pthread_mutex_unlock(&t->mu);
	if (!ok) {
		*why = "DKIM could not be checked";
		return NULL;
	}
	for (i = 0; d[i]; i++)
		if (addr_dkim_covers(a, from, d[i]))
			return arena_printf(a, "dkim d=%s", d[i]);
	if (d[0])
		*why = arena_printf(a,
		    "the DKIM signature of %s is not one of the From "
		    "domain %s",
		    d[0], from);
	return NULL;
}

/* A developer signature of the From address that verifies. */
static const char *
by_patatt(struct trust *t, struct arena *a, const struct mail *m,
    const char *raw, size_t n, const char **why)
{
	const char *id = devsig_identity(a,
	    t->conf ? t->conf->auth_keyring : NULL, raw, n, m->from.email, why);

	if (id == NULL)
		return NULL;
	if (addr_same(id, m->from.email))
		return arena_printf(a, "patatt i=%s", id);
	*why = arena_printf(
	    a, "the developer signature is %s's, not the From address's", id);
	return NULL;
}

void
trust_judge(struct trust *t, struct arena *a, const struct trust_road *road,
    const struct mail *m, const char *raw, size_t n, const char **proof,
    const char **note)
{
	const char *twice = doubled(&m->hdr), *why = NULL, *relay = NULL;
	const char *sig_why = NULL;

	*proof = NULL;
	*note = NULL;
	if (t->conf && t->conf->auth_require == CONF_AUTH_NONE) {
		*proof = "none required";
		return;
	}
	if (twice) {
		*note = arena_printf(a, "two %s headers", twice);
		return;
	}
	if (m->from.email == NULL || *m->from.email == '\0') {
		*note = "no From address";
		return;
	}
	if (road->authserv_id) {
		if (addr_auth_check(a, &m->hdr, road->authserv_id,
		        m->from.email, &why) == ADDR_AUTH_PASS) {
			*proof = arena_printf(a, "relay %s", road->authserv_id);
			return;
		}
		relay =
		    arena_printf(a, "%s (relay %s)", why, road->authserv_id);
	}
	if (!road->verify) {
		*note = relay ? relay : "imported: no signature was checked";
		return;
	}
	if (has_header(&m->hdr, "X-Developer-Signature") &&
	    (*proof = by_patatt(t, a, m, raw, n, &sig_why)) != NULL)
		return;
	if (has_header(&m->hdr, "DKIM-Signature") &&
	    (*proof = by_dkim(t, a, m, raw, n, &why)) != NULL)
		return;
	if (has_header(&m->hdr, "DKIM-Signature"))
		*note = why;
	else if (sig_why)
		*note = sig_why;
	else if (relay)
		*note = relay;
	else
		*note = road->authserv_id
		    ? "no DKIM or developer signature"
		    : "no DKIM or developer signature, and this road names "
		      "no relay";
}

bool
trust_may_wait(
    const struct trust *t, const struct trust_road *road, const struct mail *m)
{
	if (t->conf && t->conf->auth_require == CONF_AUTH_NONE)
		return false;
	return road->verify && has_header(&m->hdr, "DKIM-Signature");
}

/* Is the address (n bytes at a) equal to the string s, ignoring case? */
static bool
addr_eq(const char *a, size_t n, const char *s)
{
	return strlen(s) == n && ascii_strnicmp(a, s, n) == 0;
}

/* Do alias lines i and k share an address? */
static bool
aliases_meet(const char *const ai[2], const size_t li[2],
    const char *const ak[2], const size_t lk[2])
{
	size_t j, k;

	for (j = 0; j < 2; j++)
		for (k = 0; k < 2; k++)
			if (li[j] == lk[k] &&
			    ascii_strnicmp(ai[j], ak[k], li[j]) == 0)
				return true;
	return false;
}

/*
 * The same ignoring case, or joined by a chain of [mailmap] alias lines:
 * the lines that name x's person grow to a fixed point.  The lines are
 * few; this costs nothing next to the mail that asks.
 */
bool
trust_same_person(const struct config *conf, const char *x, const char *y)
{
	size_t n, i, k;
	bool *in, grew = true, same = false;

	if (x == NULL || y == NULL || *x == '\0' || *y == '\0')
		return false;
	if (ascii_stricmp(x, y) == 0)
		return true;
	if (conf == NULL || (n = conf->mailmap.n) == 0)
		return false;
	in = xcalloc(n, sizeof(*in));
	while (grew && !same) {
		grew = false;
		for (i = 0; i < n; i++) {
			const char *ai[2];
			size_t li[2];

			if (in[i] ||
			    !config_mailmap_split(conf->mailmap.v[i], ai, li))
				continue;
			in[i] = addr_eq(ai[0], li[0], x) ||
			    addr_eq(ai[1], li[1], x);
			for (k = 0; k < n && !in[i]; k++) {
				const char *ak[2];
				size_t lk[2];

				in[i] = in[k] &&
				    config_mailmap_split(
				        conf->mailmap.v[k], ak, lk) &&
				    aliases_meet(ai, li, ak, lk);
			}
			if (in[i]) {
				grew = true;
				same = same || addr_eq(ai[0], li[0], y) ||
				    addr_eq(ai[1], li[1], y);
			}
		}
	}
	free(in);
	return same;
}

/* MAINTAINERS F: patterns: "dir/" is everything below dir, a pattern
 * with wildcards matches like the shell (not across '/'), anything else
 * is a file or the directory of that name. */
static bool
path_matches(const char *pattern, const char *file)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '/')
		return strncmp(file, pattern, n) == 0;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, file, FNM_PATHNAME) == 0;
	return strcmp(pattern, file) == 0 ||
	    (strncmp(file, pattern, n) == 0 && file[n] == '/');
}

/* Is maintainer entry m, of email, for project? */
static bool
entry_of(const struct config *conf, const struct conf_maintainer *m,
    const char *project, const char *email)
{
	return trust_same_person(conf, m->email, email) &&
	    (m->project == NULL ||
	        (project && strcmp(m->project, project) == 0));
}

/* Does one of email's entries for project cover file? */
static bool
covers(const struct config *conf, const char *project, const char *email,
    const char *file)
{
	size_t i, f;

	for (i = 0; i < conf->nmaintainers; i++) {
		const struct conf_maintainer *m = &conf->maintainers[i];

		if (!entry_of(conf, m, project, email))
			continue;
		if (m->paths.n == 0)
			return true;
		for (f = 0; f < m->paths.n; f++)
			if (path_matches(m->paths.v[f], file))
				return true;
	}
	return false;
}

bool
trust_maintains(const struct config *conf, const char *project,
    const char *email, const char *files, struct buf *outside)
{
	struct str rest, line;
	bool found = false, all = false;
	size_t i;

	if (conf == NULL || email == NULL)
		return false;
	for (i = 0; i < conf->nmaintainers; i++) {
		const struct conf_maintainer *m = &conf->maintainers[i];

		if (entry_of(conf, m, project, email)) {
			found = true;
			all |= m->paths.n == 0;
		}
	}
	if (!found || all)
		return found;
	if (files == NULL) {
		buf_addf(outside, "%sall of %s", outside->n ? ", " : "",
		    project && *project ? project : "this list");
		return true;
	}
	rest = str_from(files);
	while (str_nextline(&rest, &line)) {
		char *file = str_dup(line);

		if (!covers(conf, project, email, file) &&
		    !strstr(buf_cstr(outside), file))
			buf_addf(outside, "%s%s", outside->n ? ", " : "", file);
		free(file);
	}
	return true;
}

bool
trust_ci(const struct config *conf, const char *email)
{
	size_t i;

	for (i = 0; conf && i < conf->ncis; i++)
		if (trust_same_person(conf, conf->cis[i].email, email))
			return true;
	return false;
}

bool
trust_trailer_verified(const struct config *conf, const char *from_email,
    const struct trailer *t, bool authenticated)
{
	if (!authenticated)
		return false;
	if (t->person.email == NULL)
		return true;
	return trust_same_person(conf, t->person.email, from_email);
}
