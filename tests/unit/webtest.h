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
