#!/bin/sh
# Every mbox under tests/fixtures/{series,threading,versions} is imported
# alone into a fresh database; the summary of what patchyard made of it
# (tests/integration/summarize.py, after the import's count line) must
# equal the golden <case>.expected beside it.  A <case>.conf beside it
# adds its lines to the configuration.
#
# <case>.fail.mbox is a case patchyard is known to get wrong: its
# .expected says what is right, and it is skipped so that `make check`
# stays green.  FAILING=1 runs only those (and fails while they do);
# when one passes, rename it to <case>.mbox.
#
# Arguments, if any, are the mboxes to run (.fail ones too).  UPDATE=1
# rewrites the .expected of the cases run (never of a .fail case): read
# every line against docs/DESIGN.md before committing it.
set -u
. "$(dirname "$0")/lib.sh"
fail=0
explicit=$#
if [ $# -eq 0 ]; then
	set -- tests/fixtures/series/*.mbox tests/fixtures/threading/*.mbox \
	    tests/fixtures/versions/*.mbox
fi
for mbox in "$@"; do
	[ -f "$mbox" ] || continue
	case $mbox in
	*.fail.mbox)
		if [ "$explicit" = 0 ] && [ "${FAILING:-}" != 1 ]; then
			echo "skip $mbox (known wrong)"
			continue
		fi
		base=${mbox%.fail.mbox}
		;;
	*)
		[ "$explicit" = 0 ] && [ "${FAILING:-}" = 1 ] && continue
		base=${mbox%.mbox}
		;;
	esac
	want=$base.expected
	rm -f "$T/yard.db"*
	# An archive carries no Authentication-Results of ours: the cases
	# trust From: (auth.require = none) unless their .conf says how to
	# authenticate.
	auth='[auth]
	require = none'
	[ -f "$base.conf" ] && grep -q '^\[auth\]' "$base.conf" && auth=
	if [ -f "$base.conf" ]; then
		write_conf "$(cat "$base.conf")" "$auth"
	else
		write_conf "$auth"
	fi
	"$PATCHYARD" -c "$T/bot.conf" import --project demo "$mbox" 2>"$T/err" ||
		{ echo "FAIL $mbox: import: $(cat "$T/err")"; fail=1; continue; }
	# The import's count line, without its timing.
	sed -n 's/^\(import: [0-9]* mails\) in [0-9.]* s:/\1:/p' "$T/err" >"$T/got"
	/usr/bin/python3 tests/integration/summarize.py "$PATCHYARD" \
	    "$T/bot.conf" "$T/yard.db" >>"$T/got" ||
		{ echo "FAIL $mbox: summary"; fail=1; continue; }
	if [ "${UPDATE:-}" = 1 ] && [ "$mbox" = "$base.mbox" ]; then
		cp "$T/got" "$want"
		echo "wrote $want"
	elif ! diff -u "$want" "$T/got"; then
		echo "FAIL $mbox"
		fail=1
	else
		echo "ok $mbox"
	fi
done
exit $fail
