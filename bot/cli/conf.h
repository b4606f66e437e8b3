/* Loading bot.conf: read the file, parse it, report every error. */
#ifndef BOT_CONF_H
#define BOT_CONF_H

#include "parsers/config.h"
#include "util/arena.h"

/* The config file to use: path if given, else $PATCHYARD_CONFIG, else
 * /etc/patchyard/bot.conf. */
const char *conf_path(const char *path);

/*
 * Load path into *c (strings in the arena).  Every error is printed as
 * "file:line: message" on stderr.  Relative paths in the file (the
 * database, the templates directory, repositories given as paths,
 * password, CA and token files, Maildir folders and local public-inbox
 * archives) are taken relative to the directory of the config file.
 * Nothing a key names is opened here: files are checked when used.
 */
enum err conf_load(struct arena *a, const char *path, struct config *c);

/* The same, each error a log line ("patchyard: error: file:line: ..."):
 * for the daemon, whose stderr is a log (its start and SIGHUP). */
enum err conf_load_logged(struct arena *a, const char *path, struct config *c);

#endif
