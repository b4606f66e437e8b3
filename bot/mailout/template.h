/*
 * Templates for the mails the bot sends (DESIGN.md §8): a small renderer
 * of our own and the loader of templates/mail/<event>.txt.
 *
 * Syntax, a subset of Mustache; values go out as they are (mail is plain
 * text) unless the template is an HTML one (template_set_html):
 *
 *   {{name}}               the value of name; nothing when it is absent
 *   {{#name}}...{{/name}}  a list: the inside once per item, with the
 *                          item's fields in scope and the outer names
 *                          still visible; a string: the inside once when
 *                          it is not empty
 *   {{^name}}...{{/name}}  the inside when name is absent, empty or an
 *                          empty list
 *   {{#name=word}}...{{/name=word}}, {{^name=word}}...{{/name=word}}
 *                          the inside when name's value is (is not) word,
 *                          so that wording per drop reason stays in the
 *                          template an operator can edit
 *   {{! comment }}         nothing
 *
 * Names are [A-Za-z0-9_-]+.  A section, inverted section, closing tag or
 * comment alone on its line (blanks around it allowed) removes the whole
 * line, so templates can be laid out readably.  There is no way to write
 * a literal "{{" in a template; values are never parsed, so a value
 * holding "{{" comes out as it is.
 *
 * Errors: a template that does not parse (unterminated tag or section,
 * a close that does not match, a bad name) is refused when it is loaded,
 * with its file and line.  A name that is not in the event's list of
 * names (template_mail_names) is refused at load time too, so that a typo
 * in an operator's override is reported at start-up rather than mailed
 * out as a blank.  At render time a known name whose value the caller did
 * not set renders as nothing.
 *
 * A mail template file is a "Subject:" line (the subject template), one
 * empty line, then the body template.  The default templates are built
 * into the binary (scripts/embed-templates makes a C file of
 * the files in templates/mail/); bot.templates names a directory whose
 * <event>.txt files override them one by one.
 */
#ifndef BOT_TEMPLATE_H
#define BOT_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/err.h"

/* A template file larger than this is refused: templates are a page. */
#define TEMPLATE_MAX_SIZE (64u * 1024)
/* Sections nest at most this deep. */
#define TEMPLATE_MAX_DEPTH 16
/* A rendered subject and body are capped (ERR_LIMIT beyond); callers
 * cut long values such as test logs well before that. */
#define TEMPLATE_MAX_SUBJECT (128u * 1024)
#define TEMPLATE_MAX_BODY (4u * 1024 * 1024)

/*
 * The data model: a record maps names to a string or to a list of
 * records.  The root owns everything below it; records handed out by
 * template_data_add() live until the root is freed.  Setting a name
 * again replaces its value.
 */
struct template_data;

struct template_data *template_data_new(void);
void template_data_free(struct template_data *root);
/* value NULL is the empty string.  Values are copied. */
void template_data_set(
    struct template_data *d, const char *name, const char *value);
void template_data_setn(
    struct template_data *d, const char *name, const char *value, size_t n);
