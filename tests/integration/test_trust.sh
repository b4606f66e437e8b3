#!/bin/sh
# Trust (issue 16) end to end: forged replacements and forged trailers
# against a real staging tree.
exec /usr/bin/python3 "$(dirname "$0")/trust.py"
