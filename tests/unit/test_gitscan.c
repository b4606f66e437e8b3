/*
 * The upstream scan (bot/git/gitscan.c): every commit's patch-id must be
 * what `git show C | git patch-id --stable` prints (and what the bench's
 * `git log -p | git patch-id --stable` prints), for every kind of change
 * git makes; subjects, authors and the Message-IDs of trailers as git
 * log shows them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bot/git/gitremote.h"
#include "bot/git/gitrepo.h"
#include "bot/git/gitscan.h"
#include "tests/unit/gittest.h"
#include "util/arena.h"
#include "util/log.h"

static const char *tmp;
static struct gitrepo *r;
static char *first, *tip;

static const char setup_sh[] =
    "set -e; cd %s; git init -q -b master up; cd up; "
    "seq 1 50 | sed 's/^/line /' > f; echo a > a; "
    "printf '{\\n\\tx();\\n}\\n\\n{\\n\\ty();\\n}\\n' > z.c; "
    "git add -A; git commit -qm root; "
    "sed -i 's/^line 20$/line twenty/' f; git commit -qam 'f: modify'; "
    "echo b > b; git add b; git commit -qm 'b: add' -m \"$(printf '"
    "Signed-off-by: A <a@example.org>\\n"
    "Link: https://lore.kernel.org/r/20231114-b-v1-1-abc@example.org\\n"
    "Message-ID: <other.id@example.org>')\"; "
    "git rm -q a; git commit -qm 'a: delete' -m 'Link: https://x.org/r/"
    "not-a-trailer@example.org' -m \"$(printf '"
    "Link: https://lore.kernel.org/linux-mm/x%%%%2By%%%%40example.org/T/#u"
    "\\nLink: https://bugzilla.kernel.org/show_bug.cgi?id=1')\"; "
    "git mv b b2; git commit -qm 'b: pure rename'; "
    "git mv f f2; echo tail >> f2; git commit -qm 'f: rename and change'; "
    "chmod +x f2; git commit -qam 'f2: mode'; "
    "printf '{\\n\\tx();\\n}\\n\\n{\\n\\tnew();\\n}\\n\\n{\\n\\ty();\\n}\\n' "
    "> z.c; git commit -qam 'z: the indent heuristic decides'; "
    "sed -i 's/^line 3$/line  3 /' f2; git commit -qam 'f2: whitespace'; "
    "echo c1 > c1; echo c2 > c2; sed -i 's/^line 40$/x/' f2; git add -A; "
    "git commit -qm 'several files' -m 'With a body"
    " that spans\n"
    "two lines.'; "
    "git commit -q --allow-empty -m 'empty commit'; "
    "printf '\\000\\001bin' > bin; git add bin; git commit -qm binary; "
    "git checkout -qb side HEAD~3; echo side > side; git add side; "
    "git commit -qm side; git checkout -q master; "
    "git merge -q --no-ff -m merge side; "
    "echo after > after; git add after; "
    "GIT_AUTHOR_EMAIL=other@example.org git commit -qm 'A long subject' "
    "-m 'body'; "
    /* Folders: the scan compares trees itself and diffs only folders
     * where files changed, so these must come out as git says too. */
    "mkdir -p d1/s1 d1/s2 d2 d3/x/y; seq 1 30 > d1/s1/a; seq 1 30 > "
    "d1/s2/b; seq 1 30 > d2/c; seq 1 30 > d3/x/y/deep; seq 1 9 > d3/top; "
    "git add -A; git commit -qm 'folders: add'; "
    "sed -i 's/^5$/five/' d1/s1/a; git commit -qam 'one deep file'; "
    "sed -i 's/^6$/six/' d1/s1/a d1/s2/b d2/c d3/x/y/deep; "
    "git commit -qam 'four folders'; "
    "sed -i 's/^7$/seven/' d3/top d3/x/y/deep; git commit -qam 'levels'; "
    "git mv d2/c d1/s2/c; git commit -qm 'move across folders'; "
    "git mv d1/s2/c d1/s2/c2; sed -i 's/^8$/eight/' d1/s2/c2; "
    "git commit -qam 'rename in a folder'; "
    "git rm -rq d1/s1; git commit -qm 'remove a folder'; "
    "mkdir d4; echo n > d4/n; sed -i 's/^9$/nine/' d3/top; git add -A; "
    "git commit -qm 'new folder'; "
    "git rm -q d4/n; echo file > d4; git add d4; "
    "git commit -qm 'folder becomes file'; "
    "chmod +x d3/top; git commit -qam 'mode in a folder'; "
    "git commit -q --allow-empty -m '[PATCH v2] Tagged: subject.'; "
    "git commit -q --allow-empty -m 'bad ids' -m \"$(printf '"
    "Link: https://lore.kernel.org/r/a%%%%3Eb@x\\n"
    "Message-ID: <a b@example.org>')\"; "
    "git mv d1/s2/c2 d3/moved; echo more >> d3/moved; "
    "git commit -qm 'move and change across folders'; "
    /* Enough commits for the scan to share them among threads. */
    "for i in $(seq 1 70); do echo $i >> d1/s2/b; sed -i \"${i}s/$/ x/\" "
    "d3/x/y/deep; git commit -qam \"many $i\"; done";

