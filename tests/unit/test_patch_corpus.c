/*
 * The ingest oracle on the real util-linux archive: for every patch mail
 * (a PATCH tag, not a reply, not a 0/N cover letter) our pipeline
 * hdr_split() -> mime_parse() -> patch_parse() must agree with
 * `git mailinfo --scissors` run on the same bytes, and our patch-id with
 * `git patch-id --stable` on mailinfo's patch file.  Messages are compared
 * after `git stripspace` (what git am commits).  Every mismatch is listed
 * with its Message-ID and reason; the few cases where git is wrong and we
 * are right are narrow, named exceptions below.  Skips without the corpus
 * or without git.  Nothing is cached between runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "corpus.h"
#include "parsers/addr.h"
#include "parsers/charset.h"
#include "parsers/hdr.h"
#include "parsers/mime.h"
#include "parsers/patch.h"
#include "parsers/subject.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/utf8.h"

enum check {
	C_PID,
	C_AUTHOR,
	C_EMAIL,
	C_SUBJECT,
	C_MSG,
	C_DIFF,
	C_COUNT
};
static const char *const check_names[C_COUNT] = { "patch-id", "author", "email",
	"subject", "message", "diff" };

struct tally {
	size_t mails, agree[C_COUNT], excused[C_COUNT], gap[C_COUNT];
	size_t differ[C_COUNT];
};

static char *
info_field(const char *info, const char *key)
{
	size_t n = strlen(key);
	const char *p = info;

	while (p && *p) {
		if (strncmp(p, key, n) == 0 && p[n] == ':' && p[n + 1] == ' ')
			return strndup(p + n + 2, strcspn(p + n + 2, "\n"));
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return strdup("");
}

/* What git says about one mail. */
struct git_view {
	char *info, *msg, *patch, pid[41];
	size_t msg_n, patch_n;
};

static void
git_view(const char *dir, const struct buf *mail, struct git_view *g)
{
	char path[256], cmd[1024], *pid;

	corpus_write(dir, "mail", mail->p, mail->n);
	snprintf(cmd, sizeof(cmd),
	    "cd %s && git mailinfo --scissors msg patch < mail; "
	    "git stripspace < msg > msg.clean",
	    dir);
	g->info = corpus_run(cmd, NULL);
	snprintf(path, sizeof(path), "%s/msg.clean", dir);
	g->msg = tu_read_file(path, &g->msg_n);
	snprintf(path, sizeof(path), "%s/patch", dir);
	g->patch = tu_read_file(path, &g->patch_n);
	snprintf(cmd, sizeof(cmd), "git patch-id --stable < %s/patch", dir);
	pid = corpus_run(cmd, NULL);
	g->pid[0] = '\0';
	if (strlen(pid) >= 40) {
		memcpy(g->pid, pid, 40);
		g->pid[40] = '\0';
	}
	free(pid);
}

static void
git_view_free(struct git_view *g)
{
	free(g->info);
	free(g->msg);
	free(g->patch);
}

/* Our view: the real pipeline. */
struct our_view {
	struct hdr h;
	struct mime m;
	struct patch *p;
	enum err e;
	struct str msgid;
};

static bool
is_patch_mail(struct arena *a, const struct hdr *h, struct str *subj)
{
	struct subject s;
	struct str raw = hdr_value(a, h, "Subject");

	if (charset_decode_header(a, raw, subj, NULL) != ERR_OK)
		*subj = raw;
	subject_parse(a, *subj, &s);
	return s.patch && !s.reply && !(s.number == 0 && s.total > 0);
}

static bool
our_view(struct arena *a, const struct buf *mail, struct our_view *o)
{
	struct patch_in in;
	struct str from;

	memset(o, 0, sizeof(*o));
	if (hdr_split(a, mail->p, mail->n, &o->h) != ERR_OK)
		return false;
	memset(&in, 0, sizeof(in));
	if (!is_patch_mail(a, &o->h, &in.subject))
		return false;
	o->msgid = hdr_value(a, &o->h, "Message-ID");
	o->e = mime_parse(a, mail->p, mail->n, &o->h, &o->m);
	if (o->e != ERR_OK)
		return true;
	from = hdr_value(a, &o->h, "From");
	if (addr_parse(a, from, &in.from) != ERR_OK)
		in.from = (struct addr){ "", "" };
	if (charset_decode_header(a, from, &in.from_value, NULL) != ERR_OK)
		in.from_value = from;
	in.date = hdr_value(a, &o->h, "Date");
	in.body = &o->m;
	o->e = patch_parse(a, &in, &o->p);
	return true;
}

/*
 * The text git read after our patch: a PGP signature of a
 * multipart/signed mail (the signature is no part of struct mime).
 */
