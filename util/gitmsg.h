/*
 * libgit2's errors and its user configuration, in our words.  The two
 * rooms that use libgit2 (bot/git/ and bot/source/) may not include each
 * other, so what both need lives here, as text and stat(): libgit2 itself
 * stays behind their walls.
 */
#ifndef UTIL_GITMSG_H
#define UTIL_GITMSG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * msg, a libgit2 error message, said plainly.  libgit2 reports EACCES and
 * EPERM as "failed ACTION - 'PATH' is locked: Permission denied", though
 * on Unix they mean permissions and nothing is locked: that becomes
 * "'PATH' is not readable by uid N: Permission denied" (ACTION open) or
 * "cannot ACTION 'PATH' (uid N): ...".  Any other message is returned as
 * it is (NULL as "unknown error").  The result is msg or out[0..n).
 */
const char *gitmsg_plain(char *out, size_t n, const char *msg);

/*
 * Whether libgit2 would fail on the user configuration file name in
 * dirs, its search path (folders separated by ':'): it opens the global
 * file even when it is missing, and a stat() failing for any reason but
 * ENOENT or ENOTDIR (an unreadable $HOME) stops every repository from
 * opening, where git carries on.  When it would, the caller leaves the
 * file out; the first time in the process, a warning says so (libgit2
 * forgets its settings whenever its last user shuts it down, so callers
 * ask again after each start).
 */
bool gitmsg_config_unreadable(const char *dirs, const char *name);

#endif
