/*
 * Unit tests of the public-inbox v2 reader, through source_open(): an
 * inbox of three epochs and a long epoch, built here with git fast-import.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/git/gitrepo.h"
#include "bot/source/git_pubinbox.h"
#include "bot/source/source.h"
#include "parsers/limits.h"
#include "tests/unit/sourcetest.h"
#include "tests/unit/testutil.h"
#include "util/log.h"

/* One fast-import commit: mail text as "m", or a deletion ("d"). */
static void
fi_commit(FILE *f, int t, const char *mail, bool first)
{
	const char *name = mail != NULL ? "m" : "d";
	const char *text = mail != NULL ? mail : "deleted\n";

	fprintf(f, "commit refs/heads/master\n");
	fprintf(f, "committer I <i@example.org> %d +0000\n", 1700000000 + t);
	fprintf(f, "data 2\nm\n");
	if (!first)
		fprintf(f, "D %s\n", mail != NULL ? "d" : "m");
	fprintf(
	    f, "M 100644 inline %s\ndata %zu\n%s\n", name, strlen(text), text);
}

/* An epoch repository holding the mails (NULL: a deletion). */
static void
make_epoch(const char *dir, const char *const *mails, size_t n)
{
	char stream[4200];
	FILE *f;
	size_t i;

	run("git init -q --bare '%s'", dir);
	snprintf(stream, sizeof(stream), "%s.fi", dir);
	f = fopen(stream, "w");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		fi_commit(f, (int)i, mails[i], i == 0);
	assert_int_equal(fclose(f), 0);
	run("git -C '%s' fast-import --quiet < '%s' && rm '%s'", dir, stream,
	    stream);
}

static void
make_inbox(const char *d)
{
	static const char *const e0[] = { "Message-ID: <1@x>\n\none\n",
		"Message-ID: <2@x>\n\ntwo\n", NULL,
		"Message-ID: <3@x>\n\nthree\n" };
	static const char *const e2[] = { "Message-ID: <4@x>\n\nfour\n",
		"Message-ID: <5@x>\n\nfive\n" };
	static const char *const e10[] = { "Message-ID: <6@x>\n\nsix\n" };
	char path[4200];

	run("mkdir '%s/git' && git init -q --bare '%s/git/all.git'", d, d);
	snprintf(path, sizeof(path), "%s/git/0.git", d);
	make_epoch(path, e0, 4);
	snprintf(path, sizeof(path), "%s/git/2.git", d);
	make_epoch(path, e2, 2);
	snprintf(path, sizeof(path), "%s/git/10.git", d);
	make_epoch(path, e10, 1);
}

static void
assert_pos_shape(const char *pos, const char *epoch)
{
	size_t n = strlen(epoch), i;

	assert_int_equal(strlen(pos), n + 1 + 40);
	assert_memory_equal(pos, epoch, n);
	assert_int_equal(pos[n], ':');
	for (i = n + 1; pos[i] != '\0'; i++)
		assert_non_null(strchr("0123456789abcdef", pos[i]));
}

