/*
 * Unit tests of parsers/mime.c: decoded leaf parts from real-shaped
 * fixtures (golden files), the bad-input list of the ingest issue
 * (generated), and the util-linux corpus when it is there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "parsers/addr.h"
#include "parsers/hdr.h"
#include "parsers/limits.h"
#include "parsers/mime.h"
#include "tests/unit/testutil.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/timeutil.h"
#include "util/utf8.h"

/* The golden form: flags, then each part's attributes and data (text as
 * it is, other data with non-printable bytes as \xNN). */
static void
dump(struct buf *b, const struct mime *m)
{
	size_t i, j;

	buf_adds(b, "flags:");
	if (m->flags == 0)
		buf_adds(b, " none");
	if (m->flags & MIME_F_DEPTH)
		buf_adds(b, " depth");
	if (m->flags & MIME_F_PARTS)
		buf_adds(b, " parts");
	if (m->flags & MIME_F_BROKEN)
		buf_adds(b, " broken");
	if (m->flags & MIME_F_CHARSET)
		buf_adds(b, " charset");
	buf_addc(b, '\n');
	for (i = 0; i < m->nparts; i++) {
		const struct mime_part *p = &m->parts[i];

		buf_addf(b,
		    "part %zu: %s charset=%s filename=%s%s%s bytes=%zu\n",
		    i + 1, p->type, p->charset ? p->charset : "-",
		    p->filename ? p->filename : "-",
		    p->attachment ? " attachment" : "", p->text ? " text" : "",
		    p->data.n);
		for (j = 0; j < p->data.n; j++) {
			unsigned char c = (unsigned char)p->data.p[j];

			if (p->text || (c >= 0x20 && c < 0x7f) || c == '\n')
				buf_addc(b, (char)c);
			else
				buf_addf(b, "\\x%02x", c);
		}
		buf_adds(b, "\n--\n");
	}
}

/* Every text part valid UTF-8 without CR before LF; counts are sane. */
static void
check_invariants(const struct mime *m)
{
	size_t i;

	assert_true(m->nparts <= LIMIT_MIME_PARTS);
	for (i = 0; i < m->nparts; i++) {
		const struct mime_part *p = &m->parts[i];

		assert_non_null(p->type);
		assert_non_null(strchr(p->type, '/'));
		if (!p->text)
			continue;
		if (!utf8_valid(p->data.p, p->data.n))
			fail_msg(
			    "part %zu (%s) is not valid UTF-8", i, p->type);
		if (p->data.n && memmem(p->data.p, p->data.n, "\r\n", 2))
			fail_msg("part %zu (%s) has CRLF", i, p->type);
	}
}

static enum err
parse(struct arena *a, const char *raw, size_t n, struct mime *m)
{
	struct hdr h;
	enum err e = hdr_split(a, raw, n, &h);

	if (e != ERR_OK)
		return e;
	e = mime_parse(a, raw, n, &h, m);
	if (e == ERR_OK)
		check_invariants(m);
	return e;
}

static char *
read_fixture(const char *name, const char *ext, size_t *n)
{
	char path[256];
	char *p;

	assert_true(snprintf(path, sizeof(path), "tests/fixtures/%s%s", name,
	                ext) < (int)sizeof(path));
	p = tu_read_file(path, n);
	if (p == NULL)
		fail_msg("cannot read %s", path);
	return p;
}

/* name's dump must equal its golden file, in LF and (crlf) in CRLF. */
static void
golden(const char *name, bool crlf)
{
	struct arena *a = arena_new();
	struct buf got = BUF_INIT, twin = BUF_INIT;
	size_t n = 0, i;
	char *raw = read_fixture(name, ".eml", &n);
	char *want = read_fixture(name, ".expected", NULL);
	struct mime m;

	assert_int_equal(parse(a, raw, n, &m), ERR_OK);
	dump(&got, &m);
	if (strcmp(buf_cstr(&got), want) != 0)
		fail_msg("%s: got\n%s\nwant\n%s", name, buf_cstr(&got), want);
	if (crlf) {
		for (i = 0; i < n; i++) {
			if (raw[i] == '\n' && (i == 0 || raw[i - 1] != '\r'))
				buf_addc(&twin, '\r');
			buf_addc(&twin, raw[i]);
		}
		buf_reset(&got);
		assert_int_equal(parse(a, twin.p, twin.n, &m), ERR_OK);
		dump(&got, &m);
		if (strcmp(buf_cstr(&got), want) != 0)
			fail_msg("%s (CRLF): got\n%s\nwant\n%s", name,
			    buf_cstr(&got), want);
	}
	buf_free(&got);
	buf_free(&twin);
	free(raw);
	free(want);
	arena_free(a);
}

