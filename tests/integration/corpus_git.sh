#!/bin/sh
# Patch mails found as patches, against git (issue 18): the util-linux
# corpus is imported, and every mail that is no reply and in which `git
# mailinfo` finds a patch must be a patch with `git patch-id --stable`'s
# id (tests/integration/gitagree.py).  The disagreements must be exactly
# those of corpus-git.expected, each explained in docs/ORACLES.md.
# About a minute (git mailinfo per candidate mail): run by `make
# corpus-git`, not by `make check`.  Skips without the corpus or git.
set -u
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
corpus=${PATCHYARD_CORPUS:-$root/../shared/corpus/util-linux.mboxrd.gz}
if [ ! -f "$corpus" ] || ! command -v git >/dev/null; then
	echo "skip: no corpus or no git"
	exit 0
fi
case $corpus in
*.gz) gunzip -c "$corpus" >"$T/ul.mbox" ;;
*) cp "$corpus" "$T/ul.mbox" ;;
esac
write_conf
yard import --project demo "$T/ul.mbox" 2>"$T/import.log" ||
	{ echo "FAIL import: $(tail -n 1 "$T/import.log")"; exit 1; }
/usr/bin/python3 tests/integration/gitagree.py "$T/ul.mbox" "$T/yard.db" "$T" >"$T/got" ||
	{ echo "FAIL gitagree.py"; exit 1; }
head -n 1 "$T/got"
if tail -n +2 "$T/got" | diff -u tests/integration/corpus-git.expected -; then
	echo "ok every disagreement with git is a known one"
else
	echo "FAIL disagreements with git changed (docs/ORACLES.md)"
	exit 1
fi
