#!/bin/sh
# The field's protocols against the real git-pw and b4 from Debian, on
# loopback (tests/integration/protocols.py).  Skips without them.
for c in git-pw b4; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "skip: no $c"
		exit 0
	fi
done
exec /usr/bin/python3 "$(dirname "$0")/protocols.py"