static int
setup(void **state)
{
	char path[256], url[300], hex[41];

	(void)state;
	tmp = gt_setup();
	log_set_level(LOG_ERR);
	if (gt_sh(setup_sh, tmp) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/stage.git", tmp);
	snprintf(url, sizeof(url), "%s/up", tmp);
	if (gitrepo_open(path, &r) != ERR_OK ||
	    gitremote_fetch(r, url, "master", hex) != ERR_OK)
		return -1;
	first = gt_out("git -C %s/up rev-list --max-parents=0 HEAD", tmp);
	tip = gt_out("git -C %s/up rev-parse HEAD", tmp);
	return first && tip ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	free(first);
	free(tip);
	gitrepo_free(r);
	gt_teardown(tmp);
	return 0;
}

static void
test_first_scan_lists_nothing(void **state)
{
	struct gitscan *s = NULL;

	(void)state;
	assert_int_equal(gitscan_range(r, NULL, tip, &s), ERR_OK);
	assert_int_equal(gitscan_count(s), 0);
	gitscan_free(s);
	assert_int_equal(gitscan_range(r, "", tip, &s), ERR_OK);
	assert_int_equal(gitscan_count(s), 0);
	gitscan_free(s);
	assert_int_equal(gitscan_range(r, first,
	                     "0123456789012345678901234567890123456789", &s),
	    ERR_NOTFOUND);
	assert_null(s);
}

static void
test_patch_ids_equal_git(void **state)
{
	struct gitscan *s = NULL;
	char *list, *line, *save = NULL, *want, *logp;
	size_t i = 0, compared = 0;

	(void)state;
	assert_int_equal(gitscan_range(r, first, tip, &s), ERR_OK);
	list = gt_out("git -C %s/up rev-list --reverse --topo-order %s..%s",
	    tmp, first, tip);
	/* git log -p | git patch-id --stable, as the bench measures it. */
	logp = gt_out("git -C %s/up log -p %s..%s | git patch-id --stable", tmp,
	    first, tip);
	assert_non_null(list);
	assert_non_null(logp);
	for (line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), i++) {
		const struct gitscan_commit *c = gitscan_at(s, i);
		char *pid, *subj, *mail, *parents;

		assert_non_null(c);
		assert_string_equal(c->commit, line);
		subj = gt_out("git -C %s/up log -1 --format=%%s %s", tmp, line);
		mail =
		    gt_out("git -C %s/up log -1 --format=%%ae %s", tmp, line);
		parents =
		    gt_out("git -C %s/up log -1 --format=%%p %s", tmp, line);
		assert_string_equal(c->subject, subj);
		assert_string_equal(c->author_email, mail);
		pid = gt_out("git -C %s/up show %s | git patch-id --stable | "
		             "cut -c1-40",
		    tmp, line);
		assert_non_null(pid);
		if (strchr(parents, ' ')) {
			/* A merge: git show prints a combined diff. */
			assert_string_equal(c->patch_id, "");
		} else if (strcmp(subj, "binary") == 0) {
			assert_string_equal(c->patch_id, "");
		} else {
			if (strcmp(c->patch_id, pid) != 0)
				fprintf(stderr, "%s: %s\n", subj, c->patch_id);
			assert_string_equal(c->patch_id, pid);
			if (pid[0]) {
				/* The same id in the log -p stream. */
				char want2[82];
				snprintf(
				    want2, sizeof(want2), "%s %s", pid, line);
				assert_non_null(strstr(logp, want2));
				compared++;
			}
		}
		free(pid);
		free(subj);
		free(mail);
		free(parents);
	}
	assert_int_equal(i, gitscan_count(s));
	assert_true(compared >= 87);
	want = gt_out("git -C %s/up rev-list --count %s..%s", tmp, first, tip);
	assert_int_equal((size_t)atoi(want), gitscan_count(s));
	free(want);
	free(list);
	free(logp);
	gitscan_free(s);
}

