#!/bin/sh
# scripts/check-layers itself: it passes on the tree, and fails when a file
# is added that includes a room against the order, includes a bot/ header
# without its room or another room's private header, sits in a folder that
# is not a room, or includes a library outside its wall.  Each case runs on a copy of the tree.
set -u
. "$(dirname "$0")/lib.sh"
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
copy() {
	rm -rf "$T/tree"
	mkdir -p "$T/tree"
	cp -al util parsers storage bot "$T/tree/" # links: cases only add files
}
# expect_fail NAME FILE TEXT WORDS: adding FILE with TEXT makes the checker
# fail with a message that names FILE and holds WORDS.
expect_fail() {
	copy
	mkdir -p "$(dirname "$T/tree/$2")"
	printf '%s\n' "$3" >"$T/tree/$2"
	if scripts/check-layers "$T/tree" 2>"$T/err"; then
		bad "$1: check-layers passes"
	elif ! grep -qF "$2" "$T/err" || ! grep -qF "$4" "$T/err"; then
		bad "$1: message does not name $2 and '$4': $(cat "$T/err")"
	else
		echo "ok: $1"
	fi
}

copy
if scripts/check-layers "$T/tree" 2>"$T/err"; then
	echo "ok: the tree passes"
else
	bad "the tree does not pass: $(cat "$T/err")"
fi

expect_fail "a low room uses a higher one" bot/git/bad.c \
	'#include "bot/workflow/ingest.h"' "may not use room workflow"
expect_fail "two rooms of one level" bot/mailout/bad.c \
	'#include "bot/source/source.h"' "may not use room source"
expect_fail "the CLI used from below" bot/workflow/bad.c \
	'#include "bot/cli/conf.h"' "may not use room cli"
expect_fail "a bot/ header without its room" bot/workflow/bad.c \
	'#include "bot/ingest.h"' "live in rooms"
expect_fail "a header without its folder" bot/workflow/bad.c \
	'#include "ingest.h"' "against the layers"
expect_fail "a room's private header used by another" bot/workflow/bad.c \
	'#include "bot/git/gitpriv.h"' "private to bot/git/"
expect_fail "a private header from the top" bot/bad.c \
	'#include "bot/cli/clipriv.h"' "private to bot/cli/"
expect_fail "a folder that is not a room" bot/misc/bad.c \
	'#include "util/buf.h"' "not a room"
expect_fail "storage uses bot" storage/bad.c \
	'#include "bot/git/gitrepo.h"' "against the layers"
expect_fail "parsers use storage" parsers/bad.c \
	'#include "storage/store.h"' "against the layers"
expect_fail "libcurl outside mail out" bot/workflow/bad.c \
	'#include <curl/curl.h>' "curl/"
expect_fail "libgit2 outside the git room" bot/mailout/bad.c \
	'#include <git2.h>' "git2"
expect_fail "sqlite outside storage" bot/cli/bad.c \
	'#include <sqlite3.h>' "sqlite3.h"
expect_fail "libmicrohttpd outside the web room" bot/daemon/bad.c \
	'#include <microhttpd.h>' "microhttpd.h"
expect_fail "I/O in a parser" parsers/bad.c \
	'int f(void) { return open("x", 0); }' "I/O in parsers"
expect_fail "a second base64 encoder" bot/mailout/bad.c \
	'static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";' \
	"a codec or checksum"
expect_fail "a hand-written CRC-32" bot/git/bad.c \
	'unsigned poly = 0xEDB88320u;' "a codec or checksum"
expect_fail "hash verification off" bot/git/bad.c \
	'void f(void) { git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0); }' \
	"hash verification turned off"
expect_fail "zlib outside its rooms" bot/workflow/bad.c \
	'#include <zlib.h>' "zlib.h"
expect_fail "zlib in the web room outside webgzip.c" bot/web/bad.c \
	'#include <zlib.h>' "zlib.h"
expect_fail "nettle outside patch-id and patatt" parsers/bad.c \
	'#include <nettle/sha2.h>' "nettle/"
expect_fail "nettle in the bot" bot/workflow/bad.c \
	'#include <nettle/eddsa.h>' "nettle/"
expect_fail "libopendkim outside the DKIM file" bot/workflow/bad.c \
	'#include <opendkim/dkim.h>' "opendkim/"
expect_fail "libopendkim in a parser" parsers/bad.c \
	'#include <opendkim/dkim.h>' "opendkim/"

# And a legal include across rooms passes.
copy
printf '#include "bot/git/gitrepo.h"\n' >"$T/tree/bot/workflow/ok.c"
if scripts/check-layers "$T/tree" 2>"$T/err"; then
	echo "ok: a room uses a lower one"
else
	bad "a room may not use a lower one: $(cat "$T/err")"
fi
exit $fail