static void
test_pubinbox(void **state)
{
	static const char *const words[] = { "one", "two", "three", "four",
		"five", "six" };
	char *d, path[4200], bad[128];
	struct mails ms = { 0 }, one = { 0 };
	struct source *s;
	size_t i;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	make_inbox(d);
	read_source(d, 0, NULL, &ms);
	assert_int_equal(ms.n, 6);
	for (i = 0; i < 6; i++) {
		assert_non_null(strstr(ms.raw[i], words[i]));
		assert_false(ms.over[i]);
		assert_pos_shape(ms.pos[i], i < 3 ? "0" : i < 5 ? "2" : "10");
	}
	assert_resume(d, 0, &ms);
	assert_progress_done(d, 0);

	/* One epoch given directly. */
	snprintf(path, sizeof(path), "%s/git/2.git", d);
	read_source(path, 0, NULL, &one);
	assert_int_equal(one.n, 2);
	mails_assert_part(&ms, 3, &one, false);
	assert_int_equal(source_open(path, 0, &s), ERR_OK);
	assert_int_equal(source_kind(s), SOURCE_PUBINBOX);
	assert_int_equal(source_seek(s, ms.pos[0]), ERR_INVAL);
	source_free(s);
	mails_free(&one);

	/* Positions this inbox cannot have made. */
	assert_int_equal(source_open(d, 0, &s), ERR_OK);
	snprintf(bad, sizeof(bad), "0:%s", ms.pos[3] + 2);
	assert_int_equal(source_seek(s, bad), ERR_INVAL);
	snprintf(bad, sizeof(bad), "3:%s", ms.pos[0] + 2);
	assert_int_equal(source_seek(s, bad), ERR_INVAL);
	assert_int_equal(source_seek(s, "0:1234"), ERR_INVAL);
	assert_int_equal(source_seek(s, "0"), ERR_INVAL);
	assert_int_equal(source_seek(s, ""), ERR_INVAL);
	snprintf(bad, sizeof(bad), "0:%.39sg", ms.pos[0] + 2);
	assert_int_equal(source_seek(s, bad), ERR_INVAL);
	source_free(s);
	mails_free(&ms);
	rmtmp(d);
}

/* Drain p (opened with a limit): the mails, and those over it (empty,
 * over set). */
static void
read_limited(struct git_pubinbox *p, struct mails *ms)
{
	struct source_mail m;
	enum err e;

	while ((e = git_pubinbox_next(p, &m)) == ERR_OK || e == ERR_LIMIT) {
		assert_true(e == ERR_OK || m.raw == NULL);
		mails_add(
		    ms, m.raw, e == ERR_OK ? m.n : 0, m.pos, e == ERR_LIMIT);
	}
	assert_int_equal(e, ERR_NOTFOUND);
}

/*
 * Mails over the limit are skipped whole, never cut, with their
 * positions, and the rest read on: from loose objects, whose size
 * libgit2 tells before anything is read, and from packs.
 */
static void
test_pubinbox_limit(void **state)
{
	struct mails all = { 0 }, ms = { 0 };
	struct git_pubinbox *p;
	char *d;
	size_t i, round, over;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	make_inbox(d);
	read_source(d, 0, NULL, &all);
	for (round = 0; round < 2; round++) {
		/* fast-import left them loose; then packed. */
		if (round == 1)
			run("for e in '%s'/git/*.git; do git -C $e repack "
			    "-adq; "
			    "done",
			    d);
		assert_int_equal(git_pubinbox_open(d, 23, &p), ERR_OK);
		read_limited(p, &ms);
		git_pubinbox_free(p);
		assert_int_equal(ms.n, all.n);
		for (i = 0; i < all.n; i++) {
			assert_string_equal(ms.pos[i], all.pos[i]);
			assert_int_equal(ms.over[i], all.len[i] > 23);
			assert_int_equal(
			    ms.len[i], all.len[i] > 23 ? 0 : all.len[i]);
			assert_memory_equal(ms.raw[i], all.raw[i], ms.len[i]);
		}
		for (over = 0, i = 0; i < ms.n; i++)
			over += ms.over[i];
		assert_true(over > 0 && over < ms.n);
		mails_free(&ms);
	}
	mails_free(&all);
	rmtmp(d);
}

/* An epoch longer than the reader's reopening interval. */
static void
test_pubinbox_long(void **state)
{
	enum {
		N = 5000
	};
	char *d, path[4200], stream[4200], mail[64];
	struct mails ms = { 0 }, rest = { 0 };
	FILE *f;
	size_t i;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(path, sizeof(path), "%s/7.git", d);
	snprintf(stream, sizeof(stream), "%s/fi", d);
	run("git init -q --bare '%s'", path);
	f = fopen(stream, "w");
	assert_non_null(f);
	for (i = 0; i < N; i++) {
		snprintf(
		    mail, sizeof(mail), "Message-ID: <%zu@x>\n\n%zu\n", i, i);
		fi_commit(f, (int)i, mail, i == 0);
	}
	assert_int_equal(fclose(f), 0);
	run("git -C '%s' fast-import --quiet < '%s'", path, stream);
	read_source(path, 0, NULL, &ms);
	assert_int_equal(ms.n, N);
	for (i = 0; i < N; i += 611) {
		snprintf(
		    mail, sizeof(mail), "Message-ID: <%zu@x>\n\n%zu\n", i, i);
		assert_string_equal(ms.raw[i], mail);
		assert_pos_shape(ms.pos[i], "7");
	}
	read_source(path, 0, ms.pos[N - 2], &rest);
	mails_assert_equal(&ms, N - 1, &rest);
	mails_free(&rest);
	read_source(path, 0, ms.pos[9], &rest);
	mails_assert_equal(&ms, 10, &rest);
	mails_free(&rest);
	mails_free(&ms);
	rmtmp(d);
}

