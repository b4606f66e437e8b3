#!/bin/sh
# contrib/patchyard.service: systemd-analyze verify, and a real test
# under the unit's settings (emulated without systemd: unit.py).
exec /usr/bin/python3 "$(dirname "$0")/unit.py"
