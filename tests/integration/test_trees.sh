#!/bin/sh
# Subsystem trees merged into unstable, through the command line.
exec /usr/bin/python3 "$(dirname "$0")/trees.py"
