#!/bin/sh
# xserver-cmd.sh SEATD_LEASE SEATS_INI_EXAMPLE
# `seatd-lease xserver` as a display manager calls it, without a daemon:
# for seat0, no -seat, or a seat the map does not have, it is X itself
# (X -version, which prints and exits); for a seat the map runs itself, a
# one-line refusal and exit 1.
set -u
bin=$(realpath "$1")
map=$(realpath "$2")
command -v X >/dev/null || { echo "no X here: skipped"; exit 77; }
fail=0
for args in "-seat seat0 -version" "-version" "-seat seat-nowhere -version"; do
	# shellcheck disable=SC2086
	out=$("$bin" -c "$map" xserver $args 2>&1)
	status=$?
	case "$out" in
	*"X.Org X Server"*) [ "$status" -eq 0 ] || { echo "FAIL: xserver $args exited $status"; fail=1; } ;;
	*) echo "FAIL: xserver $args did not run X -version: $out"; fail=1 ;;
	esac
done
out=$("$bin" -c "$map" xserver :9 -seat seat-lab-1 -version 2>&1)
status=$?
want="seatd-lease xserver: seat-lab-1 is seat lab-1 of $map, whose X server seatd-lease runs itself; give it session = display-manager for a display manager to run it"
if [ "$status" -ne 1 ] || [ "$out" != "$want" ]; then
	echo "FAIL: xserver -seat seat-lab-1 exited $status with: $out"
	fail=1
fi
exit $fail