static const char *const encoding_cases[] = { "plain-utf8", "latin1-8bit",
	"qp-soft-breaks", "base64-junk", "unknown-charset", "no-content-type",
	"html-only", "iso-2022-jp", "mixed-patch-attachment", "crlf-multipart",
	"alternative", "alternative-html-only", "signed", "signed-mixed",
	"encoded-filename", "8bit-content-type", NULL };

static const char *const broken_cases[] = { "invalid-utf8", "nul-body",
	"missing-close-boundary", "multipart-no-boundary", "no-delimiters",
	"unknown-cte", "garbage-header-multipart", "headerless-parts",
	"truncated-multipart", "empty-first-part", "empty-multipart",
	"headerless-colon", NULL };

static void
test_encoding(void **state)
{
	char name[128];
	size_t i;

	(void)state;
	for (i = 0; encoding_cases[i]; i++) {
		snprintf(name, sizeof(name), "encoding/%s", encoding_cases[i]);
		golden(name, true);
	}
	/* Opaque parts keep their bytes as they are, CR included. */
	golden("encoding/rfc822", false);
	golden("encoding/digest", false);
}

static void
test_broken(void **state)
{
	char name[128];
	size_t i;

	(void)state;
	for (i = 0; broken_cases[i]; i++) {
		snprintf(name, sizeof(name), "broken/%s", broken_cases[i]);
		golden(name, true);
	}
}

/* The fast path hands out views into the raw mail, not copies. */
static void
test_fast_path_no_copy(void **state)
{
	static const char raw[] = "Subject: x\n\nbody line\n";
	struct arena *a = arena_new();
	struct mime m;

	(void)state;
	assert_int_equal(parse(a, raw, sizeof(raw) - 1, &m), ERR_OK);
	assert_int_equal(m.nparts, 1);
	assert_ptr_equal(m.parts[0].data.p, raw + 12);
	assert_string_equal(m.parts[0].type, "text/plain");
	assert_true(m.parts[0].text);
	/* No body at all: one empty part. */
	assert_int_equal(parse(a, "Subject: x\n", 11, &m), ERR_OK);
	assert_int_equal(m.nparts, 1);
	assert_int_equal(m.parts[0].data.n, 0);
	arena_free(a);
}

/* Every prefix of every fixture: a truncated mail parses or flags. */
static void
test_truncated_everywhere(void **state)
{
	struct arena *a = arena_new();
	const char *const *lists[] = { encoding_cases, broken_cases };
	char name[128];
	size_t l, i, cut;

	(void)state;
	for (l = 0; l < 2; l++) {
		for (i = 0; lists[l][i]; i++) {
			size_t n = 0;
			char *raw;
			struct mime m;

			snprintf(name, sizeof(name), "%s/%s",
			    l ? "broken" : "encoding", lists[l][i]);
			raw = read_fixture(name, ".eml", &n);
			for (cut = 0; cut <= n; cut++) {
				/* A private copy, so that ASan sees any read
				 * past the cut. */
				char *p = malloc(cut ? cut : 1);

				memcpy(p, raw, cut);
				assert_int_equal(parse(a, p, cut, &m), ERR_OK);
				free(p);
				arena_reset(a);
			}
			free(raw);
		}
	}
	arena_free(a);
}

/* A multipart chain depth levels deep, each level with pad bytes. */
static void
nested(struct buf *b, size_t depth, size_t pad)
{
	size_t i;

	buf_adds(b,
	    "Subject: deep\nContent-Type: multipart/mixed; "
	    "boundary=\"b0\"\n\n");
	for (i = 0; i < depth; i++) {
		buf_addf(b,
		    "--b%zu\nContent-Type: multipart/mixed; "
		    "boundary=\"b%zu\"\n\n",
		    i, i + 1);
	}
	buf_addf(b, "--b%zu\nContent-Type: text/plain\n\n", depth);
	for (i = 0; i < pad; i++)
		buf_addc(b, i % 64 == 63 ? '\n' : 'x');
	buf_adds(b, "\ndeep text\n");
	for (i = depth + 1; i-- > 0;)
		buf_addf(b, "--b%zu--\n", i);
}

