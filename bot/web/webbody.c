/*
 * The wall around jansson: request bodies are parsed here and nowhere
 * else, and what leaves is plain C strings in the caller's arena.  Output
 * JSON is util/json.c's.
 */
#include <inttypes.h>
#include <jansson.h>
#include <string.h>

#include "bot/web/webpriv.h"
#include "util/ascii.h"

/* What a check's fields may hold. */
#define CONTEXT_MAX 255
#define URL_MAX 2048
#define DESCRIPTION_MAX 2000

/* A string member within max bytes, NULL when absent or null; false
 * when it is there but not such a string. */
static bool
member(json_t *o, const char *key, size_t max, const char **out)
{
	json_t *v = json_object_get(o, key);
	size_t i, n;
	const char *s;

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return true;
	if (!json_is_string(v))
		return false;
	s = json_string_value(v);
	n = json_string_length(v);
	if (n > max || strlen(s) != n)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	*out = s;
	return true;
}

static bool
parse_body(
    json_t *o, int64_t path_patch, struct web_check_in *in, const char **why)
{
	static const char *const states[] = { "pending", "success", "warning",
		"fail", NULL };
	json_t *p = json_object_get(o, "patch");
	size_t i;

	memset(in, 0, sizeof(*in));
	in->patch = path_patch;
	if (!json_is_object(o))
		return *why = "the body is not a JSON object", false;
	if (path_patch == 0 && json_is_integer(p) && json_integer_value(p) > 0)
		in->patch = (int64_t)json_integer_value(p);
	else if (path_patch == 0 && json_is_string(p))
		in->msgid = json_string_value(p);
	else if (path_patch == 0)
		return *why = "patch: a patch id or a Message-ID", false;
	if (!member(o, "state", 16, &in->state) || in->state == NULL)
		return *why = "state: pending, success, warning or fail", false;
	for (i = 0; states[i] && strcmp(states[i], in->state) != 0; i++)
		;
	if (states[i] == NULL)
		return *why = "state: pending, success, warning or fail", false;
	if (!member(o, "context", CONTEXT_MAX, &in->context) ||
	    in->context == NULL || *in->context == '\0' ||
	    strchr(in->context, ' '))
		return *why = "context: one word, at most 255 bytes", false;
	if (!member(o, "target_url", URL_MAX, &in->url) ||
	    (in->url && *in->url && !web_http_url(in->url)))
		return *why = "target_url: an http or https URL", false;
	if (in->url && *in->url == '\0')
		in->url = NULL;
	if (!member(o, "description", DESCRIPTION_MAX, &in->description))
		return *why = "description: a line of text", false;
	return true;
}

/* Copy a parsed string out of jansson's object. */
static const char *
keep(struct arena *a, const char *s)
{
	return s ? arena_strdup(a, s) : NULL;
}

/* The check o holds, its strings copied into a (o is freed after). */
static bool
parse_check(struct arena *a, json_t *o, int64_t path_patch,
    struct web_check_in *in, const char **why)
{
	if (!parse_body(o, path_patch, in, why))
		return false;
	in->msgid = keep(a, in->msgid);
	in->state = keep(a, in->state);
	in->context = keep(a, in->context);
	in->url = keep(a, in->url);
	in->description = keep(a, in->description);
	return true;
}

bool
webbody_check(struct arena *a, const char *body, size_t n, int64_t patch,
    struct web_check_in *in, const char **why)
{
	json_error_t jerr;
	json_t *o =
	    json_loadb(body ? body : "", n, JSON_REJECT_DUPLICATES, &jerr);
	bool ok;

	if (o == NULL) {
		*why = "the body is not JSON";
		return false;
	}
	ok = parse_check(a, o, patch, in, why);
	json_decref(o);
	return ok;
}

/* Decode one name or value of a form: '+' is a space, %XX a byte; a
 * bad escape or a NUL is no form. */
