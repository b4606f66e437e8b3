/*
 * Unit tests of parsers/patch.c.  The oracle is git: for every
 * single-part fixture mail, patch_parse() must give what `git mailinfo
 * --scissors` gives (author, subject, the message after `git stripspace`,
 * the patch file byte for byte) and the patch-id `git patch-id --stable`
 * prints for that patch file.  The mails' bodies are handed over as one
 * text part built here; a minimal header reader stands in for hdr/mime,
 * whose own tests and the corpus test cover real mail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parsers/limits.h"
#include "parsers/patch.h"
#include "parsers/patchid.h"
#include "testutil.h"
#include "util/arena.h"
#include "util/buf.h"

#define FIX "tests/fixtures/patches/"

/* A mail read the simple way: fixtures are 7bit, single part. */
struct simple_mail {
	struct mime_part part;
	struct mime mime;
	struct patch_in in;
};

/* The unfolded value of the header field name, from head. */
static struct str
header_value(struct arena *a, const char *head, const char *name)
{
	struct buf b = BUF_INIT;
	const char *p = head;
	size_t n = strlen(name);
	struct str v = STR_NULL;

	while (*p && *p != '\n') {
		const char *nl = strchr(p, '\n');

		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			buf_add(&b, p + n + 1, (size_t)(nl - p - n - 1));
			while (nl[1] == ' ' || nl[1] == '\t') {
				p = nl + 1;
				nl = strchr(p, '\n');
				buf_add(&b, p, (size_t)(nl - p));
			}
			v = arena_str(a, str_trim(buf_str(&b)));
			break;
		}
		p = nl + 1;
	}
	buf_free(&b);
	return v;
}

/* "Name <addr>" or "addr". */
static struct addr
simple_addr(struct arena *a, struct str v)
{
	struct addr ad = { "", "" };
	long lt = str_find(v, '<'), gt = str_find(v, '>');

	if (lt >= 0 && gt > lt) {
		struct str nm = str_trim(str_make(v.p, (size_t)lt));

		ad.name = arena_strndup(a, nm.p, nm.n);
		ad.email =
		    arena_strndup(a, v.p + lt + 1, (size_t)(gt - lt - 1));
	} else {
		ad.email = arena_strndup(a, v.p, v.n);
	}
	return ad;
}

static char *
load_mail(struct arena *a, const char *name, struct simple_mail *m)
{
	char path[256], *text, *head, *body;

	snprintf(path, sizeof(path), FIX "%s", name);
	text = tu_read_file(path, NULL);
	assert_non_null(text);
	head = text;
	if (strncmp(head, "From ", 5) == 0)
		head = strchr(head, '\n') + 1;
	body = strstr(head, "\n\n");
	assert_non_null(body);
	body += 2;
	memset(m, 0, sizeof(*m));
	m->part.type = "text/plain";
	m->part.text = true;
	m->part.data = str_make(body, strlen(body));
	m->mime.parts = &m->part;
	m->mime.nparts = 1;
	m->in.body = &m->mime;
	m->in.from = simple_addr(a, header_value(a, head, "From"));
	m->in.from_value = header_value(a, head, "From");
	m->in.subject = header_value(a, head, "Subject");
	m->in.date = header_value(a, head, "Date");
	return text;
}

/* Run a shell command on files we wrote; its stdout, NUL-terminated. */
static char *
run(const char *cmd)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		buf_add(&b, chunk, n);
	assert_int_equal(pclose(p), 0);
	return buf_detach(&b, &n);
}

/* The value of "Key: value" in mailinfo's output. */
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

static void
one_part(struct mime_part *pt, const char *type, const char *data)
{
	memset(pt, 0, sizeof(*pt));
	pt->type = type;
	pt->text = strncmp(type, "text/", 5) == 0;
	pt->data = str_from(data);
}

