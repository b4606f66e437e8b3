#include "util/err.h"

const char *
err_str(enum err e)
{
	switch (e) {
	case ERR_OK:
		return "success";
	case ERR_NOMEM:
		return "out of memory";
	case ERR_IO:
		return "input/output error";
	case ERR_PARSE:
		return "cannot parse";
	case ERR_LIMIT:
		return "over a limit";
	case ERR_NOTFOUND:
		return "not found";
	case ERR_EXISTS:
		return "exists already";
	case ERR_INVAL:
		return "invalid value";
	case ERR_DB:
		return "database error";
	case ERR_BUSY:
		return "busy";
	case ERR_TEMP:
		return "temporary failure";
	case ERR_CONFIG:
		return "configuration error";
	case ERR_GIT:
		return "git error";
	case ERR_NET:
		return "network error";
	case ERR_PERM:
		return "not permitted";
	case ERR_AUTH:
		return "authentication failed";
	case ERR_CONFLICT:
		return "conflict";
	case ERR_USAGE:
		return "usage error";
	case ERR_INTERNAL:
		return "internal error";
	}
	return "unknown error";
}
