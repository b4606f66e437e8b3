/*
 * Helpers for the tests of bot/git/: a scratch folder, and the git
 * command line as the oracle (real repositories made with git, series
 * made with git format-patch, trees compared with what git am -3 makes).
 * Everything the shell sees here is written by the tests themselves.
 */
#ifndef TESTS_GITTEST_H
#define TESTS_GITTEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * A fresh scratch folder, and a git environment that ignores the
 * user's and the system's configuration and dates every commit the
 * same, so that ids are the same on every run.
 */
static inline const char *
gt_setup(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/patchyard-gittest-XXXXXX");
	if (mkdtemp(dir) == NULL)
		abort();
	setenv("HOME", dir, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_AUTHOR_NAME", "A U Thor", 1);
	setenv("GIT_AUTHOR_EMAIL", "author@example.org", 1);
	setenv("GIT_AUTHOR_DATE", "1700000000 +0100", 1);
	setenv("GIT_COMMITTER_NAME", "C O Mitter", 1);
	setenv("GIT_COMMITTER_EMAIL", "committer@example.org", 1);
	setenv("GIT_COMMITTER_DATE", "1700000000 +0100", 1);
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	return dir;
}

static inline void
gt_teardown(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "gittest: could not remove %s\n", dir);
}

/* Run a shell command; its exit status (-1 when it did not run). */
static inline int gt_sh(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline int
gt_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd))
		abort();
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A shell command's output, trailing newlines cut (malloc'd; "" when it
 * printed nothing, NULL when it failed). */
static inline char *gt_out(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static inline char *
gt_out(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	FILE *f;
	char *p = NULL;
	size_t cap = 0, n = 0, r;
	int len, st;

	va_start(ap, fmt);
	len = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(cmd))
		abort();
	if ((f = popen(cmd, "r")) == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? 2 * cap : 8192;
			if ((p = realloc(p, cap + 1)) == NULL)
				abort();
		}
		if ((r = fread(p + n, 1, cap - n, f)) == 0)
			break;
		n += r;
	}
	st = pclose(f);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(p);
		return NULL;
	}
	while (n > 0 && p[n - 1] == '\n')
		n--;
	p[n] = '\0';
	return p;
}

/* Write a file (for test repositories). */
static inline void
gt_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(text, 1, strlen(text), f) != strlen(text))
		abort();
	fclose(f);
}

#endif
