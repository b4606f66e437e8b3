#!/bin/sh
# Crash safety and gc: kills mid-import and mid-rebuild, 100 rebuilds.
exec /usr/bin/python3 "$(dirname "$0")/crash.py"
