#!/bin/sh
# The staging tree through the command line with real git repositories.
exec /usr/bin/python3 "$(dirname "$0")/staging.py"
