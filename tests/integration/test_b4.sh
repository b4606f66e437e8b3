#!/bin/sh
# `patchyard am` against `b4 --offline-mode am -m` (b4cmp.py does the
# comparing; docs/ORACLES.md explains every difference that remains):
#  1. the synthetic threads of tests/fixtures/am/*.mbox, each against the
#     differences pinned in the .expected file beside it;
#  2. body lines starting with "From " come out of `git am` as sent;
#  3. every reviewed thread of the util-linux corpus, against
#     tests/integration/b4-corpus.expected (skipped without the corpus).
# Skips without b4.  UPDATE=1 rewrites the .expected files.
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
PY=/usr/bin/python3
if ! command -v b4 >/dev/null 2>&1; then
	echo "skip: no b4"
	exit 0
fi
fail=0
update=""
[ "${UPDATE:-}" = 1 ] && update=--update

# import_into DIR MBOX: a fresh database in DIR with MBOX imported.
import_into() {
	mkdir -p "$1"
	printf '[core]\n\tdatabase = %s/yard.db\n[project "demo"]\n\tlist = demo@lists.example.org\n' \
	    "$1" >"$1/bot.conf"
	"$PATCHYARD" -c "$1/bot.conf" import --project demo "$2" 2>"$1/import.log"
}

# compare NAME MBOX EXPECTED
compare() {
	if ! import_into "$T/$1" "$2"; then
		echo "FAIL $1: import: $(cat "$T/$1/import.log")"
		fail=1
		return
	fi
	mkdir -p "$T/$1/work"
	if $PY tests/integration/b4cmp.py "$2" "$PATCHYARD" "$T/$1/bot.conf" \
	    "$T/$1/work" "$3" $update >"$T/$1/out" 2>&1; then
		echo "ok $1: $(tail -n 1 "$T/$1/out")"
	else
		cat "$T/$1/out"
		echo "FAIL $1"
		fail=1
	fi
}

for mbox in tests/fixtures/am/*.mbox; do
	name=$(basename "$mbox" .mbox)
	[ "$name" = from-lines ] && continue
	compare "$name" "$mbox" "${mbox%.mbox}.expected"
done

# A commit message line "From ..." reaches git am as written; only one git
# mailsplit would take for the next mail's start gets a '>' in front.
d=$T/from-lines
if import_into "$d" tests/fixtures/am/from-lines.mbox &&
    "$PATCHYARD" -c "$d/bot.conf" am fl-p@example.org >"$d/am.mbox" &&
    mkdir "$d/am" "$d/orig" &&
    git mailsplit -o"$d/am" "$d/am.mbox" >/dev/null &&
    git mailsplit --mboxrd -o"$d/orig" tests/fixtures/am/from-lines.mbox >/dev/null &&
    git mailinfo "$d/am.msg" "$d/am.patch" <"$d/am/0001" >/dev/null &&
    git mailinfo "$d/orig.msg" "$d/orig.patch" <"$d/orig/0001" >/dev/null &&
    sed 's/^From 0123456789abcdef Mon Sep/>&/' "$d/orig.msg" >"$d/want.msg" &&
    cmp -s "$d/want.msg" "$d/am.msg" && cmp -s "$d/orig.patch" "$d/am.patch"; then
	echo "ok from-lines: git am reads the message and patch as sent"
else
	diff -u "$d/want.msg" "$d/am.msg" 2>/dev/null
	echo "FAIL from-lines"
	fail=1
fi

corpus=${PATCHYARD_CORPUS:-$root/../shared/corpus/util-linux.mboxrd.gz}
if [ -f "$corpus" ]; then
	compare corpus "$corpus" tests/integration/b4-corpus.expected
else
	echo "skip: no corpus ($corpus)"
fi
exit $fail
