/*
 * Unit tests of the mail sources: mbox (checked against `git mailsplit`
 * on the fixtures and on the corpus), gzip, CRLF, mails over the limit,
 * Maildir, telling the kinds apart, and resuming from every position.  The
 * public-inbox reader has its own test_git_pubinbox.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/source/source.h"
#include "bot/source/source_maildir.h"
#include "bot/source/source_mbox.h"
#include "parsers/limits.h"
#include "tests/unit/sourcetest.h"
#include "tests/unit/testutil.h"
#include "util/log.h"

/*
 * What `git mailsplit ARGS` makes of path: each file it writes, without
 * its first line (the "From " separator) unless the file is bare.
 */
static void
mailsplit(const char *path, const char *args, bool bare, struct mails *ms)
{
	char *d = mktmp(), name[4200];
	size_t i, n, skip;
	char *data, *nl;

	run("git mailsplit %s -d6 -o'%s' '%s' >/dev/null", args, d, path);
	for (i = 1;; i++) {
		snprintf(name, sizeof(name), "%s/%06zu", d, i);
		data = tu_read_file(name, &n);
		if (data == NULL)
			break;
		nl = memchr(data, '\n', n);
		skip = bare ? 0 : nl != NULL ? (size_t)(nl - data) + 1 : n;
		mails_add(ms, data + skip, n - skip, NULL, false);
		free(data);
	}
	rmtmp(d);
}

static void
assert_raw_equal(const struct mails *a, const struct mails *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		assert_int_equal(a->len[i], b->len[i]);
		assert_memory_equal(a->raw[i], b->raw[i], a->len[i]);
	}
}

/*
 * Positions grow, the last is the end of the (uncompressed) file, and
 * every other one is the start of a "From " line.
 */
static void
assert_positions(const struct mails *ms, const char *plain)
{
	size_t n, i;
	char *data = tu_read_file(plain, &n);
	unsigned long long prev = 0, p;

	assert_non_null(data);
	for (i = 0; i < ms->n; i++) {
		p = strtoull(ms->pos[i], NULL, 10);
		assert_true(p > prev);
		assert_true(p <= n);
		if (i + 1 < ms->n) {
			assert_true(p < n);
			assert_int_equal(data[p - 1], '\n');
			assert_memory_equal(data + p, "From ", 5);
		}
		prev = p;
	}
	if (ms->n > 0)
		assert_int_equal(p, n);
	free(data);
}

/* Small buffers must split exactly where the big one does. */
static void
assert_small_buffers(const char *path, const struct mails *all)
{
	static const size_t chunks[] = { 16, 17, 64, 100, 1000 };
	struct source_mbox_opts o = { 0 };
	struct mails ms = { 0 };
	size_t i;

	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		o.chunk = chunks[i];
		read_mbox_opts(path, &o, &ms);
		mails_assert_equal(all, 0, &ms);
		mails_free(&ms);
	}
}

/* The full check of one mbox file against mailsplit --mboxrd. */
static void
check_mbox(const char *path)
{
	struct mails ours = { 0 }, git = { 0 };

	read_source(path, 0, NULL, &ours);
	mailsplit(path, "--mboxrd", false, &git);
	assert_raw_equal(&ours, &git);
	assert_positions(&ours, path);
	assert_resume(path, 0, &ours);
	assert_small_buffers(path, &ours);
	mails_free(&ours);
	mails_free(&git);
}

/* A copy of src with every LF made CR LF, or only every other one. */
static void
write_crlf(const char *src, const char *dst, bool every)
{
	size_t n = 0, i, k = 0, lines = 0;
	char *in = tu_read_file(src, &n), *out;

	assert_non_null(in);
	out = malloc(2 * n + 1);
	assert_non_null(out);
	for (i = 0; i < n; i++) {
		if (in[i] == '\n' && (every || lines++ % 2 == 0))
			out[k++] = '\r';
		out[k++] = in[i];
	}
	write_file(dst, out, k);
	free(in);
	free(out);
}

