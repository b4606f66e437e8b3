#include "util/secret.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

enum err
secret_read(const char *path, char *out, size_t n, char *why, size_t whyn)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (f == NULL) {
		snprintf(why, whyn, "%s: %s", path, strerror(errno));
		return ERR_CONFIG;
	}
	if (fgets(out, (int)n, f) == NULL)
		out[0] = '\0';
	fclose(f);
	len = strlen(out);
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
		out[--len] = '\0';
	return ERR_OK;
}