static bool
is_signature(const struct our_view *o, const char *s, size_t n)
{
	struct arena *a = arena_new();
	struct str ct = hdr_value(a, &o->h, "Content-Type");
	struct str t = str_trim(str_make(s, n));
	bool yes = str_istartswith(ct, "multipart/signed") &&
	    str_startswith(t, "-----BEGIN PGP SIGNATURE-----") &&
	    str_endswith(t, "-----END PGP SIGNATURE-----");

	arena_free(a);
	return yes;
}

static size_t
rtrim_lf(const char *p, size_t n)
{
	while (n && p[n - 1] == '\n')
		n--;
	return n;
}

/*
 * Exceptions for the diff, each narrow:
 * - "mime-boundary": a multipart mail; git's patch file differs from ours
 *   only in empty lines at its end (mailinfo reads one line break per
 *   closing boundary of every nested multipart, which struct mime does
 *   not keep);
 * - "signature": a multipart/signed mail; git's patch file is ours
 *   followed by empty lines and the PGP signature (mailinfo feeds every
 *   part through; struct mime has no signature part);
 * - "crlf": git's patch file is ours with CRLF line ends (mailinfo keeps
 *   a CR that quoted-printable or base64 carried; our text is LF only by
 *   contract, and the patch-id does not see a CR).
 */
static const char *
diff_excuse(const struct our_view *o, const struct git_view *g)
{
	struct str ours = o->p->diff;
	size_t on = rtrim_lf(ours.p, ours.n),
	       gn = rtrim_lf(g->patch, g->patch_n);
	size_t i, j;

	if (o->m.nparts > 1 && on == gn && memcmp(ours.p, g->patch, on) == 0)
		return "mime-boundary";
	if (gn > on && memcmp(ours.p, g->patch, on) == 0 &&
	    is_signature(o, g->patch + on, gn - on))
		return "signature";
	for (i = j = 0; i < g->patch_n && j < ours.n; i++) {
		if (g->patch[i] == '\r' && i + 1 < g->patch_n &&
		    g->patch[i + 1] == '\n')
			continue;
		if (g->patch[i] != ours.p[j++])
			return NULL;
	}
	return i == g->patch_n && j == ours.n ? "crlf" : NULL;
}

/*
 * The patch-id has one exception: a hunk shorter than its header says,
 * in a multipart/signed mail: git feeds the signature into the patch and
 * hashes its lines into the hunk.
 */
static const char *
pid_excuse(const struct our_view *o, const struct git_view *g)
{
	const char *d = diff_excuse(o, g);

	if (d && strcmp(d, "signature") == 0 && o->p->parsed == NULL)
		return "short-hunk+signature";
	/* A plain or quilt diff: git has no patch-id, ours is that of the
	 * change in git form (docs/DESIGN.md: a patch-id for every patch). */
	if (g->pid[0] == '\0' && o->p->parsed && o->p->parsed->nfiles &&
	    !o->p->parsed->files[0].git && strlen(o->p->patch_id) == 40)
		return "git-form";
	return NULL;
}

/*
 * Two gaps of mime.c, not of this module, named so that they stay in
 * sight (mime.h says what mime.c should do):
 * - "no raw bytes": mime_parse() does not fill in mime_part.raw yet
 *   (has_raw false), so a patch sent in latin1 or with bytes that are not
 *   UTF-8 reaches us re-encoded, while git keeps the sender's bytes;
 * - "format=flowed": mime_parse() does not undo format=flowed, which git
 *   mailinfo does.
 * Each applies only to mails of that kind; once mime.c does the work the
 * mails agree and no gap is counted.
 */
/* A Content-Type field of the mail or of a part says format=flowed. */
static bool
declares_flowed(const struct buf *mail)
{
	const char *p = mail->p, *end = mail->p + mail->n, *hit;

	while ((hit = memmem(p, (size_t)(end - p), "format=flowed", 13))) {
		const char *l = hit;

		/* Back to the start of the field, over continuation lines. */
		for (;;) {
			while (l > mail->p && l[-1] != '\n')
				l--;
			if (l == mail->p || (*l != ' ' && *l != '\t'))
				break;
			l--;
		}
		if ((size_t)(end - l) > 13 &&
		    strncasecmp(l, "Content-Type:", 13) == 0)
			return true;
		p = hit + 13;
	}
	return false;
}

