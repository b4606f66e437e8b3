/*
 * GET of one small file for the public-inbox mirror: see
 * pubinbox_http.h.  Redirects are followed (lore answers some paths
 * with one) but only to http and https; certificates are verified as
 * libcurl does by default; the body is refused past max as it comes.
 */
#include "bot/source/pubinbox_http.h"

#include <curl/curl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct get {
	char *p;
	size_t n, cap, max;
	bool over;
	volatile sig_atomic_t *stop;
};

static size_t
body(char *p, size_t size, size_t nmemb, void *arg)
{
	struct get *g = arg;
	size_t k = size * nmemb;

	if (k > g->max - g->n) {
		g->over = true;
		return 0; /* libcurl ends the transfer: CURLE_WRITE_ERROR */
	}
	g->p = xgrow(g->p, &g->cap, g->n + k + 1, 1);
	memcpy(g->p + g->n, p, k);
	g->n += k;
	g->p[g->n] = '\0';
	return k;
}

/* Called at least once a second, even while nothing comes. */
static int
progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	struct get *g = arg;

	(void)dt;
	(void)dn;
	(void)ut;
	(void)un;
	return g->stop != NULL && *g->stop ? 1 : 0;
}

enum err
pubinbox_http_get(const char *url, size_t max, volatile sig_atomic_t *stop,
    char **out, size_t *n, char *err, size_t errn)
{
	struct get g = { NULL, 0, 0, max, false, stop };
	char errbuf[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode r;
	CURL *h;
	enum err e = ERR_OK;

	*out = NULL;
	*n = 0;
	err[0] = '\0';
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errn, "libcurl cannot start");
		return ERR_NET;
	}
	h = curl_easy_init();
	if (h == NULL) {
		curl_global_cleanup();
		snprintf(err, errn, "libcurl cannot start");
		return ERR_NET;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)PUBINBOX_HTTP_TIMEOUT);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "patchyard");
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &g);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, &g);
	r = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (g.over) {
		snprintf(err, errn, "%s: larger than %zu bytes", url, max);
		e = ERR_LIMIT;
	} else if (r == CURLE_FILE_COULDNT_READ_FILE ||
	    (r == CURLE_OK && (status == 404 || status == 410))) {
		e = ERR_NOTFOUND;
	} else if (r != CURLE_OK) {
		snprintf(err, errn, "%s: %s", url,
		    errbuf[0] ? errbuf : curl_easy_strerror(r));
		e = ERR_NET;
	} else if (status != 0 && status != 200) {
		snprintf(err, errn, "%s: HTTP status %ld", url, status);
		e = ERR_NET;
	}
	curl_easy_cleanup(h);
	curl_global_cleanup();
	if (e != ERR_OK) {
		free(g.p);
		return e;
	}
	*out = g.p != NULL ? g.p : xcalloc(1, 1);
	*n = g.n;
	return ERR_OK;
}
