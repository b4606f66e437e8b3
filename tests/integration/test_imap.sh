#!/bin/sh
# The IMAP source against a real dovecot on loopback.
exec /usr/bin/python3 "$(dirname "$0")/imap.py"
