/*
 * Fetching upstream and pushing the staging branches with libgit2's
 * transports (local, file://, https, ssh).  Nothing here runs git or a
 * shell; URLs come from the configuration, never from mail.
 */
#include "bot/git/gitremote.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bot/git/gitpriv.h"
#include "util/gitmsg.h"
#include "util/log.h"
#include "util/oid.h"

struct cred_state {
	int tries;
};

/*
 * ssh: ask the agent, once (libgit2 calls again after a refusal and would
 * loop).  Anything else: let libgit2 use what the URL carries.
 */
static int
credentials(git_credential **out, const char *url, const char *user,
    unsigned int allowed, void *payload)
{
	struct cred_state *cs = payload;

	(void)url;
	if (cs->tries++ > 0) {
		git_error_set_str(GIT_ERROR_NET, "authentication refused");
		return GIT_EAUTH;
	}
	if (allowed & GIT_CREDENTIAL_SSH_KEY)
		return git_credential_ssh_key_from_agent(
		    out, user ? user : "git");
	return GIT_PASSTHROUGH;
}

/* Transport trouble is ERR_NET; the rest is git's own failure. */
static enum err
remote_fail(const char *url, const char *what)
{
	const git_error *ge = git_error_last();
	int k = ge ? ge->klass : GIT_ERROR_NONE;

	gitpriv_fail(url, what);
	if (k == GIT_ERROR_NET || k == GIT_ERROR_SSL || k == GIT_ERROR_SSH ||
	    k == GIT_ERROR_HTTP || k == GIT_ERROR_OS)
		return ERR_NET;
	return ERR_GIT;
}

/* libgit2 calls a missing local path an "unsupported URL protocol";
 * say what is wrong instead. */
static bool
local_missing(const char *url)
{
	return (url[0] == '/' || url[0] == '.') && access(url, F_OK) != 0;
}

/*
 * An in-memory remote for url.  url.<base>.insteadOf is not applied: the
 * configured URL is what we use, and libgit2 1.5.1 leaks a pcre2 match
 * block for every config entry it tests against that pattern.
 */
