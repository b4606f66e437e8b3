#include "bot/cli/conf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/limits.h"
#include "util/buf.h"
#include "util/log.h"

const char *
conf_path(const char *path)
{
	const char *env;

	if (path)
		return path;
	env = getenv("PATCHYARD_CONFIG");
	if (env && *env)
		return env;
	return "/etc/patchyard/bot.conf";
}

/* An error about the file: on stderr as it is, or as a log line. */
static void say(bool logged, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
say(bool logged, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (logged)
		log_err("%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

static enum err
read_all(const char *path, struct buf *b, bool logged)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t r;
	enum err e = ERR_OK;

	if (f == NULL) {
		say(logged, "%s%s: %s", logged ? "" : "patchyard: ", path,
		    strerror(errno));
		return ERR_CONFIG;
	}
	buf_init(b, LIMIT_CONFIG_SIZE);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (!buf_fits(b, r)) {
			say(logged, "%s%s: larger than %u bytes",
			    logged ? "" : "patchyard: ", path,
			    LIMIT_CONFIG_SIZE);
			e = ERR_LIMIT;
			break;
		}
		buf_add(b, chunk, r);
	}
	if (e == ERR_OK && ferror(f)) {
		say(logged, "%s%s: %s", logged ? "" : "patchyard: ", path,
		    strerror(errno));
		e = ERR_IO;
	}
	fclose(f);
	return e == ERR_OK ? ERR_OK : ERR_CONFIG;
}

/* A relative path in the config means relative to the config's folder. */
static const char *
rebase(struct arena *a, const char *dir, const char *p)
{
	size_t dn, pn;
	char *out;

	if (p == NULL || p[0] == '/' || dir == NULL || strstr(p, "://"))
		return p;
	dn = strlen(dir);
	pn = strlen(p);
	out = arena_alloc(a, dn + pn + 2);
	memcpy(out, dir, dn);
	out[dn] = '/';
	memcpy(out + dn + 1, p, pn + 1);
	return out;
}

/* A repository or archive: a URL, an scp-like user@host:path, or a path
 * (only the last is rebased). */
static const char *
rebase_repo(struct arena *a, const char *dir, const char *p)
{
	if (p == NULL || strstr(p, "://") || strchr(p, '@'))
		return p;
	return rebase(a, dir, p);
}

static void
rebase_all(struct arena *a, const char *path, struct config *c)
{
	const char *slash = strrchr(path, '/');
	const char *dir =
	    slash ? arena_strndup(a, path, (size_t)(slash - path)) : NULL;
	size_t i;

	if (slash == path)
		dir = "";
	c->database = rebase(a, dir, c->database);
	c->templates = rebase(a, dir, c->templates);
	c->smtp_password_file = rebase(a, dir, c->smtp_password_file);
	c->smtp_ca_file = rebase(a, dir, c->smtp_ca_file);
	c->auth_keyring = rebase(a, dir, c->auth_keyring);
	c->auth_dkim_keys = rebase(a, dir, c->auth_dkim_keys);
	for (i = 0; i < c->nprojects; i++) {
		struct conf_project *p = &c->projects[i];

		p->staging = rebase(a, dir, p->staging);
		p->upstream = rebase_repo(a, dir, p->upstream);
		p->push = rebase_repo(a, dir, p->push);
	}
	for (i = 0; i < c->ntrees; i++)
		c->trees[i].url = rebase_repo(a, dir, c->trees[i].url);
	for (i = 0; i < c->nmaintainers; i++)
		c->maintainers[i].token_file =
		    rebase(a, dir, c->maintainers[i].token_file);
	for (i = 0; i < c->ncis; i++)
		c->cis[i].token_file = rebase(a, dir, c->cis[i].token_file);
	for (i = 0; i < c->nsources; i++) {
		struct conf_source *s = &c->sources[i];

		s->public_inbox = rebase_repo(a, dir, s->public_inbox);
		s->maildir = rebase(a, dir, s->maildir);
		s->password_file = rebase(a, dir, s->password_file);
		s->ca_file = rebase(a, dir, s->ca_file);
	}
}

static enum err
load(struct arena *a, const char *path, struct config *c, bool logged)
{
	struct buf b = BUF_INIT;
	struct config_error *errs = NULL;
	size_t nerrs = 0, i;
	enum err e;

	if ((e = read_all(path, &b, logged)) != ERR_OK) {
		buf_free(&b);
		return e;
	}
	e = config_parse(a, path, buf_cstr(&b), b.n, c, &errs, &nerrs);
	buf_free(&b);
	if (e != ERR_OK) {
		for (i = 0; i < nerrs; i++) {
			if (errs[i].line > 0)
				say(logged, "%s:%d: %s", errs[i].file,
				    errs[i].line, errs[i].msg);
			else
				say(logged, "%s: %s", errs[i].file,
				    errs[i].msg);
		}
		if (nerrs == 0)
			say(logged, "%s: %s", path, err_str(e));
		return ERR_CONFIG;
	}
	rebase_all(a, path, c);
	return ERR_OK;
}

enum err
conf_load(struct arena *a, const char *path, struct config *c)
{
	return load(a, path, c, false);
}

enum err
conf_load_logged(struct arena *a, const char *path, struct config *c)
{
	return load(a, path, c, true);
}