static const char *const oracle_fixtures[] = { "git-many.mbox",
	"git-many-binary.mbox", "git-edge.mbox", "git-nested.mbox",
	"plain-diff-up.eml", "quilt.eml", "nocounts.eml", "inbody-headers.eml",
	"scissors.eml", "patch-line.eml", "cover.eml", "inbody-2047.eml",
	NULL };

static void
compare_with_git(const char *name)
{
	struct arena *a = arena_new();
	struct simple_mail m;
	struct patch *p = NULL;
	char dir[] = "/tmp/test_patch.XXXXXX", cmd[512], path[256];
	char *text = load_mail(a, name, &m), *info, *f, *msg, *pat, *pid;
	enum err e = patch_parse(a, &m.in, &p);
	size_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), FIX "%s", name);
	snprintf(cmd, sizeof(cmd),
	    "git mailinfo --scissors %s/msg %s/patch < %s && "
	    "git stripspace < %s/msg > %s/msg.clean",
	    dir, dir, path, dir, dir);
	info = run(cmd);
	snprintf(path, sizeof(path), "%s/msg.clean", dir);
	msg = tu_read_file(path, NULL);
	snprintf(path, sizeof(path), "%s/patch", dir);
	pat = tu_read_file(path, &n);
	snprintf(cmd, sizeof(cmd), "git patch-id --stable < %s/patch", dir);
	pid = run(cmd);
	if (n == 0) {
		assert_int_equal(e, ERR_NOTFOUND);
		goto out;
	}
	assert_int_equal(e, ERR_OK);
	f = info_field(info, "Author");
	assert_string_equal(p->author.name, f);
	free(f);
	f = info_field(info, "Email");
	assert_string_equal(p->author.email, f);
	free(f);
	f = info_field(info, "Subject");
	assert_string_equal(p->subject, f);
	free(f);
	assert_int_equal(p->message.n, strlen(msg));
	assert_memory_equal(p->message.p, msg, p->message.n);
	assert_int_equal(p->diff.n, n);
	assert_memory_equal(p->diff.p, pat, n);
	if (strlen(pid) >= 40) {
		assert_int_equal(strlen(p->patch_id), 40);
		assert_memory_equal(p->patch_id, pid, 40);
	} else {
		/* git has none for a plain or quilt diff; ours is that of
		 * the same change in git form (patch.c, git_form_patchid). */
		assert_non_null(p->parsed);
		assert_false(p->parsed->files[0].git);
		assert_int_equal(strlen(p->patch_id), 40);
	}
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(info);
	free(msg);
	free(pat);
	free(pid);
	free(text);
	arena_free(a);
}

static void
test_vs_mailinfo(void **state)
{
	size_t i;

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	for (i = 0; oracle_fixtures[i]; i++) {
		print_message("%s\n", oracle_fixtures[i]);
		compare_with_git(oracle_fixtures[i]);
	}
}

/*
 * patch_mailinfo() against `git mailinfo` itself, with and without
 * --scissors: the Author, Email and Subject lines, and the msg and patch
 * files byte for byte (unstripped), for patches, a cover letter and
 * replies, in-body headers and scissors lines included.  (-u, not
 * --encoding=utf-8: git 2.39 takes the latter and then re-encodes nothing,
 * see parsers/patatt.c.)
 */
