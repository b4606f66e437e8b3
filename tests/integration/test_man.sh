#!/bin/sh
# The man pages render cleanly: groff -ww finds nothing to warn about,
# man(1) renders them without a word on stderr, every .TP/.TQ tag is one
# source line (a synopsis spread over two lines breaks out of its tag
# into the description), and patchyard(1) has a paragraph for every
# command `patchyard --help` lists.
set -u
. "$(dirname "$0")/lib.sh"
: "${TOP:=$(pwd)}"
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
command -v groff >/dev/null || {
	bad "no groff (scripts/install-deps installs groff-base)"
	exit 1
}
pages="$TOP/man/patchyard.1 $TOP/man/bot.conf.5"

for p in $pages; do
	groff -ww -z -man "$p" >"$T/groff" 2>&1
	[ -s "$T/groff" ] && bad "groff -ww warns on $p: $(cat "$T/groff")"
	if command -v man >/dev/null; then
		MANWIDTH=80 man --warnings -l "$p" >"$T/page" 2>"$T/man" ||
			bad "man -l $p fails"
		[ -s "$T/man" ] && bad "man -l $p: $(cat "$T/man")"
		[ -s "$T/page" ] || bad "man -l $p renders nothing"
	fi
	# After .TP or .TQ: one tag line, then .TQ or the paragraph's text.
	awk -v page="$p" '
		state == 2 && /^\./ && !/^\.TQ/ {
			printf "%s:%d: the tag \"%s\" goes on: make it one line\n",
			    page, NR - 1, tag
			bad = 1
		}
		state == 2 { state = 0 }
		state == 1 { tag = $0; state = 2 }
		/^\.(TP|TQ)/ { state = 1 }
		END { exit bad }' "$p" >"$T/tags" || bad "$(cat "$T/tags")"
done

# Every command of the usage text has its tag in patchyard(1).
"$PATCHYARD" --help >"$T/usage" || bad "patchyard --help fails"
awk '/^  [a-z]/ { print $1; if ($2 == "|") print $3 }' "$T/usage" |
	sort -u >"$T/commands"
[ "$(wc -l <"$T/commands")" -ge 10 ] || bad "too few commands in the usage: $(cat "$T/usage")"
while read -r c; do
	grep -Eq "^(\\.B $c\$|\\.B[RI]? $c |\\\\fB$c\\\\fR)" "$TOP/man/patchyard.1" ||
		bad "man/patchyard.1 has no paragraph for '$c'"
done <"$T/commands"

[ $fail = 0 ] && echo "ok: man pages render without warnings; $(wc -l <"$T/commands") commands documented"
exit $fail