static void
test_nested_deep(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct mime m;
	double t;

	(void)state;
	/* Within the limit: the leaf is found. */
	nested(&b, LIMIT_MIME_DEPTH - 2, 0);
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	assert_int_equal(m.flags, 0);
	assert_int_equal(m.nparts, 1);
	assert_true(str_eqs(m.parts[0].data, "\ndeep text"));
	/* 1,000 deep: cut, flagged, no crash. */
	buf_reset(&b);
	nested(&b, 1000, 0);
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	assert_true(m.flags & MIME_F_DEPTH);
	assert_int_equal(m.nparts, 0);
	/* 100,000 deep in a mail near the size limit: libetpan alone would
	 * recurse 100,000 times over megabytes each (stack overflow,
	 * minutes). */
	buf_reset(&b);
	nested(&b, 100000, 0);
	t = time_mono();
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	print_message(
	    "100,000 deep (%zu bytes): %.3f s\n", b.n, time_mono() - t);
	assert_true(m.flags & (MIME_F_DEPTH | MIME_F_PARTS));
	/* Deep and big: the scan budget bounds libetpan's work. */
	buf_reset(&b);
	nested(&b, 200, LIMIT_MAIL_SIZE - 64 * 1024);
	t = time_mono();
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	print_message("200 deep (%zu bytes): %.3f s\n", b.n, time_mono() - t);
	assert_true(m.flags & (MIME_F_DEPTH | MIME_F_PARTS));
	buf_free(&b);
	arena_free(a);
}

static void
test_many_parts(void **state)
{
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct mime m;
	size_t i;

	(void)state;
	buf_adds(&b, "Content-Type: multipart/mixed; boundary=p\n\n");
	for (i = 0; i < 2 * LIMIT_MIME_PARTS; i++)
		buf_addf(&b, "--p\nContent-Type: text/plain\n\npart %zu\n", i);
	buf_adds(&b, "--p--\n");
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	assert_true(m.flags & MIME_F_PARTS);
	assert_true(m.nparts <= LIMIT_MIME_PARTS);
	assert_true(m.nparts >= LIMIT_MIME_PARTS - 1);
	assert_true(str_eqs(m.parts[0].data, "part 0"));
	/* Headerless parts do not count against the guard. */
	buf_reset(&b);
	buf_adds(&b, "Content-Type: multipart/mixed; boundary=p\n\n");
	for (i = 0; i < 100; i++)
		buf_addf(&b, "--p\n\npart %zu\n", i);
	buf_adds(&b, "--p--\n");
	assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
	assert_int_equal(m.flags, 0);
	assert_int_equal(m.nparts, 100);
	buf_free(&b);
	arena_free(a);
}

static void
test_big_mail(void **state)
{
	struct arena *a = arena_new();
	size_t n = 50u * 1024 * 1024, i;
	char *raw = malloc(n);
	struct hdr h;
	struct mime m;
	static const char head[] = "Subject: big\n\n";

	(void)state;
	for (i = 0; i < n; i++)
		raw[i] = i % 80 == 79 ? '\n' : 'a';
	memcpy(raw, head, sizeof(head) - 1);
	assert_int_equal(hdr_split(a, raw, n, &h), ERR_OK);
	assert_int_equal(mime_parse(a, raw, n, &h, &m), ERR_LIMIT);
	/* Just within the limit it parses, without a copy. */
	assert_int_equal(mime_parse(a, raw, LIMIT_MAIL_SIZE, &h, &m), ERR_OK);
	assert_int_equal(m.nparts, 1);
	assert_ptr_equal(m.parts[0].data.p, raw + sizeof(head) - 1);
	free(raw);
	arena_free(a);
}

/* Random bytes behind real headers, with delimiters sprinkled in. */
static void
test_binary_garbage(void **state)
{
	static const char *const heads[] = {
		"Content-Type: multipart/mixed; boundary=x\n\n",
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: base64\n\n",
		"Content-Type: text/plain; charset=iso-2022-jp\n"
		"Content-Transfer-Encoding: quoted-printable\n\n",
		"Content-Type: multipart/alternative; boundary=x\n\n",
	};
	static const char *const bits[] = { "\n--x\n", "\n--x--\n", "\n\n",
		"\nContent-Type: multipart/mixed; boundary=y\n",
		"\nContent-Transfer-Encoding: base64\n", "\n--y\n", "=\n",
		"=C3", "\r\n", "\0" };
	struct arena *a = arena_new();
	struct buf b = BUF_INIT;
	struct mime m;
	uint32_t x = 42;
	int round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		size_t len, i;

		buf_reset(&b);
		buf_adds(&b, heads[round % 4]);
		x = x * 1103515245u + 12345u;
		len = (x >> 8) % 3000;
		for (i = 0; i < len; i++) {
			x = x * 1103515245u + 12345u;
			if ((x >> 24) < 16) {
				const char *s = bits[(x >> 8) % 10];

				buf_add(&b, s, *s ? strlen(s) : 1);
			} else {
				buf_addc(&b, (char)(x >> 16));
			}
		}
		assert_int_equal(parse(a, b.p, b.n, &m), ERR_OK);
		arena_reset(a);
	}
	buf_free(&b);
	arena_free(a);
}