static void
compare_mailinfo(const char *name, unsigned flags)
{
	struct arena *a = arena_new();
	struct simple_mail m;
	struct patch_mailinfo mi;
	char dir[] = "/tmp/test_patch.XXXXXX", cmd[512], path[256];
	char *text = load_mail(a, name, &m), *info, *f, *msg, *pat;
	size_t mn = 0, pn = 0;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(patch_mailinfo(a, &m.in, flags, &mi), ERR_OK);
	snprintf(path, sizeof(path), FIX "%s", name);
	snprintf(cmd, sizeof(cmd), "git mailinfo -u %s %s/msg %s/patch < %s",
	    flags & PATCH_MI_SCISSORS ? "--scissors" : "--no-scissors", dir,
	    dir, path);
	info = run(cmd);
	snprintf(path, sizeof(path), "%s/msg", dir);
	msg = tu_read_file(path, &mn);
	snprintf(path, sizeof(path), "%s/patch", dir);
	pat = tu_read_file(path, &pn);
	f = info_field(info, "Author");
	assert_string_equal(mi.author.name, f);
	free(f);
	f = info_field(info, "Email");
	assert_string_equal(mi.author.email, f);
	free(f);
	f = info_field(info, "Subject");
	assert_string_equal(mi.subject, f);
	free(f);
	assert_true(str_eq(mi.msg, str_make(msg, mn)));
	if (pn == 0)
		assert_null(mi.patch.p);
	else
		assert_true(str_eq(mi.patch, str_make(pat, pn)));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(info);
	free(msg);
	free(pat);
	free(text);
	arena_free(a);
}

static void
test_mailinfo_vs_git(void **state)
{
	static const char *const extra[] = { "reply-inbody.eml", NULL };
	size_t i;

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	for (i = 0; oracle_fixtures[i]; i++) {
		print_message("%s\n", oracle_fixtures[i]);
		compare_mailinfo(oracle_fixtures[i], 0);
		compare_mailinfo(oracle_fixtures[i], PATCH_MI_SCISSORS);
	}
	for (i = 0; extra[i]; i++) {
		print_message("%s\n", extra[i]);
		compare_mailinfo(extra[i], 0);
		compare_mailinfo(extra[i], PATCH_MI_SCISSORS);
	}
}

/* Details mailinfo does not print: date, files, the sender's stat. */
static void
test_details(void **state)
{
	struct arena *a = arena_new();
	struct simple_mail m;
	struct patch *p;
	char *text = load_mail(a, "inbody-headers.eml", &m);

	(void)state;
	assert_int_equal(patch_parse(a, &m.in, &p), ERR_OK);
	assert_true(str_eqs(p->date, "Thu, 4 Dec 2026 08:00:00 -0800"));
	assert_int_equal(p->nfiles, 1);
	assert_string_equal(p->files[0], "lib/a.c");
	assert_true(str_eqs(p->diffstat,
	    " lib/a.c | 2 +-\n 1 file changed, 1 insertion(+), 1 "
	    "deletion(-)\n"));
	assert_non_null(p->parsed);
	free(text);
	text = load_mail(a, "git-many.mbox", &m);
	assert_int_equal(patch_parse(a, &m.in, &p), ERR_OK);
	/* Both sides of the rename torename.c -> lib/renamed.c. */
	assert_int_equal(p->nfiles, 10);
	assert_string_equal(p->files[0], "added.c");
	assert_string_equal(p->files[1], "big.txt");
	assert_string_equal(p->files[8], "old.txt");
	assert_string_equal(p->files[9], "torename.c");
	assert_true(str_eqs(p->date, "Thu, 3 Dec 2026 07:12:29 +0000"));
	/* Notes between "---" and the stat are not part of it.  (m.in's
	 * views point into text: it is freed at the end.) */
	{
		struct mime_part pt;
		struct mime mm = { &pt, 1, 0, false };
		struct patch_in in = m.in;

		one_part(&pt, "text/plain",
		    "Msg.\n---\nv2: shorter\n\n x | 1 +\n"
		    " 1 file changed, 1 insertion(+)\n create mode 100644 x\n\n"
		    "diff --git a/x b/x\nnew file mode 100644\nindex "
		    "0000000..1\n"
		    "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n");
		in.body = &mm;
		assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
		assert_true(str_eqs(p->diffstat,
		    " x | 1 +\n 1 file changed, 1 insertion(+)\n"
		    " create mode 100644 x\n"));
	}
	/* The author as written: the domain keeps its case, odd names
	 * are read as git reads them; without from_value, from is used. */
	{
		struct patch_in in = m.in;

		in.from_value =
		    STR_LIT("\"Last, First (Team)\" <First.Last@Example.COM>");
		assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
		assert_string_equal(p->author.email, "First.Last@Example.COM");
		assert_string_equal(p->author.name, "Last, First (Team)");
		in.from_value = STR_NULL;
		in.from = (struct addr){ "Name <x>", "n@example.com" };
		assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
		assert_string_equal(p->author.name, "n@example.com");
	}
	/* No sender diffstat in a quilt patch without one. */
	free(text);
	text = load_mail(a, "patch-line.eml", &m);
	assert_int_equal(patch_parse(a, &m.in, &p), ERR_OK);
	assert_null(p->diffstat.p);
	assert_string_equal(p->author.name, "Old Style");
	free(text);
	arena_free(a);
}

