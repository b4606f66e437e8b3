#!/bin/sh
# Issue 18: upstream taking an older version or copy, a copy sent again
# of a staged patch, history dated by the mail, and list's fields.
exec /usr/bin/python3 "$(dirname "$0")/shapes.py"
