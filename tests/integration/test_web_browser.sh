#!/bin/sh
# The status pages in a real headless Chromium (tests/integration/
# web_browser.py).  Chromium and pdftotext are installed when missing (as
# root, through scripts/install-deps --browser); the test skips, saying
# why, only where that cannot be done.
root=$(cd "$(dirname "$0")/../.." && pwd)
have() { command -v chromium >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; }
if ! have; then
	if [ "$(id -u)" = 0 ]; then
		"$root/scripts/install-deps" --browser ||
			echo "test_web_browser: installing chromium and poppler-utils failed"
	fi
	if ! have; then
		echo "skip: no chromium or pdftotext (as root: scripts/install-deps --browser)"
		exit 0
	fi
fi
exec /usr/bin/python3 "$root/tests/integration/web_browser.py"
