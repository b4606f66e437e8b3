/*
 * The template renderer (a Mustache subset, see template.h): the data
 * model, the compiler, the name check and the renderer.  Mail templates
 * and their loading are in the second half of the file.
 */
#include "bot/mailout/template.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"
#include "util/ascii.h"
#include "util/esc.h"
#include "util/log.h"
#include "util/xalloc.h"

/* A name longer than this is a mistake, not a name. */
#define NAME_MAX_LEN 64

/* ---- the data model ---------------------------------------------------- */

struct entry {
	struct entry *next;
	const char *name;
	bool is_list;
	const char *value; /* string entries */
	size_t n;
	struct template_data *first, *last; /* list entries */
	size_t count;
};

struct template_data {
	struct arena *arena; /* the root's */
	struct entry *head, *tail;
	struct template_data *next; /* the next item of the list holding it */
};

struct template_data *
template_data_new(void)
{
	struct arena *a = arena_new();
	struct template_data *d = arena_zalloc(a, sizeof(*d));

	d->arena = a;
	return d;
}

void
template_data_free(struct template_data *root)
{
	if (root)
		arena_free(root->arena);
}

static struct entry *
data_find(const struct template_data *d, const char *name, size_t n)
{
	struct entry *e;

	for (e = d->head; e; e = e->next)
		if (strlen(e->name) == n && memcmp(e->name, name, n) == 0)
			return e;
	return NULL;
}

/* The entry called name, created empty when absent. */
static struct entry *
data_entry(struct template_data *d, const char *name)
{
	struct entry *e = data_find(d, name, strlen(name));

	if (e)
		return e;
	e = arena_zalloc(d->arena, sizeof(*e));
	e->name = arena_strdup(d->arena, name);
	e->value = "";
	if (d->tail)
		d->tail->next = e;
	else
		d->head = e;
	d->tail = e;
	return e;
}

void
template_data_setn(
    struct template_data *d, const char *name, const char *value, size_t n)
{
	struct entry *e = data_entry(d, name);

	e->is_list = false;
	e->first = e->last = NULL;
	e->count = 0;
	e->value = arena_strndup(d->arena, value ? value : "", value ? n : 0);
	e->n = value ? n : 0;
}

void
template_data_set(struct template_data *d, const char *name, const char *value)
{
	template_data_setn(d, name, value, value ? strlen(value) : 0);
}