/* --- the corpus -------------------------------------------------------- */

/* The whole gzip file, inflated. */
static char *
gunzip(const char *path, size_t *n)
{
	gzFile f = gzopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[1 << 16];
	int r;

	if (f == NULL)
		return NULL;
	while ((r = gzread(f, chunk, sizeof(chunk))) > 0)
		buf_add(&b, chunk, (size_t)r);
	gzclose(f);
	return buf_detach(&b, n);
}

/*
 * Call fn on each message of an mboxrd text: split at "\nFrom " lines,
 * the From line dropped, one '>' taken off every ">From " line (mboxrd
 * quoting).  Returns the number of messages.
 */
static size_t
each_mail(
    char *mbox, size_t n, void (*fn)(void *, const char *, size_t), void *ctx)
{
	size_t off = 0, count = 0;
	struct buf msg = BUF_INIT;

	while (off < n) {
		char *end = memmem(mbox + off, n - off, "\nFrom ", 6);
		size_t stop = end ? (size_t)(end - mbox) + 1 : n;
		char *nl = memchr(mbox + off, '\n', stop - off);
		size_t p = nl ? (size_t)(nl - mbox) + 1 : stop;

		buf_reset(&msg);
		while (p < stop) {
			char *e = memchr(mbox + p, '\n', stop - p);
			size_t q = e ? (size_t)(e - mbox) + 1 : stop, k = p;

			while (k < q && mbox[k] == '>')
				k++;
			if (k > p && q - k >= 5 &&
			    memcmp(mbox + k, "From ", 5) == 0)
				p++;
			buf_add(&msg, mbox + p, q - p);
			p = q;
		}
		fn(ctx, msg.p ? msg.p : "", msg.n);
		count++;
		off = stop;
	}
	buf_free(&msg);
	return count;
}

struct corpus_stats {
	struct arena *a;
	size_t mails, parts, text, multipart, flagged, from_ok, bytes;
	double hdr_s, mime_s;
};

static void
corpus_one(void *ctx, const char *raw, size_t n)
{
	struct corpus_stats *st = ctx;
	struct hdr h;
	struct mime m;
	struct addr from;
	double t0 = time_mono(), t1;
	size_t i;

	assert_int_equal(hdr_split(st->a, raw, n, &h), ERR_OK);
	t1 = time_mono();
	assert_int_equal(mime_parse(st->a, raw, n, &h, &m), ERR_OK);
	st->hdr_s += t1 - t0;
	st->mime_s += time_mono() - t1;
	check_invariants(&m);
	st->mails++;
	st->bytes += n;
	st->parts += m.nparts;
	st->flagged += m.flags != 0;
	for (i = 0; i < m.nparts; i++)
		st->text += m.parts[i].text;
	if (hdr_get(&h, "Content-Type") != NULL &&
	    str_istartswith(
	        str_ltrim(hdr_value(st->a, &h, "Content-Type")), "multipart/"))
		st->multipart++;
	if (addr_parse(st->a, hdr_value(st->a, &h, "From"), &from) == ERR_OK)
		st->from_ok++;
	arena_reset(st->a);
}

static void
test_corpus(void **state)
{
	const char *path = tu_corpus();
	struct corpus_stats st;
	size_t n = 0;
	char *mbox;

	(void)state;
	if (path == NULL)
		skip();
	mbox = gunzip(path, &n);
	assert_non_null(mbox);
	memset(&st, 0, sizeof(st));
	st.a = arena_new();
	assert_int_equal(each_mail(mbox, n, corpus_one, &st), 3509);
	print_message("corpus: %zu mails, %.1f MB, %zu multipart, %zu parts "
	              "(%zu text), %zu flagged, %zu From parsed\n",
	    st.mails, (double)st.bytes / 1e6, st.multipart, st.parts, st.text,
	    st.flagged, st.from_ok);
	print_message("corpus: hdr_split %.3f s, mime_parse %.3f s "
	              "(%.0f mails/s together)\n",
	    st.hdr_s, st.mime_s, (double)st.mails / (st.hdr_s + st.mime_s));
	assert_int_equal(st.from_ok, st.mails);
	arena_free(st.a);
	free(mbox);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_fast_path_no_copy),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_nested_deep),
		cmocka_unit_test(test_many_parts),
		cmocka_unit_test(test_big_mail),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
