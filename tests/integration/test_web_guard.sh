#!/bin/sh
# patchyard serve against hostile clients: request smuggling refused,
# one address cannot take every connection (tests/integration/web_guard.py).
exec /usr/bin/python3 "$(dirname "$0")/web_guard.py"
