#include "bot/git/gitdiff.h"

#include <git2.h>
#include <string.h>

#include "util/log.h"

static int
on_line(const git_diff_delta *delta, const git_diff_hunk *hunk,
    const git_diff_line *line, void *payload)
{
	struct buf *out = payload;

	(void)delta;
	(void)hunk;
	if (line->origin == GIT_DIFF_LINE_CONTEXT ||
	    line->origin == GIT_DIFF_LINE_ADDITION ||
	    line->origin == GIT_DIFF_LINE_DELETION)
		buf_addc(out, line->origin);
	buf_add(out, line->content, line->content_len);
	return 0;
}

static int
on_hunk(const git_diff_delta *delta, const git_diff_hunk *hunk, void *payload)
{
	struct buf *out = payload;

	(void)delta;
	buf_add(out, hunk->header, hunk->header_len);
	return 0;
}

enum err
gitdiff_text(const char *old, size_t oldn, const char *old_name,
    const char *new, size_t newn, const char *new_name, struct buf *out)
{
	git_diff_options opts;
	enum err e = ERR_OK;
	int rc;

	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (oldn == newn && memcmp(old, new, oldn) == 0)
		goto out;
	buf_addf(out, "--- %s\n+++ %s\n", old_name, new_name);
	rc = git_diff_buffers(old, oldn, old_name, new, newn, new_name, &opts,
	    NULL, NULL, on_hunk, on_line, out);
	if (rc < 0) {
		const git_error *err = git_error_last();

		log_err("gitdiff: %s", err ? err->message : "diff failed");
		e = ERR_GIT;
	}
out:
	git_libgit2_shutdown();
	return e;
}