static char *
form_decode(struct arena *a, const char *p, size_t n)
{
	char *out = arena_alloc(a, n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '+') {
			*o++ = ' ';
		} else if (p[i] == '%') {
			int hi, lo;

			if (n - i < 3)
				return NULL;
			hi = ascii_hexval(p[i + 1]);
			lo = ascii_hexval(p[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return NULL;
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else if (p[i] == '\0') {
			return NULL;
		} else {
			*o++ = p[i];
		}
	}
	*o = '\0';
	return out;
}

bool
webbody_form(struct arena *a, const char *body, size_t n, size_t max,
    struct web_arg **out, size_t *nout, const char **why)
{
	struct web_arg *v = arena_zalloc(a, (max ? max : 1) * sizeof(*v));
	size_t i = 0, k = 0;

	*out = v;
	*nout = 0;
	while (i < n) {
		size_t end = i, eq;

		while (end < n && body[end] != '&')
			end++;
		for (eq = i; eq < end && body[eq] != '='; eq++)
			;
		if (end > i) {
			if (k == max)
				return *why = "the form has too many fields",
				       false;
			v[k].name = form_decode(a, body + i, eq - i);
			v[k].value = eq < end
			    ? form_decode(a, body + eq + 1, end - eq - 1)
			    : "";
			if (v[k].name == NULL || v[k].value == NULL)
				return *why = "the body is not a form", false;
			k++;
		}
		i = end + 1;
	}
	*nout = k;
	return true;
}

bool
webbody_check_form(struct arena *a, const struct web_arg *f, size_t n,
    int64_t patch, struct web_check_in *in, const char **why)
{
	json_t *o = json_object();
	bool ok = true;
	size_t i;
	int64_t id;

	for (i = 0; i < n && ok; i++) {
		json_t *v;

		/* A patch by number is an integer in JSON. */
		if (strcmp(f[i].name, "patch") == 0 &&
		    web_id(f[i].value, strlen(f[i].value), &id))
			v = json_integer(id);
		else
			v = json_string(f[i].value);
		if (v == NULL) {
			*why = "the form is not UTF-8";
			ok = false;
		} else if (json_object_get(o, f[i].name)) {
			json_decref(v);
			*why = "the form gives a field twice";
			ok = false;
		} else {
			json_object_set_new(o, f[i].name, v);
		}
	}
	if (ok)
		ok = parse_check(a, o, patch, in, why);
	json_decref(o);
	return ok;
}

bool
webbody_fields(struct arena *a, const char *body, size_t n, size_t max,
    struct web_arg **out, size_t *nout, const char **why)
{
	json_error_t jerr;
	json_t *o =
	    json_loadb(body ? body : "", n, JSON_REJECT_DUPLICATES, &jerr);
	struct web_arg *v = arena_zalloc(a, (max ? max : 1) * sizeof(*v));
	const char *key;
	json_t *val;
	size_t k = 0;
	bool ok = true;

	*out = v;
	*nout = 0;
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		*why = "the body is not a JSON object";
		return false;
	}
	json_object_foreach(o, key, val)
	{
		if (!ok)
			break;
		if (k == max) {
			*why = "the body has too many fields";
			ok = false;
			break;
		}
		v[k].name = arena_strdup(a, key);
		if (json_is_string(val) &&
		    strlen(json_string_value(val)) == json_string_length(val))
			v[k].value = arena_strdup(a, json_string_value(val));
		else if (json_is_true(val) || json_is_false(val))
			v[k].value = json_is_true(val) ? "true" : "false";
		else if (json_is_integer(val))
			v[k].value = arena_printf(
			    a, "%" PRId64, (int64_t)json_integer_value(val));
		else if (json_is_null(val))
			v[k].value = NULL;
		else {
			*why = "a field's value is not a string, number or "
			       "boolean";
			ok = false;
		}
		k++;
	}
	json_decref(o);
	*nout = ok ? k : 0;
	return ok;
}
