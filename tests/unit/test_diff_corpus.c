/*
 * diff.c and patchid.c on the real util-linux archive, against git, with
 * no MIME in between: for every patch mail (a PATCH tag, not a reply, not
 * a 0/N cover letter) `git mailinfo --scissors` writes the patch file;
 * then
 * - diff_parse() of that file must give what `git apply --numstat
 *   --summary` prints, and must refuse exactly the patches git apply
 *   calls corrupt;
 * - patchid_stable() of that file must print what `git patch-id --stable`
 *   prints.
 * The patch file is given to diff_parse() with CRLF made LF, as the
 * caller must do (mailinfo keeps a CR that quoted-printable carried).
 * Skips without the corpus or git; caches nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corpus.h"
#include "parsers/diff.h"
#include "parsers/patchid.h"
#include "parsers/subject.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"

/* The raw Subject of a mail, unfolded (the PATCH tag is ASCII: no RFC
 * 2047 needed to select). */
static struct str
raw_subject(struct buf *tmp, const struct buf *mail)
{
	const char *p = mail->p, *end = mail->p + mail->n;

	buf_reset(tmp);
	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (nl == NULL)
			break;
		if ((size_t)(nl - p) > 8 &&
		    strncasecmp(p, "Subject:", 8) == 0) {
			buf_add(tmp, p + 8, (size_t)(nl - p - 8));
			while (
			    nl + 1 < end && (nl[1] == ' ' || nl[1] == '\t')) {
				p = nl + 1;
				nl = memchr(p, '\n', (size_t)(end - p));
				if (nl == NULL)
					break;
				buf_add(tmp, p, (size_t)(nl - p));
			}
			return buf_str(tmp);
		}
		p = nl + 1;
	}
	return STR_NULL;
}

static bool
is_patch_mail(const struct buf *mail)
{
	struct arena *a = arena_new();
	struct buf tmp = BUF_INIT;
	struct subject s;
	bool yes;

	subject_parse(a, raw_subject(&tmp, mail), &s);
	yes = s.patch && !s.reply && !(s.number == 0 && s.total > 0);
	buf_free(&tmp);
	arena_free(a);
	return yes;
}

static const char *
message_id(struct buf *tmp, const struct buf *mail)
{
	const char *p = memmem(mail->p, mail->n, "\nMessage-I", 10);
	const char *lt, *gt;

	buf_reset(tmp);
	lt = p ? memchr(p, '<', (size_t)(mail->p + mail->n - p)) : NULL;
	gt = lt ? memchr(lt, '>', (size_t)(mail->p + mail->n - lt)) : NULL;
	if (gt == NULL || gt - lt > 300)
		buf_adds(tmp, "(no Message-ID)");
	else
		buf_add(tmp, lt, (size_t)(gt - lt + 1));
	return buf_cstr(tmp);
}

struct counts {
	size_t mails, patches, parse_agree, parse_differ, refuse_agree;
	size_t pid_agree, pid_differ;
};

/* diff_parse() against git apply on one patch file. */
static void
check_parse(struct counts *c, const char *dir, const char *mid,
    const char *patch, size_t n)
{
	struct arena *a = arena_new();
	struct buf ours = BUF_INIT;
	char cmd[512], *git, *lf = malloc(n + 1);
	size_t i, k = 0, gn;
	struct diff *d;
	enum err e;
	int rc;

	for (i = 0; i < n; i++)
		if (!(patch[i] == '\r' && i + 1 < n && patch[i + 1] == '\n'))
			lf[k++] = patch[i];
	e = diff_parse(a, lf, k, &d);
	snprintf(cmd, sizeof(cmd),
	    "cd / && git apply --numstat --summary %s/patch 2>/dev/null; "
	    "echo \"rc=$?\"",
	    dir);
	git = corpus_run(cmd, &gn);
	rc = strstr(git, "rc=0\n") != NULL ? 0 : 1;
	*strstr(git, "rc=") = '\0';
	if (rc != 0) {
		if (e == ERR_PARSE) {
			c->refuse_agree++;
		} else {
			c->parse_differ++;
			print_message("MISMATCH parse %s: git apply refuses, "
			              "we parse (%s)\n",
			    mid, err_str(e));
		}
	} else if (e != ERR_OK) {
		c->parse_differ++;
		print_message(
		    "MISMATCH parse %s: we refuse (%s)\n", mid, err_str(e));
	} else {
		corpus_apply_stat(&ours, d);
		if (strcmp(buf_cstr(&ours), git) == 0) {
			c->parse_agree++;
		} else {
			c->parse_differ++;
			print_message(
			    "MISMATCH parse %s\n--- git\n%s--- ours\n%s", mid,
			    git, buf_cstr(&ours));
		}
	}
	free(git);
	free(lf);
	buf_free(&ours);
	arena_free(a);
}

static void
check_patchid(struct counts *c, const char *dir, const char *mid,
    const char *patch, size_t n)
{
	char cmd[256], *git, ours[41];

	snprintf(cmd, sizeof(cmd), "git patch-id --stable < %s/patch", dir);
	git = corpus_run(cmd, NULL);
	if (strlen(git) > 40)
		git[40] = '\0';
	patchid_stable(patch, n, ours);
	if (strcmp(ours, git) == 0) {
		c->pid_agree++;
	} else {
		c->pid_differ++;
		print_message("MISMATCH patch-id %s: ours <%s> git <%s>\n", mid,
		    ours, git);
	}
	free(git);
}

static void
test_corpus(void **state)
{
	const char *corpus = tu_corpus();
	char dir[] = "/tmp/test_diff_corpus.XXXXXX", cmd[512], path[600];
	struct buf mail = BUF_INIT, tmp = BUF_INIT;
	struct counts c;
	size_t n, pos = 0;
	char *mbox;

	(void)state;
	if (corpus == NULL || system("git --version >/dev/null 2>&1") != 0)
		skip();
	mbox = corpus_load(corpus, &n);
	assert_non_null(mbox);
	assert_non_null(mkdtemp(dir));
	memset(&c, 0, sizeof(c));
	while (corpus_next(mbox, n, &pos, &mail)) {
		const char *mid;
		char *patch;
		size_t pn = 0;

		if (!is_patch_mail(&mail))
			continue;
		c.mails++;
		mid = message_id(&tmp, &mail);
		corpus_write(dir, "mail", mail.p, mail.n);
		snprintf(cmd, sizeof(cmd),
		    "cd %s && git mailinfo --scissors msg patch < mail "
		    ">/dev/null 2>&1",
		    dir);
		if (system(cmd) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/patch", dir);
		patch = tu_read_file(path, &pn);
		if (patch != NULL && pn > 0) {
			c.patches++;
			check_parse(&c, dir, mid, patch, pn);
			check_patchid(&c, dir, mid, patch, pn);
		}
		free(patch);
	}
	print_message(
	    "%zu patch mails, %zu with a patch file\n", c.mails, c.patches);
	print_message("diff_parse agrees with git apply on %zu/%zu "
	              "(%zu parsed alike, %zu refused by both)\n",
	    c.parse_agree + c.refuse_agree, c.patches, c.parse_agree,
	    c.refuse_agree);
	print_message("patch-id agrees %zu/%zu\n", c.pid_agree, c.patches);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	buf_free(&mail);
	buf_free(&tmp);
	free(mbox);
	assert_true(c.patches > 800);
	assert_int_equal(c.parse_differ, 0);
	assert_int_equal(c.pid_differ, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
