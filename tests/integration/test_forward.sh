#!/bin/sh
# Forwarding the stable queue upstream over a real SMTP server.
exec /usr/bin/python3 "$(dirname "$0")/forward.py"
