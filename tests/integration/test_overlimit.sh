#!/bin/sh
# A mail over a limit is stored whole and marked, one over the storage
# cap refused and named, never cut (tests/integration/overlimit.py).
exec /usr/bin/python3 "$(dirname "$0")/overlimit.py"