/* The mail of test_pubinbox_packed: alike enough to make deltas. */
static void
packed_mail(char *out, size_t n, size_t i)
{
	size_t k = (size_t)snprintf(
	    out, n, "Message-ID: <%zu@x>\nSubject: [PATCH] fix %zu\n\n", i, i);

	for (size_t l = 0; l < 40 && k < n; l++)
		k += (size_t)snprintf(out + k, n - k,
		    "-\told line %zu of the patch\n+\tnew line %zu\n", l,
		    (l * 7 + i) % 50);
}

/* A fast-import stream of packed_mail(from) .. packed_mail(to - 1), a
 * commit each; from > 0 goes on from the master an earlier import left. */
static void
fi_packed(const char *stream, size_t from, size_t to)
{
	char mail[4096];
	FILE *f = fopen(stream, "w");
	size_t i;

	assert_non_null(f);
	for (i = from; i < to; i++) {
		packed_mail(mail, sizeof(mail), i);
		fprintf(f,
		    "commit refs/heads/master\n"
		    "committer I <i@example.org> %zu +0000\n"
		    "data 2\nm\n%s"
		    "M 100644 inline m\ndata %zu\n%s\n",
		    1700000000 + i,
		    i == from && from > 0 ? "from refs/heads/master^0\n" : "",
		    strlen(mail), mail);
	}
	assert_int_equal(fclose(f), 0);
}

/*
 * An epoch as a live inbox has it: the older mails in a gc'd pack, in
 * delta chains, the newer loose (more of them than are read between two
 * reopenings).
 * Every mail comes out in order, and reading resumes in either part.
 */
static void
test_pubinbox_packed(void **state)
{
	enum {
		N = 600
	};
	char *d, path[4200], stream[4200], mail[4096];
	struct mails ms = { 0 }, rest = { 0 };
	size_t i;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(path, sizeof(path), "%s/0.git", d);
	snprintf(stream, sizeof(stream), "%s/fi", d);
	run("git init -q --bare '%s'", path);
	for (int half = 0; half < 2; half++) {
		fi_packed(
		    stream, (size_t)half * N / 2, (size_t)(half + 1) * N / 2);
		if (half == 0) {
			run("git -C '%s' fast-import --quiet < '%s' && "
			    "git -C '%s' repack -adq && cd '%s' && "
			    "git verify-pack -v objects/pack/*.idx | "
			    "grep -q 'chain length = 20:'",
			    path, stream, path, path);
		} else {
			/* The new pack made loose. */
			run("cd '%s' && ls objects/pack > ../before && "
			    "git fast-import --quiet < '%s' && "
			    "for p in objects/pack/*.pack; do "
			    "  grep -q ${p##*/} ../before && continue; "
			    "  mv $p ../new.pack && rm ${p%%.pack}.idx; done "
			    "&& "
			    "git unpack-objects -q < ../new.pack && "
			    "test $(ls objects/pack/*.pack | wc -l) = 1",
			    path, stream);
		}
	}
	read_source(path, 0, NULL, &ms);
	assert_int_equal(ms.n, N);
	for (i = 0; i < N; i++) {
		packed_mail(mail, sizeof(mail), i);
		assert_string_equal(ms.raw[i], mail);
	}
	read_source(path, 0, ms.pos[N / 4], &rest);
	mails_assert_equal(&ms, N / 4 + 1, &rest);
	mails_free(&rest);
	read_source(path, 0, ms.pos[N - 10], &rest);
	mails_assert_equal(&ms, N - 9, &rest);
	mails_free(&rest);
	mails_free(&ms);
	rmtmp(d);
}