void
template_data_setf(
    struct template_data *d, const char *name, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("template: %s: bad format", name);
	buf_reserve(&b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b.p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	template_data_setn(d, name, b.p, (size_t)n);
	buf_free(&b);
}

struct template_data *
template_data_add(struct template_data *d, const char *name)
{
	struct entry *e = data_entry(d, name);
	struct template_data *item = arena_zalloc(d->arena, sizeof(*item));

	if (!e->is_list) {
		e->is_list = true;
		e->value = "";
		e->n = 0;
	}
	item->arena = d->arena;
	if (e->last)
		e->last->next = item;
	else
		e->first = item;
	e->last = item;
	e->count++;
	return item;
}

/* ---- compiling --------------------------------------------------------- */

enum node_kind {
	NODE_TEXT,
	NODE_VAR,
	NODE_SECTION,
	NODE_INVERTED
};

struct node {
	enum node_kind kind;
	const char *p; /* text, or the name */
	size_t n;
	const char *word; /* the word of {{#name=word}}, or NULL */
	size_t wn;
	size_t end; /* sections: the index after their last node */
	int line;
};

struct template
{
	char *name;
	char *text; /* our copy: nodes point into it */
	size_t len;
	struct node *nodes;
	size_t nnodes, cap;
	bool html; /* values are HTML-escaped (template_set_html) */
};

/* The state of one compilation. */
struct tparse {
	struct template *t;
	struct buf *why;
	const char *s;
	size_t n;
	size_t counted; /* newlines are counted up to here */
	int line; /* the line of offset counted */
	size_t open[TEMPLATE_MAX_DEPTH]; /* node indexes of open sections */
	int depth;
};

static enum err fail(struct tparse *ps, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum err
fail(struct tparse *ps, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = '\0';
	va_end(ap);
	if (ps->why) {
		buf_reset(ps->why);
		buf_addf(ps->why, "%s:%d: %s", ps->t->name, line, msg);
	}
	return ERR_PARSE;
}

/* Tag text for messages: printable, short. */
static const char *
shown(char *out, size_t outn, const char *p, size_t n)
{
	return log_quote(out, outn, p, n);
}

static int
line_at(struct tparse *ps, size_t off)
{
	for (; ps->counted < off; ps->counted++)
		if (ps->s[ps->counted] == '\n')
			ps->line++;
	return ps->line;
}

static struct node *
add_node(
    struct tparse *ps, enum node_kind kind, const char *p, size_t n, int line)
{
	struct template *t = ps->t;
	struct node *nd;

	t->nodes = xgrow(t->nodes, &t->cap, t->nnodes + 1, sizeof(*t->nodes));
	nd = &t->nodes[t->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->kind = kind;
	nd->p = p;
	nd->n = n;
	nd->line = line;
	return nd;
}

static bool
name_char(char c)
{
	return ascii_isalnum(c) || c == '_' || c == '-';
}

static bool
valid_name(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!name_char(p[i]))
			return false;
	return true;
}

static bool
valid_word(const char *p, size_t n)
{
	size_t i;

	if (n == 0 || n > NAME_MAX_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!name_char(p[i]) && p[i] != '.')
			return false;
	return true;
}

/*
 * A section tag is "standalone" when only blanks share its line: then the
 * whole line goes, and *lstart / *lend get the line's start and the
 * offset after its newline.
 */
static bool
standalone(const char *s, size_t n, size_t tag, size_t after, size_t *lstart,
    size_t *lend)
{
	size_t b = tag, e = after;

	while (b > 0 && (s[b - 1] == ' ' || s[b - 1] == '\t'))
		b--;
	if (b > 0 && s[b - 1] != '\n')
		return false;
	while (e < n && (s[e] == ' ' || s[e] == '\t' || s[e] == '\r'))
		e++;
	if (e < n && s[e] != '\n')
		return false;
	*lstart = b;
	*lend = e < n ? e + 1 : e;
	return true;
}

/* Split "name" or "name=word" (trimmed) and check both. */
static bool
split_key(const char *p, size_t n, struct str *name, struct str *word)
{
	struct str key = str_trim(str_make(p, n));
	long eq = str_find(key, '=');

	*word = STR_NULL;
	if (eq < 0) {
		*name = key;
		return valid_name(key.p, key.n);
	}
	*name = str_trim(str_make(key.p, (size_t)eq));
	*word = str_trim(str_skip(key, (size_t)eq + 1));
	return valid_name(name->p, name->n) && valid_word(word->p, word->n);
}

static enum err
open_section(
    struct tparse *ps, char sigil, struct str name, struct str word, int line)
{
	struct node *nd;

	if (ps->depth == TEMPLATE_MAX_DEPTH)
		return fail(ps, line, "sections nest deeper than %d",
		    TEMPLATE_MAX_DEPTH);
	nd = add_node(ps, sigil == '#' ? NODE_SECTION : NODE_INVERTED, name.p,
	    name.n, line);
	nd->word = word.p;
	nd->wn = word.n;
	ps->open[ps->depth++] = ps->t->nnodes - 1;
	return ERR_OK;
}

static enum err
close_section(struct tparse *ps, struct str name, struct str word, int line)
{
	char a[80], b[80];
	struct node *nd;

	if (ps->depth == 0)
		return fail(ps, line, "{{/%s}} closes nothing",
		    shown(a, sizeof(a), name.p, name.n));
	nd = &ps->t->nodes[ps->open[ps->depth - 1]];
	if (!str_eq(name, str_make(nd->p, nd->n)) ||
	    (word.p && !str_eq(word, str_make(nd->word, nd->wn))))
		return fail(ps, line,
		    "{{/%s}} does not close {{%c%s}} of line %d",
		    shown(a, sizeof(a), name.p, name.n),
		    nd->kind == NODE_SECTION ? '#' : '^',
		    shown(b, sizeof(b), nd->p, nd->n), nd->line);
	nd->end = ps->t->nnodes;
	ps->depth--;
	return ERR_OK;
}

/* One tag: inner is what stands between the braces. */
static enum err
parse_tag(struct tparse *ps, const char *inner, size_t n, int line)
{
	struct str key = str_trim(str_make(inner, n)), name, word;
	char sigil = key.n ? key.p[0] : '\0';
	char shownbuf[80];

	if (sigil == '!')
		return ERR_OK;
	if (sigil == '#' || sigil == '^' || sigil == '/')
		key = str_skip(key, 1);
	if (!split_key(key.p, key.n, &name, &word) || memchr(inner, '\n', n))
		return fail(ps, line, "bad tag {{%s}}",
		    shown(shownbuf, sizeof(shownbuf), inner, n));
	if (sigil == '#' || sigil == '^')
		return open_section(ps, sigil, name, word, line);
	if (sigil == '/')
		return close_section(ps, name, word, line);
	if (word.p)
		return fail(ps, line, "a test {{%s}} works only in a section",
		    shown(shownbuf, sizeof(shownbuf), inner, n));
	add_node(ps, NODE_VAR, name.p, name.n, line);
	return ERR_OK;
}

/* Whether a tag (its inside) is a section, close or comment tag. */
static bool
is_sigil(const char *inner, size_t n)
{
	struct str key = str_ltrim(str_make(inner, n));

	return key.n > 0 &&
	    (key.p[0] == '#' || key.p[0] == '^' || key.p[0] == '/' ||
	        key.p[0] == '!');
}

static enum err
parse_all(struct tparse *ps)
{
	const char *s = ps->s;
	size_t pos = 0, lit = 0, tag, close, after, ls, le;
	const char *q;
	enum err e;
	int line;

	while ((q = memmem(s + pos, ps->n - pos, "{{", 2)) != NULL) {
		tag = (size_t)(q - s);
		line = line_at(ps, tag);
		q = memmem(s + tag + 2, ps->n - tag - 2, "}}", 2);
		if (q == NULL)
			return fail(ps, line, "unterminated tag");
		close = (size_t)(q - s);
		after = close + 2;
		if (is_sigil(s + tag + 2, close - tag - 2) &&
		    standalone(s, ps->n, tag, after, &ls, &le)) {
			after = le;
		} else {
			ls = tag;
		}
		if (ls > lit)
			add_node(ps, NODE_TEXT, s + lit, ls - lit, line);
		if ((e = parse_tag(ps, s + tag + 2, close - tag - 2, line)))
			return e;
		pos = lit = after;
	}
	if (ps->n > lit)
		add_node(ps, NODE_TEXT, s + lit, ps->n - lit, line_at(ps, lit));
	if (ps->depth > 0) {
		struct node *nd = &ps->t->nodes[ps->open[ps->depth - 1]];
		char a[80];

		return fail(ps, nd->line, "{{%c%s}} is never closed",
		    nd->kind == NODE_SECTION ? '#' : '^',
		    shown(a, sizeof(a), nd->p, nd->n));
	}
	return ERR_OK;
}

enum err
template_parse(const char *name, const char *text, size_t n, int first_line,
    struct template **out, struct buf *why)
{
	struct template *t = xcalloc(1, sizeof(*t));
	struct tparse ps;
	enum err e;

	*out = NULL;
	t->name = xstrdup(name);
	memset(&ps, 0, sizeof(ps));
	ps.t = t;
	ps.why = why;
	ps.line = first_line;
	if (n > TEMPLATE_MAX_SIZE) {
		fail(
		    &ps, first_line, "larger than %u bytes", TEMPLATE_MAX_SIZE);
		template_free(t);
		return ERR_LIMIT;
	}
	t->text = xstrndup(text, n);
	t->len = n;
	ps.s = t->text;
	ps.n = n;
	if ((e = parse_all(&ps)) != ERR_OK) {
		template_free(t);
		return e;
	}
	*out = t;
	return ERR_OK;
}

void
template_set_html(struct template *t, bool on)
{
	t->html = on;
}

void
template_free(struct template *t)
{
	if (t == NULL)
		return;
	free(t->nodes);
	free(t->text);
	free(t->name);
	free(t);
}

/* ---- checking names ---------------------------------------------------- */

static bool
known(const char *const *names, const char *full)
{
	size_t i;

	for (i = 0; names[i]; i++)
		if (strcmp(names[i], full) == 0)
			return true;
	return false;
}

/*
 * Resolve a name used under the scopes paths[0..depth) (innermost last):
 * the first scope, from the innermost out, where "path.name" is known.
 * The full name goes to out (NAME_MAX_LEN per level fits).
 */
static bool
resolve(const char *const *names, char paths[][TEMPLATE_MAX_DEPTH * 66],
    int depth, const struct node *nd, char *out, size_t outn)
{
	int i, r;

	for (i = depth - 1; i >= 0; i--) {
		if (paths[i][0])
			r = snprintf(
			    out, outn, "%s.%.*s", paths[i], (int)nd->n, nd->p);
		else
			r = snprintf(out, outn, "%.*s", (int)nd->n, nd->p);
		if (r < 0 || (size_t)r >= outn)
			continue;
		if (known(names, out))
			return true;
	}
	return false;
}

enum err
template_check(
    const struct template *t, const char *const *names, struct buf *why)
{
	char paths[TEMPLATE_MAX_DEPTH + 1][TEMPLATE_MAX_DEPTH * 66];
	size_t ends[TEMPLATE_MAX_DEPTH + 1];
	char full[TEMPLATE_MAX_DEPTH * 66], a[80];
	int depth = 1;
	size_t i;

	paths[0][0] = '\0';
	ends[0] = t->nnodes;
	for (i = 0; i < t->nnodes; i++) {
		const struct node *nd = &t->nodes[i];

		while (depth > 1 && i >= ends[depth - 1])
			depth--;
		if (nd->kind == NODE_TEXT)
			continue;
		if (!resolve(names, paths, depth, nd, full, sizeof(full))) {
			if (why) {
				buf_reset(why);
				buf_addf(why, "%s:%d: unknown name {{%s}}",
				    t->name, nd->line,
				    shown(a, sizeof(a), nd->p, nd->n));
			}
			return ERR_PARSE;
		}
		if (nd->kind == NODE_SECTION && nd->word == NULL) {
			/* depth stays within the parse limit + 1. */
			memcpy(paths[depth], full, sizeof(full));
			ends[depth++] = nd->end;
		}
	}
	return ERR_OK;
}

/* ---- rendering --------------------------------------------------------- */

struct scope {
	const struct template_data *rec;
	const struct scope *up;
};

static const struct entry *
lookup(const struct scope *s, const struct node *nd)
{
	const struct entry *e;

	for (; s; s = s->up)
		if ((e = data_find(s->rec, nd->p, nd->n)) != NULL)
			return e;
	return NULL;
}

static bool
truth(const struct entry *e, const struct node *nd)
{
	if (e == NULL)
		return false;
	if (nd->word)
		return !e->is_list && e->n == nd->wn &&
		    memcmp(e->value, nd->word, nd->wn) == 0;
	return e->is_list ? e->count > 0 : e->n > 0;
}

/* Add p to out, within its cap; an escape is measured once it is
 * written (by at most six times p's size). */
static enum err
put(struct buf *out, const char *p, size_t n, bool html)
{
	if (html) {
		esc_html_attr(out, p, n);
		return buf_fits(out, 0) ? ERR_OK : ERR_LIMIT;
	}
	if (!buf_fits(out, n))
		return ERR_LIMIT;
	buf_add(out, p, n);
	return ERR_OK;
}

static enum err
render_range(const struct template *t, size_t from, size_t to,
    const struct scope *s, struct buf *out)
{
	const struct template_data *item;
	const struct entry *e;
	struct scope inner;
	enum err err = ERR_OK;
	size_t i = from;

	while (i < to && err == ERR_OK) {
		const struct node *nd = &t->nodes[i];

		if (nd->kind == NODE_TEXT || nd->kind == NODE_VAR) {
			e = nd->kind == NODE_VAR ? lookup(s, nd) : NULL;
			if (nd->kind == NODE_TEXT)
				err = put(out, nd->p, nd->n, false);
			else if (e && !e->is_list)
				err = put(out, e->value, e->n, t->html);
			i++;
			continue;
		}
		e = lookup(s, nd);
		if (nd->kind == NODE_INVERTED) {
			if (!truth(e, nd))
				err = render_range(t, i + 1, nd->end, s, out);
		} else if (truth(e, nd) && e->is_list) {
			inner.up = s;
			for (item = e->first; item && !err; item = item->next) {
				inner.rec = item;
				err = render_range(
				    t, i + 1, nd->end, &inner, out);
			}
		} else if (truth(e, nd)) {
			err = render_range(t, i + 1, nd->end, s, out);
		}
		i = nd->end;
	}
	return err;
}

enum err
template_render(
    const struct template *t, const struct template_data *d, struct buf *out)
{
	struct scope root;

	root.rec = d;
	root.up = NULL;
	return render_range(t, 0, t->nnodes, &root, out);
}

/* ---- mail templates ---------------------------------------------------- */

const char *const template_mail_events[TEMPLATE_MAIL_NEVENTS + 1] = { "staged",
	"updated", "graduated", "merged", "dropped", "conflict", "test-failed",
	"command-reply", "version-from-other-sender", "tree-conflict", NULL };

/*
 * What every mail template may use.  Values the workflow does not know
 * (no status page configured, no archive link) are left empty.
 */
#define COMMON_NAMES                                                           \
	"project", "list", "bot", "prefix", "url", "subject", "title", "slug", \
	    "author", "author_name", "author_email", "message_id", "version",  \
	    "actor", "link", "queue", "staging"

static const char *const names_staged[] = { COMMON_NAMES, NULL };
/* What changed between the versions (bot/workflow/vdiff.h), or the fix-up
 * folded into the patch. */
static const char *const names_updated[] = { COMMON_NAMES, "old_version",
	"interdiff", "changes", "unchanged", "code_changed",
	"description_changed", "trailers_changed", "folded", NULL };
static const char *const names_graduated[] = { COMMON_NAMES, "policy", NULL };
static const char *const names_merged[] = { COMMON_NAMES, "how", "commit",
	"commit_title", "upstream", "forwarded", NULL };
static const char *const names_dropped[] = { COMMON_NAMES, "reason", "words",
	"into", NULL };
static const char *const names_conflict[] = { COMMON_NAMES, "base", "details",
	NULL };
static const char *const names_test_failed[] = { COMMON_NAMES, "context",
	"commit", "base", "summary", "log", "log_url", "reason", NULL };
static const char *const names_command_reply[] = { COMMON_NAMES, "requester",
	"commands", "commands.line", "commands.status", "commands.message",
	NULL };

/* A newer version of a staged patch that may not take its place
 * (issue 16): who sent it, why not, where it is. */
static const char *const names_other_sender[] = { COMMON_NAMES, "sender", "why",
	"new_message_id", "new_version", "new_link", NULL };

static const char *const names_tree_conflict[] = { COMMON_NAMES, "tree",
	"tree_url", "tree_branch", "commit", "base", "owner", "owner_name",
	"against", "files", "files.file", "details", NULL };

static const char *const *const mail_names[] = { names_staged, names_updated,
	names_graduated, names_merged, names_dropped, names_conflict,
	names_test_failed, names_command_reply, names_other_sender,
	names_tree_conflict };

const char *const *
template_mail_names(const char *event)
{
	size_t i;

	for (i = 0; template_mail_events[i]; i++)
		if (strcmp(template_mail_events[i], event) == 0)
			return mail_names[i];
	return NULL;
}

struct template_mail {
	char *source;
	struct template *subject;
	struct template *body;
};

void
template_mail_free(struct template_mail *m)
{
	if (m == NULL)
		return;
	template_free(m->subject);
	template_free(m->body);
	free(m->source);
	free(m);
}

const char *
template_mail_source(const struct template_mail *m)
{
	return m->source;
}

static enum err
mail_fail(struct buf *why, const char *name, int line, const char *msg)
{
	if (why) {
		buf_reset(why);
		buf_addf(why, "%s:%d: %s", name, line, msg);
	}
	return ERR_PARSE;
}

enum err
template_mail_parse(const char *event, const char *name, const char *text,
    size_t n, struct template_mail **out, struct buf *why)
{
	const char *const *names = template_mail_names(event);
	struct str rest = str_make(text, n), l1, l2;
	struct template_mail *m;
	enum err e;

	*out = NULL;
	if (names == NULL)
		return mail_fail(why, name, 0, "not a mail event");
	if (!str_nextline(&rest, &l1) || !str_istartswith(l1, "Subject:"))
		return mail_fail(why, name, 1,
		    "a mail template starts with a \"Subject:\" line");
	if (!str_nextline(&rest, &l2) || l2.n != 0)
		return mail_fail(why, name, 2,
		    "an empty line must follow the \"Subject:\" line");
	l1 = str_trim(str_skip(l1, 8));
	m = xcalloc(1, sizeof(*m));
	m->source = xstrdup(name);
	if ((e = template_parse(name, l1.p, l1.n, 1, &m->subject, why)) ||
	    (e = template_parse(name, rest.p, rest.n, 3, &m->body, why)) ||
	    (e = template_check(m->subject, names, why)) ||
	    (e = template_check(m->body, names, why))) {
		template_mail_free(m);
		return e;
	}
	*out = m;
	return ERR_OK;
}

/* Read a whole template file; ERR_NOTFOUND when it does not exist. */
static enum err
read_file(const char *path, struct buf *out)
{
	char chunk[8192];
	size_t r;
	FILE *f = fopen(path, "rb");
	enum err e = ERR_OK;

	if (f == NULL) {
		if (errno == ENOENT)
			return ERR_NOTFOUND;
		log_err("template: %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	buf_init(out, TEMPLATE_MAX_SIZE);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (!buf_fits(out, r)) {
			log_err("template: %s: larger than %u bytes", path,
			    TEMPLATE_MAX_SIZE);
			e = ERR_CONFIG;
			break;
		}
		buf_add(out, chunk, r);
	}
	if (e == ERR_OK && ferror(f)) {
		log_err("template: %s: read error", path);
		e = ERR_IO;
	}
	fclose(f);
	if (e)
		buf_free(out);
	return e;
}

static const struct template_builtin *
builtin(const char *event)
{
	size_t i;

	for (i = 0; i < template_nbuiltins; i++)
		if (strcmp(template_builtins[i].name, event) == 0)
			return &template_builtins[i];
	return NULL;
}

enum err
template_mail_load(
    const char *dir, const char *event, struct template_mail **out)
{
	const struct template_builtin *b = builtin(event);
	struct buf text = BUF_INIT, why = BUF_INIT;
	char path[4096], name[64];
	enum err e = ERR_NOTFOUND;
	int r;

	*out = NULL;
	if (template_mail_names(event) == NULL) {
		log_err("template: %s: not a mail event", event);
		return ERR_CONFIG;
	}
	if (dir) {
		r = snprintf(path, sizeof(path), "%s/%s.txt", dir, event);
		if (r < 0 || (size_t)r >= sizeof(path)) {
			log_err("template: %s: directory name too long", dir);
			return ERR_CONFIG;
		}
		e = read_file(path, &text);
		if (e != ERR_OK && e != ERR_NOTFOUND)
			return e;
	}
	if (e == ERR_OK) {
		e = template_mail_parse(
		    event, path, buf_cstr(&text), text.n, out, &why);
	} else if (b) {
		r = snprintf(name, sizeof(name), "built-in:%s", event);
		if (r < 0 || (size_t)r >= sizeof(name))
			return ERR_INTERNAL;
		e = template_mail_parse(event, name, b->text, b->n, out, &why);
	} else {
		buf_adds(&why, "no built-in template");
		e = ERR_PARSE;
	}
	if (e) {
		log_err("template: %s", buf_cstr(&why));
		e = ERR_CONFIG;
	}
	buf_free(&text);
	buf_free(&why);
	return e;
}

/* A subject is one line: controls become blanks, blanks collapse. */
static void
one_line(struct buf *out, const char *p, size_t n)
{
	size_t i;
	bool blank = false;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == 0x7f || c == ' ') {
			blank = out->n > 0;
			continue;
		}
		if (blank)
			buf_addc(out, ' ');
		blank = false;
		buf_addc(out, (char)c);
	}
}

enum err
template_mail_render(const struct template_mail *m,
    const struct template_data *d, struct buf *subject, struct buf *body)
{
	struct buf raw;
	enum err e;

	buf_reset(subject);
	buf_reset(body);
	buf_init(&raw, TEMPLATE_MAX_SUBJECT);
	e = template_render(m->subject, d, &raw);
	if (e == ERR_OK)
		one_line(subject, raw.p ? raw.p : "", raw.n);
	buf_free(&raw);
	if (e == ERR_OK) {
		size_t max = body->max;

		body->max =
		    max && max < TEMPLATE_MAX_BODY ? max : TEMPLATE_MAX_BODY;
		e = template_render(m->body, d, body);
		body->max = max;
	}
	if (e)
		log_err("template: %s: rendering failed: %s", m->source,
		    err_str(e));
	return e;
}
