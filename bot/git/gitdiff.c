#include "bot/git/gitdiff.h"

#include <git2.h>
#include <string.h>

#include "util/log.h"

struct collect {
	struct buf *out;
	enum err e;
};

static int
on_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
    const git_diff_line *line, void *payload)
{
	struct collect *c = payload;

	(void)delta;
	(void)hunk;
	if (c->e != ERR_OK)
		return -1;
	if (line->origin == GIT_DIFF_LINE_CONTEXT ||
	    line->origin == GIT_DIFF_LINE_ADDITION ||
	    line->origin == GIT_DIFF_LINE_DELETION)
		c->e = buf_addc(c->out, line->origin);
	if (c->e == ERR_OK)
		c->e = buf_add(c->out, line->content, line->content_len);
	return c->e == ERR_OK ? 0 : -1;
}

static int
on_hunk(const git_diff_delta *delta, const git_diff_hunk *hunk, void *payload)
{
	struct collect *c = payload;

	(void)delta;
	if (c->e == ERR_OK)
		c->e = buf_add(c->out, hunk->header, hunk->header_len);
	return c->e == ERR_OK ? 0 : -1;
}

enum err
gitdiff_text(const char *old, size_t oldn, const char *old_name,
    const char *new, size_t newn, const char *new_name, struct buf *out)
{
	struct collect c = { out, ERR_OK };
	git_diff_options opts;
	int rc;

	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (oldn == newn && memcmp(old, new, oldn) == 0)
		goto out;
	c.e = buf_addf(out, "--- %s\n+++ %s\n", old_name, new_name);
	if (c.e != ERR_OK)
		goto out;
	rc = git_diff_buffers(old, oldn, old_name, new, newn, new_name, &opts,
	    NULL, NULL, on_hunk, on_line, &c);
	if (rc < 0 && c.e == ERR_OK) {
		const git_error *err = git_error_last();

		log_err("gitdiff: %s", err ? err->message : "diff failed");
		c.e = ERR_GIT;
	}
out:
	git_libgit2_shutdown();
	return c.e;
}