/*
 * An epoch git gc'd (with its commit-graph) and then written to: the
 * mails and positions are those of the same epoch without the graph,
 * and resuming works inside and past what the gc packed.
 */
static void
test_pubinbox_commit_graph(void **state)
{
	enum {
		N = 300,
		NEW = 40
	};
	char *d, path[4200], plain[4200], stream[4200], mail[4096];
	struct mails want = { 0 }, ms = { 0 }, rest = { 0 };
	size_t i;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(path, sizeof(path), "%s/0.git", d);
	snprintf(plain, sizeof(plain), "%s/plain/0.git", d);
	snprintf(stream, sizeof(stream), "%s/fi", d);
	run("git init -q --bare '%s'", path);
	for (int part = 0; part < 2; part++) {
		fi_packed(stream, part ? N : 0, part ? N + NEW : N);
		run("git -C '%s' fast-import --quiet < '%s'", path, stream);
		if (part == 0)
			run("git -C '%s' gc -q && "
			    "test -f '%s/objects/info/commit-graph'",
			    path, path);
	}
	/* The same epoch without its graph: what the walk must give. */
	run("mkdir -p '%s/plain' && cp -r '%s' '%s' && "
	    "rm '%s/objects/info/commit-graph'",
	    d, path, plain, plain);
	read_source(plain, 0, NULL, &want);
	assert_int_equal(want.n, N + NEW);
	for (i = 0; i < N + NEW; i++) {
		packed_mail(mail, sizeof(mail), i);
		assert_string_equal(want.raw[i], mail);
	}
	read_source(path, 0, NULL, &ms);
	mails_assert_equal(&want, 0, &ms);
	mails_free(&ms);
	/* Resuming inside the graph's commits and after them. */
	read_source(path, 0, want.pos[N / 3], &rest);
	mails_assert_equal(&want, N / 3 + 1, &rest);
	mails_free(&rest);
	read_source(path, 0, want.pos[N + 5], &rest);
	mails_assert_equal(&want, N + 6, &rest);
	mails_free(&rest);

	mails_free(&want);
	rmtmp(d);
}

/* Following epoch by epoch: heads, reading one epoch after a commit,
 * and a rewritten epoch told apart (ERR_CONFLICT). */
static void
test_pubinbox_epochs(void **state)
{
	static const char *const again[] = { "Message-ID: <9@x>\n\nnine\n" };
	struct source_mail m;
	struct mails ms = { 0 };
	struct source *s;
	char head[41], path[4200];
	char *d;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	make_inbox(d);
	read_source(d, 0, NULL, &ms);
	assert_int_equal(source_open(d, 0, &s), ERR_OK);
	assert_int_equal(source_epochs(s), 3);
	assert_int_equal(source_epoch_num(s, 1), 2);
	assert_int_equal(source_epoch_head(s, 1, head), ERR_OK);
	assert_string_equal(head, ms.pos[4] + 2);
	/* Epoch 2 alone, after its first mail: one mail, then the end. */
	assert_int_equal(source_epoch_select(s, 1, ms.pos[3] + 2), ERR_OK);
	assert_int_equal(source_next(s, &m), ERR_OK);
	assert_string_equal(m.pos, ms.pos[4]);
	assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
	/* From its start. */
	assert_int_equal(source_epoch_select(s, 1, NULL), ERR_OK);
	assert_int_equal(source_next(s, &m), ERR_OK);
	assert_string_equal(m.pos, ms.pos[3]);
	/* At its head: nothing. */
	assert_int_equal(source_epoch_select(s, 1, head), ERR_OK);
	assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
	/* A commit of another epoch is not in this one's history. */
	assert_int_equal(
	    source_epoch_select(s, 1, ms.pos[0] + 2), ERR_CONFLICT);
	source_free(s);
	/* Epoch 10 made again: its old head is gone from its history. */
	snprintf(path, sizeof(path), "%s/git/10.git", d);
	run("rm -rf '%s'", path);
	make_epoch(path, again, 1);
	assert_int_equal(source_open(d, 0, &s), ERR_OK);
	assert_int_equal(
	    source_epoch_select(s, 2, ms.pos[5] + 3), ERR_CONFLICT);
	source_free(s);
	mails_free(&ms);
	rmtmp(d);
}

