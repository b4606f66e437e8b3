/*
 * A small JSON writer into a struct buf.  It keeps track of commas; the
 * caller keeps track of nesting.  Strings are escaped and repaired to
 * valid UTF-8.
 */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

struct json {
	struct buf *out;
	bool need_comma;
	bool after_key;
	int depth;
	bool pretty;
};

void json_init(struct json *j, struct buf *out, bool pretty);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);
/* An object key; the value follows with one of the calls below. */
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s); /* NULL writes null */
void json_strn(struct json *j, const char *s, size_t n);
void json_int(struct json *j, int64_t v);
/* Milliseconds as a number of seconds: 1234 writes 1.234. */
void json_millis(struct json *j, int64_t ms);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* Append s, JSON-escaped, without quotes. */
void json_escape(struct buf *out, const char *s, size_t n);

#endif
