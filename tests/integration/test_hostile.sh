#!/bin/sh
# Hostile servers (IMAP, public-inbox over HTTP) cannot wedge patchyard run.
exec /usr/bin/python3 "$(dirname "$0")/hostile.py"