/*
 * An archive is someone else's: an object whose bytes are not what its
 * id says (here a loose object overwritten by another's) is refused,
 * never handed out as the mail it claims to be (issue 16: libgit2's hash
 * verification stays on for objects from outside, also after the
 * staging repository was opened in the same process).
 */
static void
test_pubinbox_corrupt_object(void **state)
{
	static const char *const mails[] = { "Message-ID: <1@x>\n\none\n",
		"Message-ID: <2@x>\n\ntwo\n" };
	char *d, path[4200], stage[4200];
	struct gitrepo *r = NULL;
	struct source *s;
	struct source_mail m;
	enum err e;

	(void)state;
	if (!have_git())
		skip();
	d = mktmp();
	snprintf(path, sizeof(path), "%s/0.git", d);
	snprintf(stage, sizeof(stage), "%s/stage.git", d);
	make_epoch(path, mails, 2);
	/* Loose objects (fast-import leaves a small import loose), then
	 * blob "one" holding blob "two"'s bytes. */
	run("cd '%s' && mkdir ../packs && "
	    "for p in objects/pack/*.pack; do [ -f $p ] || continue; "
	    "mv $p ../packs/ && git unpack-objects -q < ../packs/${p##*/}; "
	    "done && rm -f objects/pack/* && "
	    "one=$(git rev-parse HEAD~1:m) && two=$(git rev-parse HEAD:m) && "
	    "f1=objects/$(echo $one | cut -c1-2)/$(echo $one | cut -c3-) && "
	    "f2=objects/$(echo $two | cut -c1-2)/$(echo $two | cut -c3-) && "
	    "chmod u+w $f1 && cp $f2 $f1",
	    path);
	assert_int_equal(gitrepo_open(stage, &r), ERR_OK);
	assert_int_equal(source_open(path, 0, &s), ERR_OK);
	e = source_next(s, &m);
	if (e == ERR_OK)
		assert_null(strstr(m.raw, "two"));
	assert_int_equal(e, ERR_GIT);
	source_free(s);
	gitrepo_free(r);
	rmtmp(d);
}

/*
 * An "m" whose tree entry says blob but whose object is a tree is an
 * error, not a mail: loose, where libgit2's header tells the type before
 * the read, and packed, where the read does (the pack's headers said it
 * fits, and nothing more).
 */
static void
test_pubinbox_m_not_blob(void **state)
{
	char *d, path[4200];
	struct source *s;
	struct source_mail m;
	int packed;

	(void)state;
	if (!have_git())
		skip();
	for (packed = 0; packed < 2; packed++) {
		d = mktmp();
		snprintf(path, sizeof(path), "%s/0.git", d);
		run("git init -q --bare '%s' && cd '%s' && "
		    "b=$(echo hi | git hash-object -w --stdin) && "
		    "t=$(printf '100644 blob %%s\\tx\\n' $b | git mktree) && "
		    "m=$(perl -e 'print \"100644 m\\0\", pack(\"H*\", "
		    "$ARGV[0])' $t | git hash-object -t tree -w --stdin "
		    "--literally) && "
		    "c=$(git -c user.name=I -c user.email=i@example.org "
		    "commit-tree $m -m m) && "
		    "git update-ref refs/heads/master $c && "
		    "git symbolic-ref HEAD refs/heads/master",
		    path, path);
		if (packed)
			run("git -C '%s' repack -adq && git -C '%s' prune",
			    path, path);
		assert_int_equal(source_open(path, 0, &s), ERR_OK);
		assert_int_equal(source_next(s, &m), ERR_GIT);
		source_free(s);
		rmtmp(d);
	}
}

