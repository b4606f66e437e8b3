#!/bin/sh
# The promotion policy through the command line.
exec /usr/bin/python3 "$(dirname "$0")/promote.py"
