/*
 * The epochs a public-inbox v2 inbox lists in its grokmirror manifest
 * (<inbox>/manifest.js.gz, once inflated): a JSON object whose keys are
 * the paths of the inbox's repositories, "/<inbox>/git/<N>.git" for
 * epoch N, each with an object of facts (fingerprint, modified, and a
 * "reference" that names a repository too).
 */
#ifndef PARSERS_MANIFEST_H
#define PARSERS_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/*
 * Each epoch N below max that a key of the top-level object names
 * (a path ending in "/git/N.git") is set in have[0..max); *beyond tells
 * whether a key named one at or above max.  Values are skipped, not
 * read.  ERR_PARSE when text is not one JSON object, as far as the scan
 * can tell (it checks strings, nesting and separators, not numbers or
 * literals), or nests deeper than MANIFEST_DEPTH.
 */
enum err manifest_epochs(
    const char *text, size_t n, bool *have, size_t max, bool *beyond);

/* Nesting of objects and arrays followed; a grokmirror manifest has 3. */
#define MANIFEST_DEPTH 64

#endif