/*
 * A multipart mail (message text, a text/x-patch attachment) written from
 * the parts below: the parts handed over by hand must give what git
 * mailinfo reads from the mail, boundary line breaks included.
 */
static const char *const mp_text[] = {
	/* With and without a final LF: mailinfo sees the same line break
	 * before the boundary either way. */
	"Fix the thing.\n\nSigned-off-by: A <a@b.c>\n",
	"Fix the thing.\n\nSigned-off-by: A <a@b.c>",
	NULL,
};
static const char mp_patch[] =
    "---\n x | 1 +\n 1 file changed, 1 insertion(+)\n\n"
    "diff --git a/x b/x\nindex 1111111..2222222 100644\n--- a/x\n+++ b/x\n"
    "@@ -1 +1,2 @@\n a\n+y\n-- \n2.39.5\n";

static void
write_multipart(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fprintf(f,
	    "From: A <a@b.c>\nSubject: [PATCH]   x:  add   y\n"
	    "MIME-Version: 1.0\nContent-Type: multipart/mixed; "
	    "boundary=\"b0\"\n\n--b0\nContent-Type: text/plain\n\n"
	    "%s\n--b0\nContent-Type: text/x-patch; name=x.patch\n"
	    "Content-Disposition: attachment; filename=x.patch\n\n%s\n"
	    "--b0--\nepilogue\n",
	    text, mp_patch);
	assert_int_equal(fclose(f), 0);
}