static void
test_mbox_vs_mailsplit(void **state)
{
	char *d, path[4200];

	(void)state;
	if (!have_git())
		skip();
	check_mbox(FIX "mboxrd.mbox");
	check_mbox(FIX "notrail.mbox");
	check_mbox(FIX "mboxo.mbox");
	d = mktmp();
	snprintf(path, sizeof(path), "%s/crlf.mbox", d);
	write_crlf(FIX "mboxrd.mbox", path, true);
	check_mbox(path);
	snprintf(path, sizeof(path), "%s/mixed.mbox", d);
	write_crlf(FIX "notrail.mbox", path, false);
	check_mbox(path);
	/* Leading blank lines before the first separator are skipped. */
	snprintf(path, sizeof(path), "%s/lead.mbox", d);
	run("printf '\\n \\r\\n\\t\\n' > '%s' && cat '%s' >> '%s'", path,
	    FIX "mboxrd.mbox", path);
	check_mbox(path);
	rmtmp(d);
}

static bool
has_line(const struct mails *ms, size_t i, const char *line)
{
	size_t n = strlen(line);
	const char *p = ms->raw[i];

	if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
		return true;
	while ((p = strchr(p, '\n')) != NULL) {
		p++;
		if (strncmp(p, line, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* What the fixture holds, pinned without the oracle. */
static void
test_mboxrd_content(void **state)
{
	struct mails ms = { 0 };

	(void)state;
	read_source(FIX "mboxrd.mbox", 0, NULL, &ms);
	assert_int_equal(ms.n, 5);
	assert_true(strncmp(ms.raw[0], "From: Ada", 9) == 0);
	assert_true(has_line(&ms, 0, "From the top of the file it read"));
	assert_true(has_line(&ms, 0, ">From nested quoting, one '>' goes"));
	assert_true(has_line(&ms, 0, ">>From and three become two"));
	assert_true(has_line(&ms, 0, "> From with a space is not escaped"));
	assert_true(has_line(&ms, 0,
	    "From the start this line is not a "
	    "separator (no time, no year)."));
	/* The blank line before a separator stays with the mail. */
	assert_true(ms.len[0] > 2);
	assert_memory_equal(ms.raw[0] + ms.len[0] - 2, "\n\n", 2);
	assert_true(has_line(&ms, 1,
	    "A separator follows right after this "
	    "line, with no blank line:"));
	assert_int_equal(ms.raw[1][ms.len[1] - 1], '\n');
	assert_true(has_line(&ms, 2, "From x Tue Jan  2 10:11:13 0089"));
	assert_true(has_line(&ms, 2, "From x Tue Jan 2 1:1:1 2024"));
	assert_int_equal(ms.len[3], 0);
	assert_true(has_line(&ms, 4, "From escaped first body line."));
	mails_free(&ms);
}

static void
test_mboxo(void **state)
{
	struct mails rd = { 0 }, o = { 0 };

	(void)state;
	read_source(FIX "mboxo.mbox", 0, NULL, &rd);
	read_source(FIX "mboxo.mbox", SOURCE_MBOXO, NULL, &o);
	assert_int_equal(rd.n, 1);
	assert_int_equal(o.n, 1);
	assert_true(has_line(&rd, 0, "From here mboxo drops one quote"));
	assert_true(has_line(&rd, 0, ">From here mboxo keeps both"));
	assert_true(has_line(&o, 0, "From here mboxo drops one quote"));
	assert_true(has_line(&o, 0, ">>From here mboxo keeps both"));
	assert_string_equal(rd.pos[0], o.pos[0]);
	assert_resume(FIX "mboxo.mbox", SOURCE_MBOXO, &o);
	mails_free(&rd);
	mails_free(&o);
}

/* Not an mbox: one mail, the file after its leading whitespace, as
 * mailsplit -b does (plain mailsplit refuses the file). */
static void
test_bare(void **state)
{
	struct mails ours = { 0 }, git = { 0 };
	size_t n;
	char *data = tu_read_file(FIX "bare.eml", &n);

	(void)state;
	assert_non_null(data);
	read_source(FIX "bare.eml", 0, NULL, &ours);
	assert_int_equal(ours.n, 1);
	assert_true(strncmp(ours.raw[0], "From: Erin", 10) == 0);
	assert_true(has_line(&ours, 0,
	    "From erin@example.org Mon Apr  1 "
	    "00:00:00 2024"));
	assert_int_equal(strtoull(ours.pos[0], NULL, 10), n);
	if (have_git()) {
		mailsplit(FIX "bare.eml", "-b --mboxrd", true, &git);
		assert_raw_equal(&ours, &git);
	}
	assert_resume(FIX "bare.eml", 0, &ours);
	mails_free(&ours);
	mails_free(&git);
	free(data);
}

static void
test_empty(void **state)
{
	static const char *const files[] = { FIX "empty.mbox",
		FIX "blank.mbox" };
	struct source *s;
	struct source_mail m;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(source_open(files[i], 0, &s), ERR_OK);
		assert_int_equal(source_kind(s), SOURCE_MBOX);
		assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
		assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
		assert_true(
		    source_progress(s) == 1.0 || source_progress(s) == -1.0);
		assert_int_equal(source_seek(s, "1"), ERR_INVAL);
		assert_int_equal(source_seek(s, "0"), ERR_INVAL);
		source_free(s);
	}
}

/* gzip, one member and several, reads like the plain file. */
static void
test_gzip(void **state)
{
	struct mails plain = { 0 }, gz = { 0 };
	char *d = mktmp(), cat[4200], one[4200], multi[4200];

	(void)state;
	snprintf(cat, sizeof(cat), "%s/cat.mbox", d);
	snprintf(one, sizeof(one), "%s/one.mbox.gz", d);
	snprintf(multi, sizeof(multi), "%s/multi.gz", d);
	run("gzip -c < %s > '%s'", FIX "mboxrd.mbox", one);
	run("cat %s %s > '%s'", FIX "mboxrd.mbox", FIX "notrail.mbox", cat);
	run("gzip -c < %s > '%s' && gzip -9c < %s >> '%s'", FIX "mboxrd.mbox",
	    multi, FIX "notrail.mbox", multi);

	read_source(FIX "mboxrd.mbox", 0, NULL, &plain);
	read_source(one, 0, NULL, &gz);
	mails_assert_equal(&plain, 0, &gz);
	assert_resume(one, 0, &gz);
	assert_progress_done(one, 0);
	mails_free(&plain);
	mails_free(&gz);

	read_source(cat, 0, NULL, &plain);
	read_source(multi, 0, NULL, &gz);
	assert_int_equal(plain.n, 7);
	mails_assert_equal(&plain, 0, &gz);
	assert_resume(multi, 0, &gz);
	assert_small_buffers(multi, &plain);
	mails_free(&plain);
	mails_free(&gz);
	rmtmp(d);
}

/* A gzip file cut short is an error, after the mails before the cut. */
static void
test_gzip_truncated(void **state)
{
	char *d = mktmp(), path[4200];
	struct source *s;
	struct source_mail m;
	enum err e;
	int n = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/cut.gz", d);
	run("gzip -c < %s | head -c 300 > '%s'", FIX "mboxrd.mbox", path);
	assert_int_equal(source_open(path, 0, &s), ERR_OK);
	while ((e = source_next(s, &m)) == ERR_OK)
		n++;
	assert_int_equal(e, ERR_IO);
	assert_int_equal(source_next(s, &m), ERR_IO);
	source_free(s);
	rmtmp(d);
}

static void
test_seek_invalid(void **state)
{
	static const char *const bad[] = { "", "x", "0", "-5", "12a", "00",
		"+3", " 3", "99999999999999999999999", "3", "100000" };
	struct source *s;
	struct source_mail m;
	size_t i;

	(void)state;
	assert_int_equal(source_open(FIX "mboxrd.mbox", 0, &s), ERR_OK);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(source_seek(s, bad[i]), ERR_INVAL);
	/* A failed seek leaves the source at its end; a good one works. */
	assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
	/* A "From " line that is no separator, and the middle of a line. */
	assert_int_equal(source_seek(s, "327"), ERR_INVAL);
	assert_int_equal(source_seek(s, "328"), ERR_INVAL);
	source_free(s);
	assert_int_equal(source_open(FIX "bare.eml", 0, &s), ERR_OK);
	assert_int_equal(source_seek(s, "10"), ERR_INVAL);
	source_free(s);
}

/* With a small limit, each mail is the unlimited one, whole, or over the
 * limit: skipped, never cut, and the positions stay the same. */
static void
test_small_limit(void **state)
{
	static const size_t limits[] = { 1, 40, 64, 100, 250 };
	struct source_mbox_opts o = { 0 };
	struct mails all = { 0 }, ms = { 0 };
	size_t i, k, want;

	(void)state;
	read_source(FIX "mboxrd.mbox", 0, NULL, &all);
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		o.limit = limits[i];
		o.chunk = 64; /* every separator fits the window */
		read_mbox_opts(FIX "mboxrd.mbox", &o, &ms);
		assert_int_equal(ms.n, all.n);
		for (k = 0; k < ms.n; k++) {
			want = all.len[k] <= o.limit ? all.len[k] : 0;
			assert_int_equal(ms.len[k], want);
			assert_memory_equal(ms.raw[k], all.raw[k], want);
			assert_int_equal(ms.over[k], all.len[k] > o.limit);
			assert_string_equal(ms.pos[k], all.pos[k]);
		}
		mails_free(&ms);
	}
	mails_free(&all);
}

/* Mails of exactly the limit, one byte over, and a line far longer than
 * the window inside a mail over the limit: those over are skipped whole,
 * and the mail after them is read as it is. */
static void
test_limit_edges(void **state)
{
	struct source_mbox_opts o = { false, 64, 100 };
	char *d = mktmp(), path[4200], body[1200];
	struct mails ms = { 0 };
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/edges.mbox", d);
	f = fopen(path, "wb");
	assert_non_null(f);
	memset(body, 'a', sizeof(body));
	fprintf(f, "From x Mon Sep 17 00:00:00 2001\n%.*s\n", 99, body);
	fprintf(f, "From x Mon Sep 17 00:00:00 2001\n%.*s\n", 100, body);
	fprintf(f, "From x Mon Sep 17 00:00:00 2001\n%.*s\r\n", 1100, body);
	fprintf(f, "From x Mon Sep 17 00:00:00 2001\nlast\n");
	assert_int_equal(fclose(f), 0);
	read_mbox_opts(path, &o, &ms);
	assert_int_equal(ms.n, 4);
	assert_int_equal(ms.len[0], 100);
	assert_false(ms.over[0]);
	assert_int_equal(ms.len[1], 0);
	assert_true(ms.over[1]);
	assert_int_equal(ms.len[2], 0);
	assert_true(ms.over[2]);
	assert_false(ms.over[3]);
	assert_int_equal(ms.len[3], 5);
	assert_memory_equal(ms.raw[3], "last\n", 5);
	assert_string_equal(ms.pos[2], "1399");
	mails_free(&ms);
	rmtmp(d);
}

/* A mail over LIMIT_MAIL_SIZE between two small ones: handed out whole
 * (the parser marks it, the store keeps it). */
static void
test_huge_mail(void **state)
{
	const size_t big = LIMIT_MAIL_SIZE + 3 * 1024 * 1024 + 7;
	char *d = mktmp(), path[4200], line[81];
	struct mails ms = { 0 }, rest = { 0 };
	size_t i, hdr;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/huge.mbox", d);
	f = fopen(path, "wb");
	assert_non_null(f);
	fprintf(f, "From a Mon Sep 17 00:00:00 2001\nSubject: small\n\nhi\n\n");
	fprintf(f, "From b Mon Sep 17 00:00:00 2001\nSubject: huge\n\n");
	hdr = strlen("Subject: huge\n\n");
	memset(line, 'x', 79);
	line[79] = '\n';
	line[80] = '\0';
	for (i = 0; i < big / 80; i++) {
		line[0] = i % 7 == 0 ? '>' : 'x';
		assert_int_equal(fwrite(line, 1, 80, f), 80);
	}
	fprintf(f, "\nFrom c Mon Sep 17 00:00:00 2001\nSubject: after\n\nok\n");
	assert_int_equal(fclose(f), 0);

	read_source(path, 0, NULL, &ms);
	assert_int_equal(ms.n, 3);
	assert_false(ms.over[0]);
	assert_false(ms.over[1]);
	assert_int_equal(ms.len[1], hdr + big / 80 * 80 + 1);
	assert_memory_equal(ms.raw[1], "Subject: huge\n\n>xxx", 19);
	assert_memory_equal(ms.raw[1] + hdr + 80, "xxxx", 4);
	for (i = 0; i < big / 80; i++)
		assert_true(ms.raw[1][hdr + i * 80] == (i % 7 ? 'x' : '>') &&
		    ms.raw[1][hdr + i * 80 + 79] == '\n');
	assert_memory_equal(ms.raw[1] + ms.len[1] - 2, "\n\n", 2);
	assert_false(ms.over[2]);
	assert_string_equal(ms.raw[2], "Subject: after\n\nok\n");
	read_source(path, 0, ms.pos[0], &rest);
	mails_assert_equal(&ms, 1, &rest);
	mails_free(&rest);
	mails_free(&ms);
	rmtmp(d);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_file(path, text, strlen(text));
}

/* A Maildir: new/ and cur/ in name order, digits by value, tmp/ and dot
 * files ignored, one copy of a mail seen in both new/ and cur/. */
static void
test_maildir(void **state)
{
	char *d = mktmp(), vanish[4200];
	struct mails ms = { 0 }, rest = { 0 };
	struct source *s;
	struct source_mail m;
	size_t i;

	(void)state;
	run("mkdir '%s/new' '%s/cur' '%s/tmp'", d, d, d);
	put(d, "new/1700000100.M100P1.host", "mail 3\n");
	put(d, "cur/1700000100.M99P1.host:2,S", "mail 2\n");
	put(d, "cur/1700000099.M5P1.host:2,", "mail 1\n");
	put(d, "new/1700000200.M1P1.host", "mail 5 (new copy)\n");
	put(d, "cur/1700000200.M1P1.host:2,RS", "mail 5\n");
	put(d, "new/1700000101.M1P1.host", "mail 4\n");
	put(d, "tmp/1700000050.M1P1.host", "in delivery\n");
	put(d, "new/.hidden", "not a mail\n");
	read_source(d, 0, NULL, &ms);
	assert_int_equal(ms.n, 5);
	for (i = 0; i < 4; i++) {
		snprintf(vanish, sizeof(vanish), "mail %zu\n", i + 1);
		assert_string_equal(ms.raw[i], vanish);
	}
	assert_string_equal(ms.raw[4], "mail 5\n");
	assert_string_equal(ms.pos[0], "1700000099.M5P1.host");
	assert_string_equal(ms.pos[1], "1700000100.M99P1.host");
	assert_string_equal(ms.pos[2], "1700000100.M100P1.host");
	assert_resume(d, 0, &ms);
	assert_progress_done(d, 0);

	/* A mail moved to cur/ with flags keeps its place. */
	run("mv '%s/new/1700000100.M100P1.host' "
	    "'%s/cur/1700000100.M100P1.host:2,S'",
	    d, d);
	read_source(d, 0, ms.pos[1], &rest);
	mails_assert_equal(&ms, 2, &rest);
	mails_free(&rest);

	/* A file that vanishes after the listing is skipped. */
	assert_int_equal(source_open(d, 0, &s), ERR_OK);
	assert_int_equal(source_kind(s), SOURCE_MAILDIR);
	snprintf(vanish, sizeof(vanish), "%s/cur/1700000100.M99P1.host:2,S", d);
	assert_int_equal(unlink(vanish), 0);
	assert_int_equal(source_next(s, &m), ERR_OK);
	assert_int_equal(source_next(s, &m), ERR_OK);
	assert_memory_equal(m.raw, "mail 3\n", m.n);
	assert_int_equal(source_seek(s, "a/b"), ERR_INVAL);
	assert_int_equal(source_seek(s, ""), ERR_INVAL);
	assert_int_equal(source_seek(s, "x:2,S"), ERR_INVAL);
	/* A name after every file: nothing left. */
	assert_int_equal(source_seek(s, "1800000000.x"), ERR_OK);
	assert_int_equal(source_next(s, &m), ERR_NOTFOUND);
	source_free(s);
	mails_free(&ms);
	rmtmp(d);
}

/*
 * Only regular files are mail: a FIFO (whose open() would wait for a
 * writer forever), a symbolic link (to a file that is not the Maildir's)
 * and a folder are skipped, and the mails around them still come.  The
 * alarm turns a hang into a failure.
 */
static void
test_maildir_not_files(void **state)
{
	char *d = mktmp(), path[4200];
	struct mails ms = { 0 };

	(void)state;
	run("mkdir '%s/new' '%s/cur' '%s/cur/3.dir'", d, d, d);
	put(d, "cur/1.host:2,S", "mail 1\n");
	put(d, "outside", "a file that is not in the Maildir\n");
	snprintf(path, sizeof(path), "%s/cur/2.fifo:2,", d);
	assert_int_equal(mkfifo(path, 0600), 0);
	run("ln -s '%s/outside' '%s/new/4.link'", d, d);
	run("ln -s /dev/zero '%s/new/5.dev'", d);
	put(d, "new/6.host", "mail 6\n");
	alarm(20);
	read_source(d, 0, NULL, &ms);
	alarm(0);
	assert_int_equal(ms.n, 2);
	assert_string_equal(ms.raw[0], "mail 1\n");
	assert_string_equal(ms.raw[1], "mail 6\n");
	mails_free(&ms);
	rmtmp(d);
}

static void
test_maildir_limit(void **state)
{
	char *d = mktmp();
	struct source_maildir *md;
	struct source_mail m;

	(void)state;
	run("mkdir '%s/cur'", d);
	put(d, "cur/1", "0123456789");
	put(d, "cur/2", "0123456789abc");
	put(d, "cur/3", "");
	assert_int_equal(source_maildir_open(d, 10, &md), ERR_OK);
	assert_int_equal(source_maildir_next(md, &m), ERR_OK);
	assert_int_equal(m.n, 10);
	/* Over the limit: not read, not cut; its position to go past it. */
	assert_int_equal(source_maildir_next(md, &m), ERR_LIMIT);
	assert_null(m.raw);
	assert_string_equal(m.pos, "2");
	assert_int_equal(source_maildir_next(md, &m), ERR_OK);
	assert_int_equal(m.n, 0);
	assert_string_equal(m.pos, "3");
	assert_int_equal(source_maildir_next(md, &m), ERR_NOTFOUND);
	source_maildir_free(md);
	rmtmp(d);
}

static void
test_open_kinds(void **state)
{
	char *d = mktmp(), path[4200], cwd[4096];
	struct source *s;

	(void)state;
	assert_int_equal(
	    source_open("tests/fixtures/sources/no-such", 0, &s), ERR_NOTFOUND);
	assert_int_equal(source_open(d, 0, &s), ERR_INVAL);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(source_open(FIX "mboxrd.mbox", 0, &s), ERR_OK);
	snprintf(path, sizeof(path), "mbox:%s/%smboxrd.mbox", cwd, FIX);
	assert_string_equal(source_name(s), path);
	source_free(s);
	assert_int_equal(source_open("tests/fixtures/../fixtures/sources/"
	                             "mboxrd.mbox",
	                     0, &s),
	    ERR_OK);
	assert_string_equal(source_name(s), path);
	source_free(s);
	run("mkdir '%s/new'", d);
	assert_int_equal(source_open(d, 0, &s), ERR_OK);
	snprintf(path, sizeof(path), "maildir:%s", d);
	assert_string_equal(source_name(s), path);
	source_free(s);
	rmtmp(d);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read a whole source without copying; print how long it took. */
static size_t
time_source(const char *path, const char *what)
{
	struct source *s;
	struct source_mail m;
	size_t count = 0, bytes = 0;
	double t0 = now();

	assert_int_equal(source_open(path, 0, &s), ERR_OK);
	while (source_next(s, &m) == ERR_OK) {
		count++;
		bytes += m.n;
	}
	source_free(s);
	printf("[ INFO     ] %s: %zu mails, %zu bytes in %.3f s\n", what, count,
	    bytes, now() - t0);
	return count;
}

/* Resuming at a sample of positions gives the mails after them. */
static void
assert_resume_sample(const char *path, const struct mails *all)
{
	struct source *s;
	struct source_mail m;
	size_t i, k;

	for (i = 0; i < all->n; i += all->n / 7 + 1) {
		assert_int_equal(source_open(path, 0, &s), ERR_OK);
		assert_int_equal(source_seek(s, all->pos[i]), ERR_OK);
		for (k = i + 1; k < all->n && k < i + 20; k++) {
			assert_int_equal(source_next(s, &m), ERR_OK);
			assert_int_equal(m.n, all->len[k]);
			assert_memory_equal(m.raw, all->raw[k], m.n);
			assert_string_equal(m.pos, all->pos[k]);
		}
		source_free(s);
	}
}

/* The corpus: the same mails, byte for byte, as git mailsplit --mboxrd. */
static void
test_corpus(void **state)
{
	const char *gz = tu_corpus();
	struct mails ours = { 0 }, fromgz = { 0 }, git = { 0 };
	char *d, plain[4200];

	(void)state;
	if (gz == NULL || !have_git())
		skip();
	d = mktmp();
	snprintf(plain, sizeof(plain), "%s/corpus.mbox", d);
	run("gzip -dc < '%s' > '%s'", gz, plain);
	read_source(plain, 0, NULL, &ours);
	mailsplit(plain, "--mboxrd", false, &git);
	assert_int_equal(ours.n, 3509);
	assert_raw_equal(&ours, &git);
	assert_positions(&ours, plain);
	read_source(gz, 0, NULL, &fromgz);
	mails_assert_equal(&ours, 0, &fromgz);
	assert_resume_sample(plain, &ours);
	assert_resume_sample(gz, &ours);
	assert_progress_done(gz, 0);
	time_source(plain, "corpus, plain");
	time_source(plain, "corpus, plain (again)");
	time_source(gz, "corpus, gzip");
	mails_free(&ours);
	mails_free(&fromgz);
	mails_free(&git);
	rmtmp(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox_vs_mailsplit),
		cmocka_unit_test(test_mboxrd_content),
		cmocka_unit_test(test_mboxo),
		cmocka_unit_test(test_bare),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_gzip_truncated),
		cmocka_unit_test(test_seek_invalid),
		cmocka_unit_test(test_small_limit),
		cmocka_unit_test(test_limit_edges),
		cmocka_unit_test(test_huge_mail),
		cmocka_unit_test(test_maildir),
		cmocka_unit_test(test_maildir_not_files),
		cmocka_unit_test(test_maildir_limit),
		cmocka_unit_test(test_open_kinds),
		cmocka_unit_test(test_corpus),
	};

	/* Refused positions and the like log errors; that is expected. */
	log_set_level(getenv("SOURCE_TEST_LOG") != NULL ? LOG_DEBUG : LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
