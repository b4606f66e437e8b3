#include "bot/workflow/vdiff.h"

#include <string.h>

#include "bot/git/gitdiff.h"
#include "parsers/mail.h"
#include "parsers/trailer.h"
#include "storage/store_msg.h"

/* The commit message without its trailer block, the last paragraph
 * (git's interpret-trailers finds it there too). */
static struct str
description(const struct mail *m)
{
	struct str msg = m->patch->message;
	size_t i;

	if (m->ntrailers == 0)
		return msg;
	for (i = msg.n; i >= 2; i--)
		if (msg.p[i - 1] == '\n' && msg.p[i - 2] == '\n')
			return str_make(msg.p, i - 2);
	return str_make(msg.p, 0);
}

static bool
has_trailer(const struct mail *m, const struct trailer *t)
{
	size_t i;

	for (i = 0; i < m->ntrailers; i++)
		if (trailer_same(&m->trailers[i], t))
			return true;
	return false;
}

/* The same trailers, in whatever order. */
static bool
same_trailers(const struct mail *x, const struct mail *y)
{
	size_t i;

	if (x->ntrailers != y->ntrailers)
		return false;
	for (i = 0; i < x->ntrailers; i++)
		if (!has_trailer(y, &x->trailers[i]) ||
		    !has_trailer(x, &y->trailers[i]))
			return false;
	return true;
}

static bool
same_code(const struct patch *x, const struct patch *y)
{
	if (x->patch_id[0] && y->patch_id[0])
		return strcmp(x->patch_id, y->patch_id) == 0;
	return str_eq(x->diff, y->diff);
}

enum err
vdiff_compare(struct store *st, struct arena *a, const struct config *conf,
    int64_t old_msg, int64_t new_msg, struct vdiff *out)
{
	struct arena *t = arena_new();
	struct mail_opts o;
	struct mail om, nm;
	struct buf diff = BUF_INIT;
	const char *raw;
	size_t n;
	enum err e;

	memset(out, 0, sizeof(*out));
	out->code = out->description = out->trailers = true;
	memset(&o, 0, sizeof(o));
	o.bot_address = conf ? conf->bot_address : NULL;
	if ((e = store_msg_raw(st, t, old_msg, &raw, &n)) != ERR_OK)
		goto out;
	mail_parse(t, raw, n, &o, &om);
	if ((e = store_msg_raw(st, t, new_msg, &raw, &n)) != ERR_OK)
		goto out;
	mail_parse(t, raw, n, &o, &nm);
	if (om.patch == NULL || nm.patch == NULL)
		goto out;
	out->code = !same_code(om.patch, nm.patch);
	out->description =
	    strcmp(om.patch->subject ? om.patch->subject : "",
	        nm.patch->subject ? nm.patch->subject : "") != 0 ||
	    !str_eq(description(&om), description(&nm));
	out->trailers = !same_trailers(&om, &nm);
	if (out->code &&
	    gitdiff_text(om.patch->diff.p, om.patch->diff.n, "old version",
	        nm.patch->diff.p, nm.patch->diff.n, "new version",
	        &diff) == ERR_OK &&
	    diff.n)
		out->interdiff = arena_strdup(a, buf_cstr(&diff));
out:
	buf_free(&diff);
	arena_free(t);
	return e;
}
