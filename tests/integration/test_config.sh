#!/bin/sh
# `patchyard config`: the effective configuration or every error with
# file:line.  Relative paths are taken from the config file's folder, and
# files a key names are not opened (they are checked when used), so a
# config can be checked on any machine.
set -u
. "$(dirname "$0")/lib.sh"
: "${TOP:=$(pwd)}"
fail=0
bad() {
	echo "FAIL: $*"
	fail=$((fail + 1))
}
# ok WHAT: say so when nothing failed since the last ok.
seen=0
ok() {
	[ $fail = $seen ] && echo "ok: $*"
	seen=$fail
}
# has FILE LINE: FILE holds LINE exactly.
has() {
	grep -qxF -- "$2" "$1" || bad "$1 lacks '$2'"
}

# Relative paths, from the folder of the file, whatever the working
# directory; URLs and scp-like remotes as written; nothing opened.
mkdir -p "$T/etc" "$T/elsewhere"
cat >"$T/etc/bot.conf" <<'EOF'
[core]
	database = yard.db
[bot]
	templates = templates
[project "p"]
	list = p@example.org
	staging = p.git
	upstream = ../up.git
	push = git@example.org:yard/p.git
[tree "t"]
	url = trees/t.git
[tree "u"]
	url = https://git.example.org/u.git
[maintainer "m"]
	email = m@example.org
	token-file = m.token
[ci "c"]
	email = ci@example.org
	token-file = ci.token
[source "m"]
	maildir = spool
[source "l"]
	public-inbox = https://lore.kernel.org/p
[source "i"]
	imap = imaps://bot@imap.example.org/INBOX
	password-file = imap.pass
	ca-file = /etc/ssl/certs/none.pem
[smtp]
	url = smtps://smtp.example.org
	password-file = smtp.pass
EOF
if (cd "$T/elsewhere" && "$PATCHYARD" -c ../etc/bot.conf config) >"$T/out" 2>"$T/err"; then
	E="../etc"
	has "$T/out" "	database = $E/yard.db"
	has "$T/out" "	templates = $E/templates"
	has "$T/out" "	staging = $E/p.git"
	has "$T/out" "	upstream = $E/../up.git"
	has "$T/out" "	push = git@example.org:yard/p.git"
	has "$T/out" "	url = $E/trees/t.git"
	has "$T/out" "	url = https://git.example.org/u.git"
	has "$T/out" "	token-file = $E/ci.token"
	has "$T/out" "	token-file = $E/m.token"
	has "$T/out" "	maildir = $E/spool"
	has "$T/out" "	public-inbox = https://lore.kernel.org/p"
	has "$T/out" "	password-file = $E/imap.pass"
	has "$T/out" "	ca-file = /etc/ssl/certs/none.pem"
	has "$T/out" "	password-file = $E/smtp.pass"
	ok "relative paths from the config's folder, named files not opened"
else
	bad "config fails: $(cat "$T/err")"
fi

# bot.conf.example checks on any machine and names every key; a copy
# with a bad key appended is refused with that key's file:line.
ex="$TOP/bot.conf.example"
if (cd "$T" && "$PATCHYARD" -c "$ex" config) >"$T/out" 2>"$T/ex.err"; then
	sed -n 's/^#\{0,1\}\t\([a-z][a-z0-9-]*\) = .*/\1/p' "$ex" | sort -u >"$T/keys"
	[ "$(wc -l <"$T/keys")" -ge 50 ] || bad "only $(wc -l <"$T/keys") keys in the example"
	while read -r k; do
		grep -Eq "^#?	(# )?$k( = | is )" "$T/out" || bad "config does not print $k"
	done <"$T/keys"
else
	bad "patchyard -c bot.conf.example config fails: $(cat "$T/ex.err")"
fi
cp "$ex" "$T/copy.conf"
printf '[smtp]\n\tno-such-key = 1\n' >>"$T/copy.conf"
n=$(wc -l <"$T/copy.conf")
"$PATCHYARD" -c "$T/copy.conf" config >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || bad "the broken copy exits $rc, want 1"
grep -q "^$T/copy.conf:$n: unknown key 'no-such-key' in section 'smtp'\$" "$T/err" ||
	bad "the broken copy's error: $(cat "$T/err")"
ok "bot.conf.example checks and names every key; a bad key is file:line"

# Tests run code from mail: test.sandbox = none is valid, but config
# warns about it (exit 0, the configuration still printed); the default
# (bwrap) says nothing.
[ -s "$T/ex.err" ] && bad "bot.conf.example warns: $(cat "$T/ex.err")"
cp "$ex" "$T/none.conf"
printf '[test]\n\tsandbox = none\n' >>"$T/none.conf"
if "$PATCHYARD" -c "$T/none.conf" config >"$T/out" 2>"$T/err"; then
	grep -q "^patchyard: warning: $T/none.conf: test.sandbox = none: " "$T/err" ||
		bad "no warning about sandbox = none: $(cat "$T/err")"
	has "$T/out" "	sandbox = none"
else
	bad "sandbox = none is refused: $(cat "$T/err")"
fi
ok "sandbox = none is warned about, exit 0; the default is not"

# Every error at once, each with file:line, exit 1, nothing on stdout.
cat >"$T/broken.conf" <<'EOF'
[core]
	database = yard.db
[project "p"]
	list = not an address
[test]
	timeout = forever
	no-such-key = 1
EOF
"$PATCHYARD" -c "$T/broken.conf" config >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] || bad "a broken config exits $rc, want 1"
[ -s "$T/out" ] && bad "a broken config prints a configuration"
for l in 4 6 7; do
	grep -q "^$T/broken.conf:$l: " "$T/err" || bad "no error for line $l: $(cat "$T/err")"
done
[ "$(wc -l <"$T/err")" = 3 ] || bad "want 3 errors: $(cat "$T/err")"
ok "every error with file:line, exit 1"
[ $fail = 0 ]