static int
remote_new(git_remote **out, struct gitrepo *r, const char *url)
{
	git_remote_create_options o;

	git_remote_create_options_init(&o, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	o.repository = r->repo;
	o.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	    GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	return git_remote_create_with_opts(out, url, &o);
}

static const git_remote_head *
find_head(git_remote *remote, const char *name)
{
	const git_remote_head **heads;
	size_t n, i;

	if (git_remote_ls(&heads, &n, remote) < 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcmp(heads[i]->name, name) == 0)
			return heads[i];
	return NULL;
}

/* The message of the last libgit2 error into why (when not NULL). */
static void
say_why(char *why, size_t n, const char *fallback)
{
	const git_error *ge = git_error_last();
	char plain[1024];

	if (why && n)
		snprintf(why, n, "%s",
		    ge && ge->message && *ge->message
		        ? gitmsg_plain(plain, sizeof(plain), ge->message)
		        : fallback);
}

/* "branch" is refs/heads/branch; "tags/x" and "refs/..." name refs. */
static int
remote_ref(char *out, size_t n, const char *ref)
{
	if (strncmp(ref, "refs/", 5) == 0)
		return snprintf(out, n, "%s", ref);
	if (strncmp(ref, "tags/", 5) == 0)
		return snprintf(out, n, "refs/%s", ref);
	return snprintf(out, n, "refs/heads/%s", ref);
}

bool
gitremote_ref_valid(const char *ref)
{
	char full[300];
	int valid = 0, k;

	if (ref == NULL || *ref == '\0' || strchr(ref, ':') || ref[0] == '-')
		return false;
	/* The check is asked before any repository is opened (a pull
	 * request staged by `patchyard ingest`), and libgit2 records why a
	 * name is not valid in its error state, which needs it started. */
	git_libgit2_init();
	k = remote_ref(full, sizeof(full), ref);
	if (k < 0 || (size_t)k >= sizeof(full))
		return false;
	return git_reference_name_is_valid(&valid, full) == 0 && valid;
}

/*
 * New commits a local fetch or push copies itself, at most: beyond (the
 * first copy of a whole history) libgit2's transport sends it, with
 * deltas and compression, where we would walk every new tree and write
 * what no pack of the source holds without either.  A push writes what
 * our builds made, which the destination's next gc packs; a fetch's
 * loose objects stay ours, so it hands over sooner.
 */
#define LOCAL_PUSH_MAX 5000
#define LOCAL_FETCH_MAX 1000

/* The directory of a local URL (a path or file://), or NULL. */
static const char *
local_path(const char *url)
{
	if (strncmp(url, "file:///", 8) == 0)
		url += 7;
	return url[0] == '/' ? url : NULL;
}

/*
 * Fetch from a repository on this machine as a local push does, the
 * other way round (see local_push for why not libgit2's local transport):
 * the source's packs that hold what we lack are linked, the rest written
 * as one pack, then the ref set.  A branch only: ERR_LIMIT for tags, a
 * source that is no repository, or too much to copy without deltas, and
 * libgit2 does it.
 */
static enum err
local_fetch(struct gitrepo *r, const char *path, const char *src,
    const char *dst, char tip[OID_HEX_SIZE])
{
	struct gitrepo *from = NULL;
	git_oid oid;
	enum err e;

	if (strncmp(src, "refs/heads/", 11) != 0 ||
	    gitpriv_open_source(path, &from) != ERR_OK)
		return ERR_LIMIT;
	if (git_reference_name_to_id(&oid, from->repo, src) < 0) {
		git_error_clear();
		gitrepo_free(from);
		return ERR_LIMIT; /* libgit2 says what is missing */
	}
	e = gitpriv_copy(from, r, &oid, 1, LOCAL_FETCH_MAX);
	gitrepo_free(from);
	if (e == ERR_OK) {
		git_oid_tostr(tip, OID_HEX_SIZE, &oid);
		e = gitrepo_set_ref(r, dst, tip, NULL, "patchyard: fetch");
	}
	if (e != ERR_OK)
		tip[0] = '\0';
	return e;
}

enum err
gitremote_fetch_ref(struct gitrepo *r, const char *url, const char *ref,
    const char *dst, char tip[OID_HEX_SIZE], char *why, size_t whylen)
{
	char spec[700], src[300];
	char *specp = spec;
	git_strarray specs = { &specp, 1 };
	git_fetch_options o;
	struct cred_state cs = { 0 };
	git_remote *remote = NULL;
	const git_remote_head *h;
	enum err e = ERR_OK;
	int n1, n3, valid = 0;

	tip[0] = '\0';
	if (why && whylen)
		why[0] = '\0';
	n1 = gitremote_ref_valid(ref) ? remote_ref(src, sizeof(src), ref) : -1;
	if (n1 < 0 || (size_t)n1 >= sizeof(src) ||
	    git_reference_name_is_valid(&valid, dst) < 0 || !valid) {
		log_err("gitremote: %s: not a valid ref name", ref);
		if (why && whylen)
			snprintf(why, whylen, "%s: not a valid ref name", ref);
		return ERR_INVAL;
	}
	n3 = snprintf(spec, sizeof(spec), "+%s:%s", src, dst);
	if (n3 < 0 || (size_t)n3 >= sizeof(spec))
		return ERR_INVAL;
	if (local_missing(url)) {
		log_err("gitremote: %s: no such repository", url);
		if (why && whylen)
			snprintf(why, whylen, "%s: no such repository", url);
		return ERR_NOTFOUND;
	}
	e = local_path(url) ? local_fetch(r, local_path(url), src, dst, tip)
	                    : ERR_LIMIT;
	if (e != ERR_LIMIT) {
		if (e != ERR_OK)
			say_why(why, whylen, "fetch failed");
		return e;
	}
	e = ERR_OK;
	if (remote_new(&remote, r, url) < 0) {
		say_why(why, whylen, "bad remote");
		return remote_fail(url, "bad remote");
	}
	git_fetch_options_init(&o, GIT_FETCH_OPTIONS_VERSION);
	o.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	o.update_fetchhead = 0;
	o.callbacks.credentials = credentials;
	o.callbacks.payload = &cs;
	if (git_remote_fetch(remote, &specs, &o, "patchyard: fetch") < 0) {
		say_why(why, whylen, "fetch failed");
		e = remote_fail(url, "fetch failed");
		goto out;
	}
	if ((h = find_head(remote, src)) == NULL) {
		log_err("gitremote: %s: has no %s", url, src);
		if (why && whylen)
			snprintf(why, whylen, "%s has no %s", url, src);
		e = ERR_NOTFOUND;
		goto out;
	}
	if ((e = gitrepo_ref(r, dst, tip)))
		goto out;
	/* A tag names its commit through the tag object. */
	if (strcmp(tip, git_oid_tostr_s(&h->oid)) != 0 &&
	    strncmp(src, "refs/tags/", 10) != 0) {
		log_err("gitremote: %s: %s not updated", url, dst);
		e = ERR_GIT;
	}
out:
	git_remote_free(remote);
	if (e)
		tip[0] = '\0';
	return e;
}

enum err
gitremote_fetch(struct gitrepo *r, const char *url, const char *branch,
    char tip[OID_HEX_SIZE])
{
	char dst[300];
	int n;

	if (!gitrepo_branch_valid(branch)) {
		log_err("gitremote: %s: not a valid branch name", branch);
		return ERR_INVAL;
	}
	n = snprintf(dst, sizeof(dst), "refs/upstream/%s", branch);
	if (n < 0 || (size_t)n >= sizeof(dst))
		return ERR_INVAL;
	return gitremote_fetch_ref(r, url, branch, dst, tip, NULL, 0);
}

enum err
gitremote_head(
    struct gitrepo *r, const char *url, const char *ref, char hex[OID_HEX_SIZE])
{
	struct cred_state cs = { 0 };
	git_remote_callbacks cb;
	git_remote *remote = NULL;
	const git_remote_head *h;
	char src[300];
	enum err e = ERR_OK;
	int n;

	hex[0] = '\0';
	n = gitremote_ref_valid(ref) ? remote_ref(src, sizeof(src), ref) : -1;
	if (n < 0 || (size_t)n >= sizeof(src))
		return ERR_INVAL;
	if (local_missing(url))
		return ERR_NOTFOUND;
	if (remote_new(&remote, r, url) < 0)
		return remote_fail(url, "bad remote");
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	cb.credentials = credentials;
	cb.payload = &cs;
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL) <
	    0) {
		e = remote_fail(url, "cannot connect");
		goto out;
	}
	if ((h = find_head(remote, src)) == NULL)
		e = ERR_NOTFOUND;
	else
		git_oid_tostr(hex, OID_HEX_SIZE, &h->oid);
	git_remote_disconnect(remote);
