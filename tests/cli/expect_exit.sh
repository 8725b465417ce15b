#!/usr/bin/env bash
# Runs a command and passes only if it exits with the given code (the CLI's documented codes).
# Usage: expect_exit.sh CODE COMMAND [ARG...]
expected=$1
shift
"$@"
rc=$?
[ "$rc" -eq "$expected" ] && exit 0
echo "FAIL: exit $rc, expected $expected: $*" >&2
exit 1
