#!/bin/sh
# run-fixture.sh SEATD_LEASE FIXTURE.ini
# `check` must refuse the fixture with exit status 1 and print exactly
# FIXTURE.expect on stderr: the precise FILE:LINE errors and nothing else.
set -u
bin=$(realpath "$1")
fixture=$2
expect=${fixture%.ini}.expect
cd "$(dirname "$fixture")" || exit 1
name=$(basename "$fixture")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
env -u DISPLAY -u XAUTHORITY "$bin" check "$name" >/dev/null 2>"$out"
status=$?
if [ "$status" -ne 1 ]; then
	echo "FAIL: check $name exited $status, want 1"
	cat "$out"
	exit 1
fi
if ! diff -u "$(basename "$expect")" "$out"; then
	echo "FAIL: check $name printed the above instead of $expect"
	exit 1
fi