out:
	git_remote_free(remote);
	return e;
}

struct push_state {
	struct gitremote_push *refs;
	size_t n;
	struct cred_state cs;
};

/* Called once per pushed ref with the remote's verdict. */
static int
push_update(const char *refname, const char *status, void *payload)
{
	struct push_state *ps = payload;
	size_t i;

	for (i = 0; i < ps->n; i++) {
		struct gitremote_push *p = &ps->refs[i];
		if (strcmp(p->ref, refname) != 0 || p->skipped)
			continue;
		p->ok = status == NULL;
		if (status)
			snprintf(p->reason, sizeof(p->reason), "%s", status);
	}
	return 0;
}

/* Push refs[i] for the i with want[i] in one round. */
static enum err
push_round(struct gitrepo *r, const char *url, struct gitremote_push *refs,
    size_t n, const bool *want)
{
	char specbuf[GITREMOTE_MAX_PUSH][300];
	char *specs[GITREMOTE_MAX_PUSH];
	git_strarray sa = { specs, 0 };
	git_push_options o;
	struct push_state ps = { refs, n, { 0 } };
	git_remote *remote = NULL;
	enum err e = ERR_OK;
	size_t i;
	int k;

	for (i = 0; i < n && sa.count < GITREMOTE_MAX_PUSH; i++) {
		if (!want[i])
			continue;
		k = snprintf(specbuf[sa.count], sizeof(specbuf[0]), "%s%s:%s",
		    refs[i].force ? "+" : "", refs[i].ref, refs[i].ref);
		if (k < 0 || (size_t)k >= sizeof(specbuf[0]))
			return ERR_INVAL;
		specs[sa.count] = specbuf[sa.count];
		sa.count++;
	}
	if (sa.count == 0)
		return ERR_OK;
	if (remote_new(&remote, r, url) < 0)
		return remote_fail(url, "bad remote");
	git_push_options_init(&o, GIT_PUSH_OPTIONS_VERSION);
	o.callbacks.credentials = credentials;
	o.callbacks.push_update_reference = push_update;
	o.callbacks.payload = &ps;
	if (git_remote_push(remote, &sa, &o) < 0) {
		const git_error *ge = git_error_last();
		/* A rejected fast-forward fails the whole call before any
		 * ref is sent; say so on the refs of this round. */
		for (i = 0; i < n; i++)
			if (want[i] && !refs[i].ok)
				snprintf(refs[i].reason, sizeof(refs[i].reason),
				    "%s",
				    ge && ge->message ? ge->message
				                      : "push failed");
		e = remote_fail(url, "push failed");
	}
	git_remote_free(remote);
	return e;
}

