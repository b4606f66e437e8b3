/*
 * Trailers (DESIGN.md §4) in two flavours.
 *
 * TRAILER_BLOCK reads a commit message body (after the subject, as
 * patch.message holds it) the way git's trailer.c finds the trailer
 * block (git 2.39, find_trailer_block_start): the last paragraph is the
 * block when all its lines are trailers, or when it holds a
 * "Signed-off-by: " line and at least a quarter of its lines are
 * trailers; lines starting with a blank continue the trailer above them
 * and are unfolded into one value; lines starting with '#' are comments.
 * The subject is not part of the text, so the first paragraph may be
 * the block (git would skip it as the title of a whole message).
 *
 * TRAILER_REPLY reads a reply the way b4 (0.12, LoreMessage.find_trailers
 * with followup=True) collects follow-up trailers: any line, anywhere,
 * even inside a paragraph and after leading blanks, of the form
 * "Name: value" with a blank after the colon; two wrapped shapes are
 * joined first ("Name: Long Name" + "<addr>" on the next line, and
 * "Fixes: sha (title" + "rest)" on the next line); a value holding an
 * http:// or https:// URL is ignored; "Cc:" is ignored (b4 drops From,
 * Author, Cc and To in follow-ups, since people paste headers), and so
 * are "Link:" and "Closes:", whose values are URLs.  b4 would take any
 * name with an address; we take the "-by" names and "Fixes:".
 *
 * Both modes: nothing after the signature ("-- "); quoted lines ('>',
 * '|') never match, since a name starts with a letter or digit; person
 * trailers ("-by" and "Cc") need an address with a dot in its domain
 * (b4's test, so "Acked-by: Name" and "Acked-by: root@localhost" are
 * not trailers), found by addr_parse() in the part of the value before
 * any " # comment"; the value itself is kept as written.
 */
#include "parsers/trailer.h"

#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/ascii.h"
#include "util/xalloc.h"

struct collect {
	struct arena *a;
	enum trailer_mode mode;
	struct trailer *v;
	size_t n, cap;
	bool over; /* more than LIMIT_TRAILERS */
};

/* Lines of the text before the signature, as views. */
struct lines {
	struct str *l;
	size_t n;
};

static void
lines_split(struct str text, struct lines *ls)
{
	struct str rest = text, line;
	size_t cap = 1, i;

	for (i = 0; i < text.n; i++)
		cap += text.p[i] == '\n';
	ls->l = xcalloc(cap, sizeof(*ls->l));
	ls->n = 0;
	while (ls->n < cap && str_nextline(&rest, &line)) {
		if (str_eqs(line, "-- "))
			break;
		ls->l[ls->n++] = line;
	}
}

static bool
blank_line(struct str s)
{
	return str_trim(s).n == 0;
}

static bool
starts_blank(struct str s)
{
	return s.n > 0 && ascii_isspace(s.p[0]);
}

/* "Name" part of a name: an ASCII letter or digit, then those and '-'. */
static size_t
name_len(struct str s)
{
	size_t i;

	if (s.n == 0 || !ascii_isalnum(s.p[0]))
		return 0;
	for (i = 1; i < s.n && (ascii_isalnum(s.p[i]) || s.p[i] == '-'); i++)
		;
	return i;
}

/*
 * git's find_separator: a token of letters, digits and '-', optional
 * blanks, then ':'.  The offset of the ':' or -1.
 */
static long
git_separator(struct str s)
{
	size_t i = name_len(s);

	if (i == 0)
		return -1;
	while (i < s.n && (s.p[i] == ' ' || s.p[i] == '\t'))
		i++;
	return i < s.n && s.p[i] == ':' ? (long)i : -1;
}

static bool
ends_with_by(struct str name)
{
	return name.n > 3 && str_ieqs(str_skip(name, name.n - 3), "-by");
}

/* "reviewed-BY" -> "Reviewed-by": the first letter up, the rest down. */
static const char *
canonical(struct arena *a, struct str name)
{
	char *p = arena_strndup(a, name.p, name.n);

	ascii_lower(p, name.n);
	p[0] = ascii_toupper(p[0]);
	return p;
}

/* b4's \S+@\S+\.\S+: an '@' with text before it and a dot after it. */
static bool
looks_like_email(const char *e)
{
	const char *at = strchr(e, '@');

	return at != NULL && at > e && strchr(at + 1, '.') != NULL &&
	    at[strlen(at) - 1] != '.' && at[1] != '.';
}

