/*
 * The throw-away folder of one test run: DIR/tree (the commit's files)
 * and DIR/home (HOME, with HOME/tmp for TMPDIR), under $TMPDIR or /tmp,
 * removed whole afterwards -- whatever the test did to the modes of what
 * it made, without following a symbolic link out of it.
 */
#ifndef BOT_TESTER_WORKDIR_H
#define BOT_TESTER_WORKDIR_H

#include "util/err.h"

struct workdir {
	char root[4096];
	char tree[4096];
	char home[4096];
	char tmp[4096];
};

/* Make a new one. */
enum err workdir_make(struct workdir *w);

/* Remove it and everything in it. */
enum err workdir_remove(struct workdir *w);

#endif
