#!/bin/sh
# The status pages against a real server on loopback (tests/integration/web.py).
exec /usr/bin/python3 "$(dirname "$0")/web.py"
