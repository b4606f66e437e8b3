#!/bin/sh
# The status pages in a real headless Chromium (tests/integration/
# web_browser.py).  Chromium is installed when missing (as root, through
# scripts/install-deps --browser); the test skips, saying why, only where
# that cannot be done.
root=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ]; then
		"$root/scripts/install-deps" --browser ||
			echo "test_web_browser: installing chromium failed"
	fi
	if ! command -v chromium >/dev/null 2>&1; then
		echo "skip: no chromium (as root: scripts/install-deps --browser)"
		exit 0
	fi
fi
exec /usr/bin/python3 "$root/tests/integration/web_browser.py"