static void
test_multipart_vs_mailinfo(void **state)
{
	struct mime_part parts[2];
	struct mime mm = { parts, 2, 0, false };
	size_t k;

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	for (k = 0; mp_text[k]; k++) {
		struct arena *a = arena_new();
		char dir[] = "/tmp/test_patch.XXXXXX", path[256], cmd[512];
		char *info, *f, *pat, *msg;
		struct patch_in in;
		struct patch *p;
		size_t n = 0;

		assert_non_null(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/mail", dir);
		write_multipart(path, mp_text[k]);
		snprintf(cmd, sizeof(cmd),
		    "git mailinfo --scissors %s/msg %s/patch < %s/mail && "
		    "git stripspace < %s/msg > %s/msg.clean",
		    dir, dir, dir, dir, dir);
		info = run(cmd);
		one_part(&parts[0], "text/plain", mp_text[k]);
		one_part(&parts[1], "text/x-patch", mp_patch);
		parts[1].attachment = true;
		parts[1].filename = "x.patch";
		memset(&in, 0, sizeof(in));
		in.body = &mm;
		in.from = (struct addr){ "A", "a@b.c" };
		in.subject = STR_LIT("[PATCH]   x:  add   y");
		assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
		f = info_field(info, "Subject");
		assert_string_equal(p->subject, f);
		free(f);
		snprintf(path, sizeof(path), "%s/msg.clean", dir);
		msg = tu_read_file(path, &n);
		assert_true(str_eq(p->message, str_make(msg, n)));
		snprintf(path, sizeof(path), "%s/patch", dir);
		pat = tu_read_file(path, &n);
		assert_true(str_eq(p->diff, str_make(pat, n)));
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
		free(info);
		free(msg);
		free(pat);
		arena_free(a);
	}
}

/* HTML, signatures and other non-patch parts are not read; patches sent
 * as application/x-patch or named *.diff are, CRLF or not. */
static void
test_parts_read(void **state)
{
	struct arena *a = arena_new();
	struct mime_part parts[4];
	struct mime mm = { parts, 4, 0, false };
	struct patch_in in;
	struct patch *p;

	(void)state;
	one_part(&parts[0], "text/plain", "Fix.\n");
	one_part(&parts[1], "text/html", "<p>diff -u</p>\n");
	one_part(&parts[2], "application/octet-stream",
	    "---\r\ndiff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n"
	    "@@ -0,0 +1 @@\r\n+y\r\n");
	parts[2].filename = "fix.DIFF";
	one_part(&parts[3], "application/pgp-signature",
	    "-----BEGIN PGP SIGNATURE-----\n");
	memset(&in, 0, sizeof(in));
	in.body = &mm;
	in.from = (struct addr){ "", "a@b.c" };
	assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
	assert_string_equal(p->author.name, "a@b.c");
	assert_true(str_eqs(p->message, "Fix.\n"));
	assert_true(str_eqs(p->diff,
	    "---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n"
	    "@@ -0,0 +1 @@\n+y\n\n\n"));
	assert_int_equal(strlen(p->patch_id), 40);
	/* Without the name it is just bytes. */
	parts[2].filename = NULL;
	assert_int_equal(patch_parse(a, &in, &p), ERR_NOTFOUND);
	parts[2].type = "application/x-patch";
	assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
	/* Only the HTML part: no patch; no parts at all: none either. */
	mm.parts = &parts[1];
	mm.nparts = 1;
	assert_int_equal(patch_parse(a, &in, &p), ERR_NOTFOUND);
	mm.nparts = 0;
	assert_int_equal(patch_parse(a, &in, &p), ERR_NOTFOUND);
	assert_null(p);
	arena_free(a);
}

/*
 * A latin1 patch: the message is read in UTF-8, the patch keeps the
 * sender's bytes (git am applies those), so its id is git's.
 */
static void
test_raw_bytes(void **state)
{
	struct arena *a = arena_new();
	struct mime_part pt;
	struct mime mm = { &pt, 1, 0, false };
	struct patch_in in;
	struct patch *p;
	static const char utf8[] =
	    "Caf\xc3\xa9 fix.\n---\ndiff --git a/f b/f\n"
	    "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\xc3\xa9\n+e\n";
	static const char latin1[] =
	    "Caf\xe9 fix.\n---\ndiff --git a/f b/f\n"
	    "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\xe9\n+e\n";
	char want[41];

	(void)state;
	one_part(&pt, "text/plain", utf8);
	pt.charset = "iso-8859-1";
	pt.raw = str_from(latin1);
	mm.has_raw = true;
	memset(&in, 0, sizeof(in));
	in.body = &mm;
	in.from = (struct addr){ "A", "a@b.c" };
	assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
	assert_true(str_eqs(p->message, "Caf\xc3\xa9 fix.\n"));
	assert_true(str_eqs(p->diff, strstr(latin1, "---")));
	assert_true(patchid_stable(p->diff.p, p->diff.n, want));
	assert_string_equal(p->patch_id, want);
	assert_int_equal(p->parsed->nfiles, 1);
	/* Without has_raw, raw is not read (it may be anything). */
	mm.has_raw = false;
	pt.raw = str_make((const char *)1, 99);
	assert_int_equal(patch_parse(a, &in, &p), ERR_OK);
	assert_true(str_eqs(p->diff, strstr(utf8, "---")));
	arena_free(a);
}

static void
test_limits(void **state)
{
	struct arena *a = arena_new();
	struct mime_part pt;
	struct mime mm = { &pt, 1, 0, false };
	struct patch_in in;
	struct patch *p;
	char *big = malloc(LIMIT_LINE_LEN + 100);

	(void)state;
	memset(big, 'x', LIMIT_LINE_LEN + 10);
	strcpy(big + LIMIT_LINE_LEN + 10, "\n---\ndiff -u\n");
	one_part(&pt, "text/plain", big);
	memset(&in, 0, sizeof(in));
	in.body = &mm;
	in.from = (struct addr){ "", "a@b.c" };
	assert_int_equal(patch_parse(a, &in, &p), ERR_LIMIT);
	free(big);
	arena_free(a);
}

/* An in-body header folded over LIMIT_FIELD_SIZE is over a limit, not
 * a value cut short. */
static void
test_inbody_limit(void **state)
{
	struct arena *a = arena_new();
	struct mime_part pt;
	struct mime mm = { &pt, 1, 0, false };
	struct patch_in in;
	struct patch_mailinfo mi;
	struct buf b = BUF_INIT;
	size_t lines;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.body = &mm;
	in.from = (struct addr){ "", "a@b.c" };
	for (lines = 15; lines <= 17; lines++) {
		buf_reset(&b);
		buf_adds(&b, "From: Name <n@example.org>\n");
		while (b.n < lines * 4096)
			buf_addf(&b, " %4094s\n", "x");
		buf_adds(&b, "\nMsg.\n---\ndiff --git a/x b/x\n");
		one_part(&pt, "text/plain", buf_cstr(&b));
		assert_int_equal(patch_mailinfo(a, &in, 0, &mi),
		    lines < 16 ? ERR_OK : ERR_LIMIT);
	}
	buf_free(&b);
	arena_free(a);
}

/* A break but no diff after it: not a patch. */
static void
test_no_diff(void **state)
{
	struct arena *a = arena_new();
	struct mime_part pt;
	struct mime mm = { &pt, 1, 0, false };
	struct patch_in in;
	struct patch *p;

	(void)state;
	memset(&in, 0, sizeof(in));
	in.body = &mm;
	in.from = (struct addr){ "N", "n@x.y" };
	one_part(
	    &pt, "text/plain", "Thoughts.\n---\nMore thoughts, no diff.\n");
	assert_int_equal(patch_parse(a, &in, &p), ERR_NOTFOUND);
	one_part(&pt, "text/plain", "Only text.\n");
	assert_int_equal(patch_parse(a, &in, &p), ERR_NOTFOUND);
	arena_free(a);
}

static void
test_pull(void **state)
{
	struct arena *a = arena_new();
	struct simple_mail m;
	struct pull *pl;
	char *text = load_mail(a, "request-pull.eml", &m);

	(void)state;
	assert_int_equal(patch_parse_pull(a, &m.mime, &pl), ERR_OK);
	assert_string_equal(
	    pl->url, "https://git.example.org/pub/scm/utils/util-linux.git");
	assert_string_equal(pl->ref, "tags/fixes-2.40.1");
	assert_string_equal(
	    pl->base, "c6133c21f0d029eb32b2a90119d55fe843563771");
	assert_string_equal(
	    pl->commit, "b2b243f8dd874dc8f9373bd018319443eedfcb26");
	free(text);
	/* A patch is no pull request. */
	text = load_mail(a, "git-many.mbox", &m);
	assert_int_equal(patch_parse_pull(a, &m.mime, &pl), ERR_NOTFOUND);
	assert_null(pl);
	free(text);
	arena_free(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vs_mailinfo),
		cmocka_unit_test(test_mailinfo_vs_git),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_multipart_vs_mailinfo),
		cmocka_unit_test(test_parts_read),
		cmocka_unit_test(test_raw_bytes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_inbody_limit),
		cmocka_unit_test(test_no_diff),
		cmocka_unit_test(test_pull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
