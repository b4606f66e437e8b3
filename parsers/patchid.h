/*
 * git's patch-id (builtin/patch-id.c), --stable flavour, computed from the
 * diff text with nettle's SHA-1: the same value `git patch-id --stable`
 * prints for the same diff, for every patch, including ones libgit2
 * cannot parse.  Also home of the project's SHA-1 (nettle is walled in
 * here).
 */
#ifndef PARSERS_PATCHID_H
#define PARSERS_PATCHID_H

#include <stdbool.h>
#include <stddef.h>

#include "util/oid.h"

/*
 * The stable patch-id of the diff in text[0..n) (what `git mailinfo`
 * writes to its patch file: commit message lines before the first
 * "diff " are ignored) as 40 lowercase hex digits plus NUL in hex.
 * Returns false when the text holds no diff (hex is then "").
 */
bool patchid_stable(const char *text, size_t n, char hex[OID_HEX_SIZE]);

/* SHA-1 of p[0..n). */
void patchid_sha1(const void *p, size_t n, unsigned char out[20]);

/* An incremental SHA-1, for hashing several pieces. */
struct patchid_sha1_ctx {
	unsigned char opaque[128] __attribute__((aligned(8)));
};
void patchid_sha1_init(struct patchid_sha1_ctx *c);
void patchid_sha1_update(struct patchid_sha1_ctx *c, const void *p, size_t n);
void patchid_sha1_final(struct patchid_sha1_ctx *c, unsigned char out[20]);

/* 20 bytes to 40 lowercase hex digits plus NUL. */
void patchid_hex(const unsigned char in[20], char out[OID_HEX_SIZE]);

#endif