static const struct gitscan_commit *
by_subject(const struct gitscan *s, const char *subject)
{
	size_t i;

	for (i = 0; i < gitscan_count(s); i++)
		if (strcmp(gitscan_at(s, i)->subject, subject) == 0)
			return gitscan_at(s, i);
	fail_msg("no commit %s", subject);
	return NULL;
}

static void
test_trailers_and_subjects(void **state)
{
	const struct gitscan_commit *c;
	struct gitscan *s = NULL;

	(void)state;
	assert_int_equal(gitscan_range(r, first, tip, &s), ERR_OK);
	c = by_subject(s, "b: add");
	assert_int_equal(c->nmsgids, 2);
	assert_string_equal(c->msgids[0], "20231114-b-v1-1-abc@example.org");
	assert_string_equal(c->msgids[1], "other.id@example.org");
	c = by_subject(s, "a: delete");
	assert_int_equal(c->nmsgids, 1);
	assert_string_equal(c->msgids[0], "x+y@example.org");
	c = by_subject(s, "several files");
	assert_int_equal(c->nmsgids, 0);
	c = by_subject(s, "empty commit");
	assert_string_equal(c->patch_id, "");
	c = by_subject(s, "A long subject");
	assert_string_equal(c->author_email, "other@example.org");
	assert_string_equal(c->subject_norm, "a long subject");
	c = by_subject(s, "[PATCH v2] Tagged: subject.");
	assert_string_equal(c->subject_norm, "tagged: subject");
	/* A Link: naming no valid Message-ID gives none. */
	c = by_subject(s, "bad ids");
	assert_int_equal(c->nmsgids, 0);
	gitscan_free(s);
}

static void
test_link_urls(void **state)
{
	struct arena *a = arena_new();
	static const struct {
		const char *url, *id;
	} cases[] = {
		{ "https://lore.kernel.org/r/abc@x.org", "abc@x.org" },
		{ "https://lore.kernel.org/linux-mm/abc@x.org/", "abc@x.org" },
		{ "https://lore.kernel.org/all/abc@x.org/T/#u", "abc@x.org" },
		{ "https://patch.msgid.link/a%2Fb@x.org", "a/b@x.org" },
		{ "https://msgid.link/a%40x.org", "a@x.org" },
		{ "https://user@host.org/path/none", NULL },
		{ "https://bugzilla.kernel.org/show_bug.cgi?id=1", NULL },
		{ "https://lore.kernel.org/r/bad%zz@x.org", NULL },
		{ "https://lore.kernel.org/r/nul%00@x.org", NULL },
		{ "not a url", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = gitscan_link_msgid(a, cases[i].url);
		if (cases[i].id == NULL)
			assert_null(got);
		else
			assert_string_equal(got, cases[i].id);
	}
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_scan_lists_nothing),
		cmocka_unit_test(test_patch_ids_equal_git),
		cmocka_unit_test(test_trailers_and_subjects),
		cmocka_unit_test(test_link_urls),
	};

	return cmocka_run_group_tests_name("gitscan", tests, setup, teardown);
}
