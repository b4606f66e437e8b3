#include "util/gitmsg.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

const char *
gitmsg_plain(char *out, size_t n, const char *msg)
{
	static const char fail[] = "failed ", sep[] = " - '",
	                  locked[] = "' is locked: ";
	const char *act, *path, *end, *why;
	int an, pn, k;

	if (msg == NULL)
		return "unknown error";
	/* libgit2's git_fs_path_set_error(): "failed %s - '%s' is locked"
	 * with strerror() appended by git_error_set(). */
	if (strncmp(msg, fail, sizeof(fail) - 1) != 0 ||
	    (path = strstr(msg, sep)) == NULL ||
	    (end = strstr(path + sizeof(sep) - 1, locked)) == NULL)
		return msg;
	act = msg + sizeof(fail) - 1;
	an = (int)(path - act);
	path += sizeof(sep) - 1;
	pn = (int)(end - path);
	why = end + sizeof(locked) - 1;
	if (an == 4 && strncmp(act, "open", 4) == 0)
		k = snprintf(out, n, "'%.*s' is not readable by uid %ld: %s",
		    pn, path, (long)geteuid(), why);
	else
		k = snprintf(out, n, "cannot %.*s '%.*s' (uid %ld): %s", an,
		    act, pn, path, (long)geteuid(), why);
	return k < 0 || (size_t)k >= n ? msg : out;
}

bool
gitmsg_config_unreadable(const char *dirs, const char *name)
{
	static atomic_bool told;
	const char *p = dirs, *colon;
	char path[4096];
	struct stat st;
	int k, en;

	while (p != NULL && *p != '\0') {
		colon = strchr(p, ':');
		k = snprintf(path, sizeof(path), "%.*s/%s",
		    (int)(colon ? colon - p : (long)strlen(p)), p, name);
		p = colon ? colon + 1 : NULL;
		if (k < 0 || (size_t)k >= sizeof(path) ||
		    stat(path, &st) == 0 || errno == ENOENT || errno == ENOTDIR)
			continue;
		en = errno;
		if (!atomic_exchange(&told, true))
			log_warn(
			    "git: %s: %s: going on without it, as git does",
			    path, strerror(en));
		return true;
	}
	return false;
}
