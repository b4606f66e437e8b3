#!/bin/sh
# Author dates of staged commits equal git am's, odd zones included.
exec /usr/bin/python3 "$(dirname "$0")/dates.py"
