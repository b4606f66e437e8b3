#!/bin/sh
# patchyard run and status: followers, signals, the lock, concurrent
# deliveries, the workers in one go.
exec /usr/bin/python3 "$(dirname "$0")/service.py"
