/*
 * Replays the inputs of one fuzz target: every file under the directories
 * given (tests/fixtures/regress/<target>/) is fed to the target once.  A
 * crash found by the fuzzer becomes a file there, and make check keeps
 * replaying it under the sanitizers.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	size_t n = 0, cap = 0, r;

	if (f == NULL) {
		perror(path);
		return 1;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			p = realloc(p, cap);
			if (p == NULL)
				abort();
		}
		r = fread(p + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(p, n);
	free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, count = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;
		char path[4096];

		if (d == NULL)
			continue; /* no regressions recorded yet */
		while ((e = readdir(d)) != NULL) {
			struct stat st;
			int r;

			if (e->d_name[0] == '.')
				continue;
			r = snprintf(
			    path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (r < 0 || (size_t)r >= sizeof(path))
				continue;
			if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
			bad |= replay_file(path);
			count++;
		}
		closedir(d);
	}
	printf("[  PASSED  ] %d input(s) replayed.\n", count);
	return bad;
}
