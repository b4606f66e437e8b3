#!/bin/sh
# Commands by mail, the state machine, acknowledgments over real SMTP.
/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || { echo "skip: no python3-aiosmtpd"; exit 0; }
exec /usr/bin/python3 "$(dirname "$0")/commands.py"
