/*
 * Garbage collection of a staging repository (see collect.h).
 */
#include "bot/workflow/collect.h"

#include <stdlib.h>

#include "storage/store_test.h"
#include "util/arena.h"
#include "util/xalloc.h"

enum err
collect_project(
    struct store *st, const struct conf_project *p, struct gitgc_stats *s)
{
	struct arena *a = arena_new();
	struct store_test_run *runs = NULL;
	const char **keep = NULL;
	size_t n = 0, nk = 0, i;
	int64_t pid = 0;
	enum err e;

	/* A project the database does not know yet has no test runs. */
	if (store_project_id(st, p->name, &pid) != ERR_OK)
		pid = 0;
	e = store_test_open(st, a, &runs, &n);
	if (e == ERR_OK && n > 0) {
		keep = xcalloc(2 * n, sizeof(*keep));
		for (i = 0; i < n; i++) {
			if (runs[i].project_id != pid)
				continue;
			keep[nk++] = runs[i].commit;
			keep[nk++] = runs[i].base;
		}
	}
	if (e == ERR_OK)
		e = gitgc_run(p->staging, keep, nk, s);
	free(keep);
	arena_free(a);
	return e;
}
