#!/bin/sh
# install.sh BUILD_DIR: `meson install` into a scratch DESTDIR puts every file
# where a distribution expects it, and systemd-analyze verify accepts both
# units as installed (their ExecStart pointed at the installed binary).
set -u
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
meson install -C "$build" --no-rebuild --destdir "$dest" >"$dest.log" 2>&1 ||
	{ cat "$dest.log"; rm -f "$dest.log"; fail "meson install"; }
rm -f "$dest.log"
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
bin=$dest$prefix/bin/seatd-lease
[ -x "$bin" ] || fail "no executable $prefix/bin/seatd-lease"
"$bin" --version | grep -q '^seatd-lease ' || fail "the installed binary does not run"
libexec=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "libexecdir"][0])')
case $libexec in /*) ;; *) libexec=$prefix/$libexec ;; esac
[ -x "$dest$libexec/seatd-lease-identify" ] || fail "no $libexec/seatd-lease-identify"
# The helpers' paths are made from these two at run time (common/helper-path.c).
strings "$bin" | grep -qx "$libexec" && strings "$bin" | grep -qx seatd-lease-identify ||
	fail "seatd-lease does not look for its identify helper in $libexec"
[ -x "$dest$libexec/seatd-lease-assign-screen" ] || fail "no $libexec/seatd-lease-assign-screen"
strings "$bin" | grep -qx seatd-lease-assign-screen ||
	fail "seatd-lease does not look for its assignment screen in $libexec"
[ -f "$dest$prefix/share/doc/seatd-lease/seats.ini.example" ] || fail "no seats.ini.example"
# polkit reads its rules from /usr/share and /etc alone, whatever the prefix.
rule=$dest/usr/share/polkit-1/rules.d/40-seatd-lease.rules
[ -f "$rule" ] || fail "no polkit rule /usr/share/polkit-1/rules.d/40-seatd-lease.rules"
grep -q '"/run/seatd-lease/"' "$rule" || fail "the polkit rule does not look in /run/seatd-lease"
if command -v scdoc >/dev/null; then
	for page in man8/seatd-lease.8 man5/seats.ini.5; do
		grep -q '^\.TH' "$dest$prefix/share/man/$page" || fail "no man page $page"
	done
fi
units=$(find "$dest" -name 'seatd-lease*.service' | sort)
[ "$(echo "$units" | wc -l)" -eq 2 ] || fail "want 2 units, found: $units"
command -v systemd-analyze >/dev/null || { echo "SKIP: no systemd-analyze"; exit 77; }
check=$(mktemp -d)
trap 'rm -rf "$dest" "$check"' EXIT
for unit in $units; do
	name=$(basename "$unit")
	grep -q "^ExecStart=$prefix/bin/seatd-lease " "$unit" || fail "$name: ExecStart is not $prefix/bin/seatd-lease"
	# A template is verified as an instance.
	case $name in *@.service) name=${name%@.service}@lab-1.service ;; esac
	sed "s|$prefix/bin/seatd-lease|$bin|" "$unit" >"$check/$name"
	out=$(systemd-analyze verify --man=no "$check/$name" 2>&1) || fail "systemd-analyze verify $name: $out"
	# verify warns without failing (unknown keys, bad values): none allowed.
	if echo "$out" | grep -v 'display-manager.service' | grep -q .; then
		fail "systemd-analyze verify $name said: $out"
	fi
done
echo "installed and verified: $(cd "$dest" && find . -type f | sort | tr '\n' ' ')"
