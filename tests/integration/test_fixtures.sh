#!/bin/sh
# Every mbox under tests/fixtures/{series,threading,versions,demo} is
# imported into a fresh database; the summary of what patchyard made of it
# must equal the golden .expected file beside it.  UPDATE=1 rewrites them.
set -u
. "$(dirname "$0")/lib.sh"
fail=0
for mbox in tests/fixtures/series/*.mbox tests/fixtures/threading/*.mbox \
    tests/fixtures/versions/*.mbox; do
	[ -f "$mbox" ] || continue
	want=${mbox%.mbox}.expected
	rm -f "$T/yard.db"*
	write_conf
	"$PATCHYARD" -c "$T/bot.conf" import --project demo "$mbox" 2>"$T/err" ||
		{ echo "FAIL $mbox: import: $(cat "$T/err")"; fail=1; continue; }
	/usr/bin/python3 tests/integration/summarize.py "$PATCHYARD" "$T/bot.conf" >"$T/got" ||
		{ echo "FAIL $mbox: summary"; fail=1; continue; }
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$T/got" "$want"
	elif ! diff -u "$want" "$T/got"; then
		echo "FAIL $mbox"
		fail=1
	else
		echo "ok $mbox"
	fi
done
exit $fail
