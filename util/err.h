/*
 * One error code for the whole project.  Anything that can fail for an
 * outside reason returns an enum err; the detail is logged once, where it
 * is known, and the code travels up.
 */
#ifndef UTIL_ERR_H
#define UTIL_ERR_H

enum err {
	ERR_OK = 0,
	ERR_NOMEM, /* allocation failed (normally fatal) */
	ERR_IO, /* read, write, open, fsync */
	ERR_PARSE, /* input does not have the expected shape */
	ERR_LIMIT, /* input is over a limit of parsers/limits.h */
	ERR_NOTFOUND, /* no such object */
	ERR_EXISTS, /* object exists already */
	ERR_INVAL, /* bad argument or value */
	ERR_DB, /* the database failed */
	ERR_BUSY, /* the database or a lock is busy: retry later */
	ERR_TEMP, /* transient failure: retry later */
	ERR_CONFIG, /* the configuration is wrong */
	ERR_GIT, /* libgit2 failed */
	ERR_NET, /* network, TLS or protocol failure */
	ERR_PERM, /* not allowed */
	ERR_AUTH, /* authentication failed */
	ERR_CONFLICT, /* a patch does not apply, a state change is invalid */
	ERR_USAGE, /* bad command line */
	ERR_INTERNAL, /* a bug */
};

const char *err_str(enum err e);

#endif