/*
 * The address part of a person value: before any " # comment" (b4's
 * extinfo, the kernel's "Cc: <stable@vger.kernel.org> # 6.1"), and up to
 * the '>' closing the address when there is one.
 */
static struct str
person_part(struct str v)
{
	size_t i;
	long lt, gt;

	for (i = 1; i < v.n; i++)
		if (v.p[i] == '#' && ascii_isspace(v.p[i - 1])) {
			v.n = i;
			break;
		}
	lt = str_find(v, '<');
	if (lt >= 0) {
		gt = str_find(str_skip(v, (size_t)lt), '>');
		if (gt >= 0)
			v.n = (size_t)lt + (size_t)gt + 1;
	}
	return str_trim(v);
}

static bool
has_url(struct str v)
{
	return str_findstr(v, "http://", 7) >= 0 ||
	    str_findstr(v, "https://", 8) >= 0;
}

/* Keep one "name: value" when the mode takes that name and value. */
static void
add(struct collect *c, struct str name, struct str value)
{
	bool block = c->mode == TRAILER_BLOCK, person;
	struct trailer t;

	if (ends_with_by(name))
		person = true;
	else if (str_ieqs(name, "fixes"))
		person = false;
	else if (block && (str_ieqs(name, "link") || str_ieqs(name, "closes")))
		person = false;
	else if (block && str_ieqs(name, "cc"))
		person = true;
	else
		return;
	value = str_trim(value);
	if (value.n == 0 || (!block && has_url(value)))
		return;
	memset(&t, 0, sizeof(t));
	if (person) {
		struct str part = person_part(value);

		if (part.n == 0 ||
		    addr_parse(c->a, part, &t.person) != ERR_OK ||
		    t.person.email == NULL || !looks_like_email(t.person.email))
			return;
	} else {
		t.person.name = "";
		t.person.email = NULL;
	}
	if (c->n == LIMIT_TRAILERS) {
		c->over = true;
		return;
	}
	t.name = canonical(c->a, name);
	t.value = arena_strndup(c->a, value.p, value.n);
	/* Grown as found: most texts have a few, or none. */
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = t;
}

/*
 * Where the trailer block of lines [0, end) starts, as git decides it
 * (see the top of the file); end when there is none.
 */
static size_t
block_start(const struct lines *ls, size_t end)
{
	size_t i, trailers = 0, others = 0, maybe_cont = 0;
	bool recognized = false, seen = false;

	for (i = end; i-- > 0;) {
		struct str l = ls->l[i];

		/* Comment lines and the blank lines below the last text do
		 * not end the paragraph (git's only_spaces). */
		if (l.n > 0 && l.p[0] == '#') {
			others += maybe_cont;
			maybe_cont = 0;
			continue;
		}
		if (blank_line(l)) {
			if (!seen)
				continue;
			break;
		}
		seen = true;
		if (str_startswith(l, "Signed-off-by: ") ||
		    str_startswith(l, "(cherry picked from commit ")) {
			trailers++;
			maybe_cont = 0;
			recognized = true;
		} else if (git_separator(l) >= 1 && !starts_blank(l)) {
			trailers++;
			maybe_cont = 0;
		} else if (starts_blank(l)) {
			maybe_cont++;
		} else {
			others += 1 + maybe_cont;
			maybe_cont = 0;
		}
	}
	/* i is the blank line above the paragraph, or SIZE_MAX at the top. */
	others += maybe_cont;
	if ((recognized && trailers * 3 >= others) ||
	    (trailers > 0 && others == 0))
		return i + 1;
	return end;
}

static void
parse_block(struct collect *c, const struct lines *ls)
{
	size_t end = ls->n, i, j;
	struct buf v;

	for (i = 0; i < ls->n; i++) {
		struct str l = ls->l[i];

		if (str_startswith(l, "---") &&
		    (l.n == 3 || ascii_isspace(l.p[3]))) {
			end = i;
			break;
		}
	}
	while (end > 0 && blank_line(ls->l[end - 1]))
		end--;
	buf_init(&v, 0);
	for (i = block_start(ls, end); i < end; i = j) {
		struct str l = ls->l[i];
		long sep = git_separator(l);

		j = i + 1;
		if (sep < 1)
			continue;
		/* git unfolds a continuation into one space. */
		buf_reset(&v);
		buf_addstr(&v, str_skip(l, (size_t)sep + 1));
		for (; j < end && starts_blank(ls->l[j]); j++) {
			buf_addc(&v, ' ');
			buf_addstr(&v, str_ltrim(ls->l[j]));
		}
		add(c, str_rtrim(str_make(l.p, (size_t)sep)), buf_str(&v));
	}
	buf_free(&v);
}