void template_data_setf(struct template_data *d, const char *name,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append a new item to list name of d (the list is created when absent,
 * and replaces a string of that name); returns the item's record. */
struct template_data *template_data_add(
    struct template_data *d, const char *name);

/* One compiled template text. */
struct template;

/*
 * Compile text[0..n).  name is used in messages, lines are counted from
 * first_line.  ERR_PARSE (or ERR_LIMIT) with "name:line: what" in *why
 * (when why is not NULL).
 */
enum err template_parse(const char *name, const char *text, size_t n,
    int first_line, struct template **out, struct buf *why);
void template_free(struct template *t);
/*
 * Web templates (templates/web/): every {{name}} value is HTML-escaped
 * with util/esc.h's esc_html_attr, which is right both in element text
 * and in quoted attribute values.  There is no way to write a value
 * unescaped: a page is made of its template's text and escaped values.
 */
void template_set_html(struct template *t, bool on);

/*
 * Check every name t uses against names (NULL-terminated): "x" for a
 * top-level value or list, "list.field" for the fields of a list's items
 * ("a.b.c" for deeper lists).  Inside {{#list}} the names of the item
 * and of every enclosing scope are allowed.  ERR_PARSE with
 * "name:line: unknown name ..." in *why.
 */
enum err template_check(
    const struct template *t, const char *const *names, struct buf *why);

/* Append the rendering of t with data d to out (ERR_LIMIT over the
 * out buffer's cap). */
enum err template_render(
    const struct template *t, const struct template_data *d, struct buf *out);

/*
 * The names the workflow fills in for a mail template (unknown values
 * stay unset or empty; the templates cope):
 *
 * every event: project (name), list (address), bot (bot.address),
 *   prefix (bot.command-prefix), url (status page of the contribution),
 *   subject (decoded Subject of the mail answered), title (patch title),
 *   slug (quilt file name), author ("Name <addr>"), author_name,
 *   author_email, message_id (of the patch, no brackets), version, actor
 *   (who acted, "Name <addr>"; empty for the bot itself), link (archive
 *   URL of the patch), queue (unstable | stable; empty when not staged),
 *   staging ("yes" when the project has a staging tree: its stage,
 *   update and graduation mails then go once the built, and pushed,
 *   branch holds the change)
 * updated: old_version, interdiff (the code's changes; empty when the
 *   code did not change), changes ("the code, the description and the
 *   trailers", what changed; empty when nothing did), unchanged ("yes"
 *   when nothing but the version changed), code_changed,
 *   description_changed, trailers_changed ("yes" each, or empty);
 *   instead of those, folded (the slug of a fix-up folded into it)
 * graduated: policy (what the promotion policy saw, when it moved the
 *   patch; empty when a maintainer did)
 * merged: how (exact | link | changed), commit (abbreviated id),
 *   commit_title, upstream (branch), forwarded ("<msgid> on DATE" when
 *   patchyard forwarded it upstream; empty otherwise)
 * dropped: reason (nacked | to-be-updated | withdrawn | obsolete |
 *   failures | folded | conflict), words (the rest of the drop command
 *   line), into (the slug folded into)
 * conflict: base (upstream commit), details (what did not apply)
 * test-failed: context, commit, summary, log (its tail, already cut),
 *   log_url
 * tree-conflict (about a subsystem tree, not a patch: the patch names
 *   are empty): tree (its name), tree_url, tree_branch, commit (what
 *   was merged), base (the stable branch it was merged on), owner and
 *   owner_name (who is told), against (the slug of the patch it broke,
 *   when the merge itself was clean), a list files with file per
 *   conflicting path, details (what went wrong when no file is named),
 *   subject (of the pull-request mail it answers, or empty)
 * command-reply: requester (display name), and a list commands with,
 *   per command line, line (as written), status (accepted | refused),
 *   message (what happened or why not)
 */

/* The mail events, in DESIGN.md §8's order, NULL-terminated.  A new
 * event raises the count (the compiler refuses an initializer longer
 * than the array). */
#define TEMPLATE_MAIL_NEVENTS 10
extern const char *const template_mail_events[TEMPLATE_MAIL_NEVENTS + 1];

/* The names a mail template for event may use (NULL-terminated), or NULL
 * when event is not one of template_mail_events. */
const char *const *template_mail_names(const char *event);

/* A mail template: subject and body. */
struct template_mail;

/*
 * Compile a mail template file (name is used in messages) and check it
 * against template_mail_names(event).  ERR_PARSE with "name:line: what"
 * in *why.
 */
enum err template_mail_parse(const char *event, const char *name,
    const char *text, size_t n, struct template_mail **out, struct buf *why);

/*
 * Load the template of event: <dir>/<event>.txt when dir is not NULL and
 * that file exists, else the built-in one.  Errors are logged with the
 * file and line; ERR_CONFIG for a template that does not parse or an
 * unknown event, ERR_IO for a file that cannot be read.
 */
enum err template_mail_load(
    const char *dir, const char *event, struct template_mail **out);
void template_mail_free(struct template_mail *m);
/* Where the template came from: the file name, or "built-in:<event>". */
const char *template_mail_source(const struct template_mail *m);

/*
 * Render subject (one line: line breaks and other control characters in
 * values become spaces, blanks are collapsed, the ends trimmed) and body
 * (UTF-8 text with LF line ends, as the template and values have them)
 * into the two buffers, which are reset first.
 */
enum err template_mail_render(const struct template_mail *m,
    const struct template_data *d, struct buf *subject, struct buf *body);

/* The built-in templates, generated from templates/mail/ by the build. */
struct template_builtin {
	const char *name; /* the event */
	const char *text;
	size_t n;
};
extern const struct template_builtin template_builtins[];
extern const size_t template_nbuiltins;

#endif
