/*
 * The wall around jansson: request bodies are parsed here and nowhere
 * else, and what leaves is plain C strings in the caller's arena.  Output
 * JSON is util/json.c's.
 */
#include <jansson.h>
#include <string.h>

#include "bot/web/webpriv.h"

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
	ok = parse_body(o, patch, in, why);
	if (ok) {
		in->msgid = keep(a, in->msgid);
		in->state = keep(a, in->state);
		in->context = keep(a, in->context);
		in->url = keep(a, in->url);
		in->description = keep(a, in->description);
	}
	json_decref(o);
	return ok;
}
