#!/bin/sh
# The tester with real staging repositories, a tiny C project as the
# test, real processes and a real SMTP sink.
exec /usr/bin/python3 "$(dirname "$0")/tester.py"