/* Every mail of the inbox at path with limit (read_limited()), and
 * the last skip. */
static void
read_skipping(
    const char *path, size_t limit, struct mails *ms, char *skipped, size_t n)
{
	struct git_pubinbox *p = NULL;

	assert_int_equal(git_pubinbox_open(path, limit, &p), ERR_OK);
	read_limited(p, ms);
	snprintf(skipped, n, "%s",
	    git_pubinbox_skipped(p) ? git_pubinbox_skipped(p) : "");
	git_pubinbox_free(p);
}

/* The commit rev of the epoch at path, in hex. */
static void
rev_parse(const char *path, const char *rev, char hex[41])
{
	char out[4200];
	FILE *f;

	assert_true(
	    snprintf(out, sizeof(out), "%s.rev", path) < (int)sizeof(out));
	run("git -C '%s' rev-parse %s > '%s'", path, rev, out);
	f = fopen(out, "r");
	assert_non_null(f);
	assert_non_null(fgets(hex, 41, f));
	fclose(f);
	unlink(out);
}

/*
 * A mail over the limit is skipped, its size read from its header, not
 * inflated, with its position and ERR_LIMIT: loose (libgit2's header),
 * then packed (the pack's headers), where a small mail stored as a delta
 * of the big one needs it and is skipped too.  A mail under the limit
 * is handed out whole, however large.
 */
static void
test_pubinbox_too_large(void **state)
{
	char *d, path[4200], want[256], skipped[256], big[2000], small[200];
	char medium[500], hex[41];
	const char *mails[5];
	struct mails ms = { 0 };
	size_t k = 0, i;

	(void)state;
	if (!have_git())
		skip();
	k = (size_t)snprintf(big, sizeof(big), "Message-ID: <big@x>\n\n");
	for (i = 0; i < 60; i++)
		k += (size_t)snprintf(
		    big + k, sizeof(big) - k, "Line %zu of a long mail\n", i);
	snprintf(small, sizeof(small), "Message-ID: <d@x>\n\n%.90sthe end\n",
	    strchr(big, '\n') + 2);
	k = (size_t)snprintf(medium, sizeof(medium), "Message-ID: <m@x>\n\n");
	memset(medium + k, 'm', 380);
	snprintf(medium + k + 380, sizeof(medium) - k - 380, "\n");
	mails[0] = "Message-ID: <s1@x>\n\nsmall one\n";
	mails[1] = medium;
	mails[2] = big;
	mails[3] = small;
	mails[4] = "Message-ID: <s2@x>\n\nsmall two\n";
	d = mktmp();
	snprintf(path, sizeof(path), "%s/0.git", d);
	make_epoch(path, mails, 5);
	rev_parse(path, "master~2", hex);

	/* Loose: the big one skipped, the one near the limit whole. */
	read_skipping(path, 512, &ms, skipped, sizeof(skipped));
	assert_int_equal(ms.n, 5);
	assert_string_equal(ms.raw[0], mails[0]);
	assert_false(ms.over[1]);
	assert_int_equal(ms.len[1], strlen(medium));
	assert_string_equal(ms.raw[1], medium);
	assert_true(ms.over[2]);
	assert_int_equal(ms.len[2], 0);
	assert_string_equal(ms.pos[2] + 2, hex);
	assert_string_equal(ms.raw[3], small);
	assert_false(ms.over[3]);
	assert_string_equal(ms.raw[4], mails[4]);
	snprintf(want, sizeof(want),
	    "epoch 0: commit %s: a mail of %zu bytes over the 512 bytes "
	    "allowed, skipped",
	    hex, strlen(big));
	assert_string_equal(skipped, want);
	mails_free(&ms);

	/* Packed: git stores the small one as a delta of the big one,
	 * which it cannot be read without. */
	run("git -C '%s' repack -adfq && git -C '%s' prune", path, path);
	read_skipping(path, 512, &ms, skipped, sizeof(skipped));
	assert_int_equal(ms.n, 5);
	assert_string_equal(ms.raw[0], mails[0]);
	assert_false(ms.over[1]);
	assert_string_equal(ms.raw[1], medium);
	assert_true(ms.over[2]);
	assert_true(ms.over[3]);
	assert_string_equal(ms.raw[4], mails[4]);
	assert_non_null(strstr(skipped, "epoch 0: commit "));
	snprintf(want, sizeof(want),
	    ": a mail of %zu bytes on a delta base over the 512 bytes "
	    "allowed, skipped",
	    strlen(small));
	assert_non_null(strstr(skipped, want));
	mails_free(&ms);
	rmtmp(d);
}

