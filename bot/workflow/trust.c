#include "bot/workflow/trust.h"

#include <stdlib.h>
#include <string.h>

#include "bot/workflow/devsig.h"
#include "bot/workflow/dkim.h"
#include "parsers/addr.h"
#include "util/ascii.h"
#include "util/xalloc.h"

/* Seconds a DNS lookup of a DKIM key may take. */
#define DKIM_TIMEOUT 5

struct trust {
	const struct config *conf;
	struct dkimv *dkim; /* made at the first signed mail */
};

struct trust *
trust_new(const struct config *conf)
{
	struct trust *t = xcalloc(1, sizeof(*t));

	t->conf = conf;
	return t;
}

void
trust_free(struct trust *t)
{
	if (t == NULL)
		return;
	dkimv_free(t->dkim);
	free(t);
}

/* The header a mail must carry once, given twice, or NULL. */
static const char *
doubled(const struct hdr *h)
{
	static const char *const once[] = { "From", "Sender", "Date",
		"Subject" };
	size_t i, k, seen;

	for (k = 0; k < sizeof(once) / sizeof(once[0]); k++) {
		seen = 0;
		for (i = 0; i < h->n; i++)
			if (str_ieqs(h->f[i].name, once[k]) && ++seen > 1)
				return once[k];
	}
	return NULL;
}

static bool
has_header(const struct hdr *h, const char *name)
{
	return hdr_get(h, name) != NULL;
}

/* A DKIM signature of the From domain (or a parent of it) that
 * verifies: "dkim d=..."; else NULL and *why. */
static const char *
by_dkim(struct trust *t, struct arena *a, const struct mail *m, const char *raw,
    size_t n, const char **why)
{
	const char **d = NULL, *from = addr_domain(m->from.email);
	size_t i;

	if (t->dkim == NULL)
		t->dkim = dkimv_new(
		    t->conf ? t->conf->auth_dkim_keys : NULL, DKIM_TIMEOUT);
	if (t->dkim == NULL ||
	    dkimv_verify(t->dkim, a, raw, n, &d, why) != ERR_OK) {
		*why = "DKIM could not be checked";
		return NULL;
	}
	for (i = 0; d[i]; i++)
		if (addr_dkim_covers(a, from, d[i]))
			return arena_printf(a, "dkim d=%s", d[i]);
	if (d[0])
		*why = arena_printf(a,
		    "the DKIM signature of %s is not one of the From "
		    "domain %s",
		    d[0], from);
	return NULL;
}

/* A developer signature of the From address that verifies. */
static const char *
by_patatt(struct trust *t, struct arena *a, const struct mail *m,
    const char *raw, size_t n, const char **why)
{
	const char *id = devsig_identity(
	    a, t->conf ? t->conf->auth_keyring : NULL, raw, n, why);

	if (id == NULL)
		return NULL;
	if (addr_same(id, m->from.email))
		return arena_printf(a, "patatt i=%s", id);
	*why = arena_printf(
	    a, "the developer signature is %s's, not the From address's", id);
	return NULL;
}

void
trust_judge(struct trust *t, struct arena *a, const struct trust_road *road,
    const struct mail *m, const char *raw, size_t n, const char **proof,
    const char **note)
{
	const char *twice = doubled(&m->hdr), *why = NULL, *relay = NULL;
	const char *sig_why = NULL;

	*proof = NULL;
	*note = NULL;
	if (t->conf && t->conf->auth_require == CONF_AUTH_NONE) {
		*proof = "none required";
		return;
	}
	if (twice) {
		*note = arena_printf(a, "two %s headers", twice);
		return;
	}
	if (m->from.email == NULL || *m->from.email == '\0') {
		*note = "no From address";
		return;
	}
	if (road->authserv_id) {
		if (addr_auth_check(a, &m->hdr, road->authserv_id,
		        m->from.email, &why) == ADDR_AUTH_PASS) {
			*proof = arena_printf(a, "relay %s", road->authserv_id);
			return;
		}
		relay =
		    arena_printf(a, "%s (relay %s)", why, road->authserv_id);
	}
	if (!road->verify) {
		*note = relay ? relay : "imported: no signature was checked";
		return;
	}
	if (has_header(&m->hdr, "X-Developer-Signature") &&
	    (*proof = by_patatt(t, a, m, raw, n, &sig_why)) != NULL)
		return;
	if (has_header(&m->hdr, "DKIM-Signature") &&
	    (*proof = by_dkim(t, a, m, raw, n, &why)) != NULL)
		return;
	if (has_header(&m->hdr, "DKIM-Signature"))
		*note = why;
	else if (sig_why)
		*note = sig_why;
	else if (relay)
		*note = relay;
	else
		*note = road->authserv_id
		    ? "no DKIM or developer signature"
		    : "no DKIM or developer signature, and this road names "
		      "no relay";
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
trust_trailer_verified(const struct config *conf, const char *from_email,
    const struct trailer *t, bool authenticated)
{
	if (!authenticated)
		return false;
	if (t->person.email == NULL)
		return true;
	return trust_same_person(conf, t->person.email, from_email);
}
