/*
 * The forward request of #yard forward (bot/workflow/forward.c): asked
 * for in one transaction, seen by the next rebuild (and by the daemon,
 * which rebuilds then), done once forwarded.  Forwarding itself is
 * tested end to end by tests/integration/forward.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/workflow/forward.h"
#include "storage/store.h"

static void
test_request(void **state)
{
	char dir[] = "/tmp/yard-forward-XXXXXX", path[128], cmd[160];
	struct conf_project p[2];
	struct config conf;
	struct store *st;
	char *actor = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.db", dir);
	memset(p, 0, sizeof(p));
	p[0].name = "demo";
	p[1].name = "other";
	memset(&conf, 0, sizeof(conf));
	conf.projects = p;
	conf.nprojects = 2;
	assert_int_equal(store_open(path, STORE_CREATE, &st), ERR_OK);
	assert_false(forward_requested(st, &p[0], &actor));
	assert_null(actor);
	assert_false(forward_any_requested(st, &conf));
	assert_int_equal(store_begin(st), ERR_OK);
	assert_int_equal(forward_request(st, &p[1], "Mia Maint"), ERR_OK);
	assert_int_equal(store_commit(st), ERR_OK);
	assert_false(forward_requested(st, &p[0], NULL));
	assert_true(forward_requested(st, &p[1], &actor));
	assert_string_equal(actor, "Mia Maint");
	free(actor);
	assert_true(forward_any_requested(st, &conf));
	assert_int_equal(forward_done(st, &p[1]), ERR_OK);
	assert_false(forward_requested(st, &p[1], NULL));
	assert_false(forward_any_requested(st, &conf));
	/* The bot itself may ask (no actor). */
	assert_int_equal(forward_request(st, &p[0], NULL), ERR_OK);
	assert_true(forward_requested(st, &p[0], &actor));
	assert_string_equal(actor, "");
	free(actor);
	store_close(st);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
	};

	return cmocka_run_group_tests_name("forward", tests, NULL, NULL);
}