/* A mail of n bytes: a header, then c to the end. */
static char *
mail_of(const char *id, size_t n, char c)
{
	char *m = malloc(n + 1);
	int k;

	assert_non_null(m);
	k = snprintf(m, n + 1, "Message-ID: <%s@x>\n\n", id);
	assert_true(k > 0 && (size_t)k < n);
	memset(m + k, c, n - (size_t)k);
	m[n] = '\0';
	return m;
}

/*
 * The one limit on what is stored, at its true size: a mail of
 * LIMIT_MAIL_SIZE + 1 MB (over what is parsed) is handed out whole, for
 * the parser to mark; one of LIMIT_MAIL_STORE + 1 bytes is skipped and
 * never inflated.  Loose, then packed.
 */
static void
test_pubinbox_store_limit(void **state)
{
	char *d, path[4200], want[256], skipped[256], hex[41];
	char *mid = mail_of("mid", LIMIT_MAIL_SIZE + 1024 * 1024, 'm');
	char *huge = mail_of("huge", (size_t)LIMIT_MAIL_STORE + 1, 'z');
	const char *mails[4] = { "Message-ID: <s1@x>\n\nsmall one\n", mid, huge,
		"Message-ID: <s2@x>\n\nsmall two\n" };
	struct mails ms = { 0 };
	int round;

	(void)state;
	if (!have_git()) {
		free(mid);
		free(huge);
		skip();
	}
	d = mktmp();
	snprintf(path, sizeof(path), "%s/0.git", d);
	make_epoch(path, mails, 4);
	rev_parse(path, "master~1", hex);
	snprintf(want, sizeof(want),
	    "epoch 0: commit %s: a mail of %u bytes over the %u bytes "
	    "allowed, skipped",
	    hex, LIMIT_MAIL_STORE + 1, LIMIT_MAIL_STORE);
	for (round = 0; round < 2; round++) {
		/* fast-import left them loose; then packed, whole. */
		if (round == 1)
			run("git -C '%s' -c core.bigFileThreshold=1m repack "
			    "-adq && git -C '%s' prune",
			    path, path);
		read_skipping(path, 0, &ms, skipped, sizeof(skipped));
		assert_int_equal(ms.n, 4);
		assert_string_equal(ms.raw[0], mails[0]);
		assert_false(ms.over[1]);
		assert_int_equal(ms.len[1], strlen(mid));
		assert_memory_equal(ms.raw[1], mid, ms.len[1]);
		assert_true(ms.over[2]);
		assert_int_equal(ms.len[2], 0);
		assert_string_equal(ms.pos[2] + 2, hex);
		assert_string_equal(ms.raw[3], mails[3]);
		assert_string_equal(skipped, want);
		mails_free(&ms);
	}
	free(mid);
	free(huge);
	rmtmp(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pubinbox_too_large),
		cmocka_unit_test(test_pubinbox_store_limit),
		cmocka_unit_test(test_pubinbox),
		cmocka_unit_test(test_pubinbox_limit),
		cmocka_unit_test(test_pubinbox_long),
		cmocka_unit_test(test_pubinbox_packed),
		cmocka_unit_test(test_pubinbox_commit_graph),
		cmocka_unit_test(test_pubinbox_corrupt_object),
		cmocka_unit_test(test_pubinbox_m_not_blob),
		cmocka_unit_test(test_pubinbox_epochs),
	};

	/* Refused positions log errors; that is expected. */
	log_set_level(getenv("SOURCE_TEST_LOG") != NULL ? LOG_DEBUG : LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