/*
 * b4's "^\S+:\s+": a run of non-blanks ending in ':' at the start of the
 * line, then a blank.  The offset just after the ':', or 0.
 */
static size_t
b4_head(struct str l)
{
	size_t i = 0;

	while (i < l.n && !ascii_isspace(l.p[i]))
		i++;
	if (i < 2 || l.p[i - 1] != ':' || i == l.n)
		return 0;
	return i;
}

/* "Fixes: 0123abcd (title that goes on" with no ')' after the '('. */
static bool
fixes_open(struct str l)
{
	size_t i = b4_head(l), hex;

	if (i == 0)
		return false;
	while (i < l.n && ascii_isspace(l.p[i]))
		i++;
	for (hex = i; i < l.n &&
	     (ascii_isdigit(l.p[i]) || (l.p[i] >= 'a' && l.p[i] <= 'f'));
	     i++)
		;
	if (i == hex || i == l.n || !ascii_isspace(l.p[i]))
		return false;
	while (i < l.n && ascii_isspace(l.p[i]))
		i++;
	if (i + 1 >= l.n || l.p[i] != '(')
		return false;
	return memchr(l.p + i, ')', l.n - i) == NULL;
}

/* The rest of the title: a ')' after at least one character. */
static bool
fixes_close(struct str l)
{
	return l.n > 1 && memchr(l.p + 1, ')', l.n - 1) != NULL;
}

/* "Tested-by: Long Name" with no '<': the address is on the next line. */
static bool
name_open(struct str l)
{
	size_t i = b4_head(l);

	return i > 0 && i + 1 < l.n && memchr(l.p, '<', l.n) == NULL;
}

/* A line that is only "<addr>". */
static bool
addr_line(struct str l)
{
	return l.n > 2 && l.p[0] == '<' && l.p[l.n - 1] == '>' &&
	    memchr(l.p, '>', l.n - 1) == NULL;
}

/* b4's "^\s*(\w\S+):\s+(\S.*)" for the names we know. */
static bool
reply_split(struct str l, struct str *name, struct str *value)
{
	size_t n;

	l = str_ltrim(l);
	n = name_len(l);
	if (n < 2 || n + 1 >= l.n || l.p[n] != ':' ||
	    !ascii_isspace(l.p[n + 1]))
		return false;
	*name = str_make(l.p, n);
	*value = str_trim(str_skip(l, n + 1));
	return value->n > 0;
}

static void
parse_reply(struct collect *c, const struct lines *ls)
{
	struct str line, name, value;
	struct buf j;
	size_t i;

	buf_init(&j, 0);
	for (i = 0; i < ls->n; i++) {
		line = ls->l[i];
		if (i + 1 < ls->n &&
		    ((fixes_open(line) && fixes_close(ls->l[i + 1])) ||
		        (name_open(line) && addr_line(ls->l[i + 1])))) {
			buf_reset(&j);
			buf_addstr(&j, line);
			buf_addc(&j, ' ');
			buf_addstr(&j, ls->l[++i]);
			line = buf_str(&j);
		}
		if (reply_split(line, &name, &value))
			add(c, name, value);
	}
	buf_free(&j);
}

enum err
trailer_parse(struct arena *a, struct str text, enum trailer_mode m,
    struct trailer **out, size_t *n)
{
	struct collect c;
	struct lines ls;

	memset(&c, 0, sizeof(c));
	c.a = a;
	c.mode = m;
	*out = NULL;
	*n = 0;
	lines_split(text, &ls);
	if (m == TRAILER_BLOCK)
		parse_block(&c, &ls);
	else
		parse_reply(&c, &ls);
	free(ls.l);
	if (c.over) {
		free(c.v);
		return ERR_LIMIT;
	}
	if (c.n > 0) {
		*out = arena_alloc(a, sizeof(**out) * c.n);
		memcpy(*out, c.v, sizeof(**out) * c.n);
	}
	*n = c.n;
	free(c.v);
	return ERR_OK;
}

void
trailer_format(struct buf *out, const struct trailer *t)
{
	buf_addf(out, "%s: %s", t->name, t->value);
}

bool
trailer_same(const struct trailer *x, const struct trailer *y)
{
	if (ascii_stricmp(x->name, y->name) != 0)
		return false;
	if (x->person.email != NULL && y->person.email != NULL)
		return addr_same(x->person.email, y->person.email);
	return ascii_stricmp(x->value, y->value) == 0;
}
