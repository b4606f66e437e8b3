#include "util/json.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/utf8.h"

static void
put(struct json *j, const char *s, size_t n)
{
	buf_add(j->out, s, n);
}

static void
indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	put(j, "\n", 1);
	for (i = 0; i < j->depth; i++)
		put(j, "  ", 2);
}

/* Before a value or key: a comma if needed, then a newline when pretty. */
static void
value_start(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma)
		put(j, ",", 1);
	if (j->depth > 0)
		indent(j);
}

void
json_init(struct json *j, struct buf *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

static void
open_(struct json *j, char c)
{
	value_start(j);
	put(j, &c, 1);
	j->depth++;
	j->need_comma = false;
}

static void
close_(struct json *j, char c)
{
	bool empty = !j->need_comma;

	j->depth--;
	if (!empty)
		indent(j);
	put(j, &c, 1);
	j->need_comma = true;
}

void
json_obj_begin(struct json *j)
{
	open_(j, '{');
}

void
json_obj_end(struct json *j)
{
	close_(j, '}');
}

void
json_arr_begin(struct json *j)
{
	open_(j, '[');
}

void
json_arr_end(struct json *j)
{
	close_(j, ']');
}

void
json_key(struct json *j, const char *key)
{
	value_start(j);
	put(j, "\"", 1);
	json_escape(j->out, key, strlen(key));
	put(j, j->pretty ? "\": " : "\":", j->pretty ? 3 : 2);
	j->after_key = true;
	j->need_comma = false;
}

void
json_escape(struct buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	struct buf fixed = BUF_INIT;
	size_t i, start = 0;

	if (!utf8_valid(s, n)) {
		utf8_repair(&fixed, s, n);
		s = fixed.p;
		n = fixed.n;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t en;

		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		buf_add(out, s + start, i - start);
		switch (c) {
		case '"':
			memcpy(esc, "\\\"", 2), en = 2;
			break;
		case '\\':
			memcpy(esc, "\\\\", 2), en = 2;
			break;
		case '\n':
			memcpy(esc, "\\n", 2), en = 2;
			break;
		case '\t':
			memcpy(esc, "\\t", 2), en = 2;
			break;
		case '\r':
			memcpy(esc, "\\r", 2), en = 2;
			break;
		default:
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			en = 6;
		}
		buf_add(out, esc, en);
		start = i + 1;
	}
	buf_add(out, s + start, n - start);
	buf_free(&fixed);
}

void
json_strn(struct json *j, const char *s, size_t n)
{
	value_start(j);
	put(j, "\"", 1);
	json_escape(j->out, s, n);
	put(j, "\"", 1);
	j->need_comma = true;
}

void
json_str(struct json *j, const char *s)
{
	if (s == NULL)
		json_null(j);
	else
		json_strn(j, s, strlen(s));
}

void
json_int(struct json *j, int64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRId64, v);

	value_start(j);
	put(j, tmp, (size_t)n);
	j->need_comma = true;
}

void
json_millis(struct json *j, int64_t ms)
{
	char tmp[48];
	int n = snprintf(tmp, sizeof(tmp), "%s%" PRId64 ".%03" PRId64,
	    ms < 0 ? "-" : "", (ms < 0 ? -ms : ms) / 1000,
	    (ms < 0 ? -ms : ms) % 1000);

	value_start(j);
	put(j, tmp, (size_t)n);
	j->need_comma = true;
}

void
json_bool(struct json *j, bool v)
{
	value_start(j);
	put(j, v ? "true" : "false", v ? 4 : 5);
	j->need_comma = true;
}

void
json_null(struct json *j)
{
	value_start(j);
	put(j, "null", 4);
	j->need_comma = true;
}
