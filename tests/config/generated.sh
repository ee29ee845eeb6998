#!/bin/sh
# generated.sh SEATD_LEASE CASE
# Problems that cannot live in git as fixtures (a 10 MB line, setuid and
# group-writable files): made in a temporary directory, then checked like
# the fixtures, for exit status 1 and the precise FILE:LINE error.
set -u
bin=$(realpath "$1")
case_=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

seat='[seat:a]
outputs = Virtual-2
inputs = path:pci-0000:00:06.0
user = nobody'

expect_error() { # FILE WANT: check FILE exits 1 and its only error is WANT
	env -u DISPLAY -u XAUTHORITY "$bin" check "$1" >/dev/null 2>err
	status=$?
	if [ "$status" -ne 1 ]; then
		echo "FAIL: check $1 exited $status, want 1"; cat err; exit 1
	fi
	if ! grep -qxF "$2" err || [ "$(grep -c ': error: ' err)" -ne 1 ]; then
		echo "FAIL: check $1 printed:"; cat err; echo "want exactly one error: $2"; exit 1
	fi
	echo "ok: $2"
}

need_root() {
	# Root-only rules and files that only root can create.
	[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root"; exit 77; }
}

case $case_ in
long-line)
	{ printf '[general]\ndisplay = :0\nrestart = '; head -c 10485760 /dev/zero | tr '\0' 'x'; printf '\n\n%s\n' "$seat"; } >long.ini
	expect_error long.ini "long.ini:3: error: line is 10485770 bytes long; a line may be at most 4096 bytes (continue a long value on the next lines, each indented)"
	;;
many-errors)
	# 200000 bad lines: the first 100 errors in file order, then a count.
	{ printf '[general]\ndisplay = :0\n\n%s\n' "$seat"; yes 'bogus = 1' | head -n 200000; } >many.ini
	env -u DISPLAY -u XAUTHORITY "$bin" check many.ini >/dev/null 2>err
	status=$?
	want_more="many.ini: ... and 199900 more errors after line 107; fix these first, then check again"
	if [ "$status" -ne 1 ] || [ "$(wc -l <err)" -ne 102 ] ||
			[ "$(sed -n 1p err)" != "many.ini:8: error: unknown key 'bogus' in [seat:a]; see seats.ini(5) for the keys" ] ||
			[ "$(sed -n 101p err)" != "$want_more" ] ||
			[ "$(sed -n 102p err)" != "many.ini: 200000 errors; nothing was started" ]; then
		echo "FAIL: check many.ini exited $status, printed $(wc -l <err) lines:"; head -3 err; echo ...; tail -3 err
		echo "want 100 errors, then: $want_more"; exit 1
	fi
	echo "ok: $want_more"
	;;
xserver-setuid | xserver-setgid)
	need_root
	cp /bin/true xorg
	if [ "$case_" = xserver-setuid ]; then chmod 4755 xorg; c=u; else chmod 2755 xorg; c=g; fi
	printf '[general]\ndisplay = :0\nxserver = %s/xorg\n\n%s\n' "$dir" "$seat" >s.ini
	expect_error s.ini "s.ini:3: error: X server $dir/xorg is set${c}id: Xorg refuses -masterfd then; use the server binary itself, /usr/lib/xorg/Xorg, not the /usr/bin/Xorg wrapper"
	;;
config-writable)
	need_root
	printf '[general]\ndisplay = :0\n\n%s\n' "$seat" >w.ini
	chmod 0664 w.ini
	expect_error w.ini "w.ini: error: is writable by others (owner uid 0, mode 0664); as root, seatd-lease reads only a seat map that root owns and only root can write: chown root w.ini && chmod go-w w.ini"
	;;
config-not-root)
	need_root
	printf '[general]\ndisplay = :0\n\n%s\n' "$seat" >n.ini
	chown nobody n.ini
	expect_error n.ini "n.ini: error: is not owned by root (owner uid $(id -u nobody), mode 0644); as root, seatd-lease reads only a seat map that root owns and only root can write: chown root n.ini && chmod go-w n.ini"
	;;
dir-writable)
	need_root
	mkdir d && chmod 0777 d
	printf '[general]\ndisplay = :0\n\n%s\n' "$seat" >d/s.ini
	expect_error d/s.ini "d/s.ini: error: its directory d is writable by others (mode 0777); as root, seatd-lease reads only a seat map that no one but root can replace: chown root d && chmod go-w d"
	;;
unreadable)
	expect_error missing.ini "missing.ini: error: cannot read the seat map: No such file or directory; check the path, or pass another with --config FILE"
	;;
directory)
	mkdir seats.ini
	expect_error seats.ini "seats.ini: error: is not a regular file; pass the seat map itself with --config FILE"
	;;
*)
	echo "unknown case $case_"; exit 1
	;;
esac
