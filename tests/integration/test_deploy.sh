#!/bin/sh
# Deployed as an administrator deploys it: two Unix users, messages that
# say what is wrong, logs an operator can read, one SMTP session per send
# run.  The two-user part needs root (CI runs as root) and setpriv.
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || { echo "skip: no python3-aiosmtpd"; exit 0; }
exec /usr/bin/python3 "$(dirname "$0")/deploy.py"
