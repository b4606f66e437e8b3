/*
 * A database for the tests of the status pages: demo/mails.mbox imported
 * and the v2 series staged by demo/stage.eml, under a config with a CI
 * token and a maintainer's ("mia-token"), in a temporary folder.
 */
#ifndef TESTS_WEBTEST_H
#define TESTS_WEBTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/workflow/import.h"
#include "bot/workflow/ingest.h"
#include "parsers/config.h"
#include "storage/store.h"
#include "testutil.h"

struct webtest {
	char dir[64];
	char db[128];
	struct arena *a;
	struct config conf;
	struct store *st;
};

static inline int
webtest_setup(struct webtest *w)
{
	struct config_error *errs = NULL;
	struct import_opts o;
	struct ingest *in;
	char text[1024], path[192];
	char *eml;
	size_t nerrs = 0, n;
	FILE *f;

	memset(w, 0, sizeof(*w));
	strcpy(w->dir, "/tmp/yard-webtest-XXXXXX");
	if (mkdtemp(w->dir) == NULL)
		return -1;
	snprintf(w->db, sizeof(w->db), "%s/t.db", w->dir);
	snprintf(path, sizeof(path), "%s/ci.token", w->dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("\n  sekrit-token \n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/mia.token", w->dir);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("mia-token\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/ci.token", w->dir);
	snprintf(text, sizeof(text),
	    "[core]\n\tdatabase = %s\n[bot]\n\taddress = "
	    "yard@frob.example.org\n"
	    "[project \"frob\"]\n\tlist = frob@lists.example.org\n"
	    "\tarchive = https://lists.example.org/frob/%%s/\n"
	    "[maintainer \"mia\"]\n\temail = mia@frob.example.org\n"
	    "\ttoken-file = %s/mia.token\n"
	    "[ci \"lab\"]\n\temail = ci@lab.example.org\n\ttoken-file = %s\n"
	    "[auth]\n\trequire = none\n",
	    w->db, w->dir, path);
	w->a = arena_new();
	if (config_parse(w->a, "test.conf", text, strlen(text), &w->conf, &errs,
	        &nerrs) != ERR_OK)
		return -1;
	if (store_open(w->db, STORE_CREATE, &w->st) != ERR_OK)
		return -1;
	/* The stage command mail, as an mbox of one. */
	snprintf(path, sizeof(path), "%s/stage.mbox", w->dir);
	if ((eml = tu_read_file("demo/stage.eml", &n)) == NULL ||
	    (f = fopen(path, "w")) == NULL)
		return -1;
	fprintf(f, "From mboxrd@z Thu Jan  1 00:00:00 1970\n%s\n", eml);
	fclose(f);
	free(eml);
	memset(&o, 0, sizeof(o));
	in = ingest_new(w->st, &w->conf);
	if (import_path(in, w->st, "demo/mails.mbox", &o) != ERR_OK ||
	    import_path(in, w->st, path, &o) != ERR_OK)
		return -1;
	ingest_free(in);
	return 0;
}

/*
 * Store raw as `patchyard ingest` does, into project (NULL: the one its
 * list names), in a transaction of its own.  Needs <cmocka.h> first.
 */
static inline void
webtest_ingest(struct webtest *w, const char *project, const char *raw)
{
	struct ingest *in = ingest_new(w->st, &w->conf);
	struct arena *a = arena_new();
	struct ingest_proof proof;
	struct mail_opts o;
	struct mail m;
	enum ingest_result res;
	int64_t pid = 0;

	ingest_mail_opts(in, &o);
	mail_parse(a, raw, strlen(raw), &o, &m);
	ingest_prove(in, a, raw, strlen(raw), &m, &proof);
	assert_int_equal(store_begin(w->st), ERR_OK);
	assert_int_equal(ingest_project(in, project, &m, &pid), ERR_OK);
	assert_int_equal(
	    ingest_mail(in, raw, strlen(raw), &m, &proof, pid, &res), ERR_OK);
	assert_int_equal(store_commit(w->st), ERR_OK);
	ingest_free(in);
	arena_free(a);
}

static inline int
webtest_teardown(struct webtest *w)
{
	char cmd[128];

	store_close(w->st);
	arena_free(w->a);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
	return system(cmd);
}

#endif
