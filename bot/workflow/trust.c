#include "bot/workflow/trust.h"

#include "parsers/addr.h"
#include "util/ascii.h"

const char *
trust_unauthenticated(
    struct arena *a, const struct config *conf, const struct mail *m)
{
	const char *why = NULL;

	if (conf && conf->auth_require == CONF_AUTH_NONE)
		return NULL;
	if (conf == NULL || conf->auth_authserv_id == NULL)
		return "auth.authserv-id is not configured, so no mail is "
		       "trusted";
	if (addr_auth_check(a, &m->hdr, conf->auth_authserv_id, m->from.email,
	        &why) == ADDR_AUTH_PASS)
		return NULL;
	return why ? why : "not authenticated";
}

bool
trust_same_person(const struct config *conf, const char *x, const char *y)
{
	if (x == NULL || y == NULL || *x == '\0' || *y == '\0')
		return false;
	if (conf == NULL)
		return ascii_stricmp(x, y) == 0;
	return config_same_person(conf, x, y);
}

bool
trust_trailer_verified(const struct config *conf, const struct mail *m,
    const struct trailer *t, bool authenticated)
{
	if (!authenticated)
		return false;
	if (t->person.email == NULL)
		return true;
	return trust_same_person(conf, t->person.email, m->from.email);
}
