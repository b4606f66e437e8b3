#!/bin/sh
# Bad input at the MTA pipe: stored, marked, logged, never a crash.
exec /usr/bin/python3 "$(dirname "$0")/badinput.py"