/* One ref of a local push, its objects there already. */
static void
local_update(struct gitrepo *r, struct gitrepo *dst, struct gitremote_push *p,
    const git_oid *ours)
{
	git_reference *ref = NULL;
	git_oid old;

	if (!p->force &&
	    git_reference_name_to_id(&old, dst->repo, p->ref) == 0 &&
	    !git_oid_equal(&old, ours) &&
	    (!gitpriv_exists(r, &old) ||
	        git_graph_descendant_of(r->repo, ours, &old) != 1)) {
		snprintf(p->reason, sizeof(p->reason), "non-fast-forward");
		return;
	}
	git_error_clear();
	if (git_reference_create(
	        &ref, dst->repo, p->ref, ours, 1, "patchyard: push") < 0) {
		say_why(p->reason, sizeof(p->reason), "cannot update the ref");
		return;
	}
	git_reference_free(ref);
	p->ok = true;
}

/*
 * Push to a bare repository on this machine by writing one pack of what
 * it lacks into it and moving its refs, as git's receive-pack would.
 * libgit2's local transport hands its indexer the pack piece by piece,
 * and the indexer maps the whole growing file again for every piece:
 * for a rebuild of 300 patches on a large folder that was most of the
 * command's time.  ERR_LIMIT when libgit2 should do it after all (not
 * a bare repository, or too much to send without deltas).
 */
static enum err
local_push(
    struct gitrepo *r, const char *path, struct gitremote_push *refs, size_t n)
{
	struct gitrepo *dst = NULL;
	git_oid tips[GITREMOTE_MAX_PUSH], ours[GITREMOTE_MAX_PUSH];
	size_t nt = 0, i;
	char head[4096];
	enum err e;
	int k = snprintf(head, sizeof(head), "%s/HEAD", path);

	/* gitrepo_open would make a repository where there is none. */
	if (k < 0 || (size_t)k >= sizeof(head) || access(head, F_OK) != 0)
		return ERR_LIMIT;
	if (gitrepo_open(path, &dst) != ERR_OK)
		return ERR_LIMIT;
	for (i = 0; i < n; i++) {
		if (refs[i].skipped)
			continue;
		if (git_reference_name_to_id(&ours[i], r->repo, refs[i].ref) <
		    0) {
			refs[i].skipped = true;
			continue;
		}
		tips[nt++] = ours[i];
	}
	e = gitpriv_copy(r, dst, tips, nt, LOCAL_PUSH_MAX);
	for (i = 0; i < n && e == ERR_OK; i++)
		if (!refs[i].skipped)
			local_update(r, dst, &refs[i], &ours[i]);
	gitrepo_free(dst);
	if (e != ERR_OK && e != ERR_LIMIT)
		e = remote_fail(path, "push failed");
	return e;
}

/* Through libgit2's transports: forced refs in one round, each
 * fast-forward one on its own.  ERR_NET, or ERR_OK with the verdicts in
 * refs. */
static enum err
transport_push(
    struct gitrepo *r, const char *url, struct gitremote_push *refs, size_t n)
{
	bool want[GITREMOTE_MAX_PUSH] = { false };
	size_t i, j;
	enum err e;

	for (i = 0; i < n; i++)
		want[i] = refs[i].force && !refs[i].skipped;
	e = push_round(r, url, refs, n, want);
	if (e == ERR_NET)
		return e;
	for (j = 0; j < n; j++) {
		if (refs[j].force || refs[j].skipped)
			continue;
		for (i = 0; i < n; i++)
			want[i] = i == j;
		e = push_round(r, url, refs, n, want);
		if (e == ERR_NET)
			return e;
	}
	return ERR_OK;
}

enum err
gitremote_push(
    struct gitrepo *r, const char *url, struct gitremote_push *refs, size_t n)
{
	char hex[OID_HEX_SIZE];
	size_t i;
	enum err e, worst = ERR_OK;

	if (n > GITREMOTE_MAX_PUSH)
		return ERR_INVAL;
	if (local_missing(url)) {
		log_err("gitremote: %s: no such repository", url);
		return ERR_NOTFOUND;
	}
	for (i = 0; i < n; i++) {
		refs[i].ok = false;
		refs[i].reason[0] = '\0';
		refs[i].skipped = gitrepo_ref(r, refs[i].ref, hex) != ERR_OK;
	}
	e = local_path(url) ? local_push(r, local_path(url), refs, n)
	                    : ERR_LIMIT;
	if (e == ERR_LIMIT)
		e = transport_push(r, url, refs, n);
	if (e != ERR_OK)
		return e;
	for (i = 0; i < n; i++) {
		if (refs[i].ok || refs[i].skipped)
			continue;
		if (refs[i].reason[0] == '\0')
			snprintf(refs[i].reason, sizeof(refs[i].reason),
			    "not updated by the remote");
		log_warn("gitremote: %s: %s rejected: %s", url, refs[i].ref,
		    refs[i].reason);
		worst = ERR_CONFLICT;
	}
	return worst;
}