static const char *
mime_gap(
    const struct our_view *o, const struct git_view *g, const struct buf *mail)
{
	size_t i;

	if (declares_flowed(mail))
		return "KNOWN GAP mime.c: format=flowed not undone";
	if (o->m.has_raw)
		return NULL;
	if (!utf8_valid(g->patch, g->patch_n))
		return "KNOWN GAP mime.c: no raw bytes (patch not UTF-8)";
	for (i = 0; i < o->m.nparts; i++) {
		const char *cs = o->m.parts[i].charset;

		if (o->m.parts[i].text && cs && strcmp(cs, "utf-8") != 0 &&
		    strcmp(cs, "us-ascii") != 0)
			return "KNOWN GAP mime.c: no raw bytes (charset)";
	}
	return NULL;
}

static void
report(struct tally *t, enum check c, bool same, const char *excuse,
    const struct our_view *o, const char *ours, const char *git)
{
	if (same) {
		t->agree[c]++;
		return;
	}
	if (excuse && strncmp(excuse, "KNOWN GAP", 9) == 0) {
		t->gap[c]++;
		print_message("%s: %s %.*s\n", excuse, check_names[c],
		    (int)o->msgid.n, o->msgid.p);
		return;
	}
	if (excuse) {
		t->excused[c]++;
		print_message("excused %s %.*s: %s\n", check_names[c],
		    (int)o->msgid.n, o->msgid.p, excuse);
		return;
	}
	t->differ[c]++;
	print_message("MISMATCH %s %.*s\n  ours <%.200s>\n  git  <%.200s>\n",
	    check_names[c], (int)o->msgid.n, o->msgid.p, ours ? ours : "",
	    git ? git : "");
}

static void
compare(struct tally *t, const struct our_view *o, const struct git_view *g,
    const struct buf *mail)
{
	const struct patch *p = o->p;
	const char *gap = mime_gap(o, g, mail), *ex;
	char *f;

	t->mails++;
	if (o->e != ERR_OK || p == NULL) {
		/* Not a patch for us: it must not be one for git either. */
		report(t, C_PID, g->pid[0] == '\0', NULL, o, err_str(o->e),
		    g->pid);
		return;
	}
	ex = pid_excuse(o, g);
	report(t, C_PID, strcmp(p->patch_id, g->pid) == 0, ex ? ex : gap, o,
	    p->patch_id, g->pid);
	f = info_field(g->info, "Author");
	report(t, C_AUTHOR, strcmp(p->author.name, f) == 0, NULL, o,
	    p->author.name, f);
	free(f);
	f = info_field(g->info, "Email");
	report(t, C_EMAIL, strcmp(p->author.email, f) == 0, NULL, o,
	    p->author.email, f);
	free(f);
	f = info_field(g->info, "Subject");
	report(
	    t, C_SUBJECT, strcmp(p->subject, f) == 0, NULL, o, p->subject, f);
	free(f);
	report(t, C_MSG,
	    p->message.n == g->msg_n &&
	        memcmp(p->message.p, g->msg, g->msg_n) == 0,
	    gap, o, p->message.p, g->msg);
	ex = p->diff.n == g->patch_n ? NULL : diff_excuse(o, g);
	report(t, C_DIFF,
	    p->diff.n == g->patch_n &&
	        memcmp(p->diff.p, g->patch, g->patch_n) == 0,
	    ex ? ex : gap, o, p->diff.p, g->patch);
}

static void
test_corpus(void **state)
{
	const char *corpus = tu_corpus();
	char dir[] = "/tmp/test_patch_corpus.XXXXXX", cmd[128];
	struct buf mail = BUF_INIT;
	struct tally t;
	size_t n, pos = 0, c;
	char *mbox;

	(void)state;
	if (corpus == NULL || system("git --version >/dev/null 2>&1") != 0)
		skip();
	memset(&t, 0, sizeof(t));
	mbox = corpus_load(corpus, &n);
	assert_non_null(mbox);
	assert_non_null(mkdtemp(dir));
	while (corpus_next(mbox, n, &pos, &mail)) {
		struct arena *a = arena_new();
		struct our_view o;
		struct git_view g;

		if (our_view(a, &mail, &o)) {
			git_view(dir, &mail, &g);
			compare(&t, &o, &g, &mail);
			git_view_free(&g);
		}
		arena_free(a);
	}
	for (c = 0; c < C_COUNT; c++)
		print_message("%s agrees %zu/%zu (%zu exactly, %zu excused; "
		              "%zu known mime.c gaps, %zu differ)\n",
		    check_names[c], t.agree[c] + t.excused[c],
		    c == C_PID
		        ? t.mails
		        : t.agree[c] + t.excused[c] + t.gap[c] + t.differ[c],
		    t.agree[c], t.excused[c], t.gap[c], t.differ[c]);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	buf_free(&mail);
	free(mbox);
	assert_true(t.mails > 800);
	for (c = 0; c < C_COUNT; c++)
		assert_int_equal(t.differ[c], 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
