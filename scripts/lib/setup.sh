# Shared by scripts/test and scripts/demo: install what is missing, then build.
# Sourced, not run. Expects $top to be the source tree.

# Every Debian package the build, the unit tests, the fuzz targets (libFuzzer is
# in libclang-rt-14-dev, only recommended by clang), the VM rig and the demo need
# (libseat-dev: the client that the libseat socket's test speaks with; the last
# line: what builds the Debian package, whose own build dependencies are the
# lines above).
SEATD_LEASE_PACKAGES="
	meson ninja-build pkg-config gcc clang libclang-rt-14-dev
	libdrm-dev libxcb1-dev libxau-dev libxcb-randr0-dev libudev-dev libinput-dev libinih-dev
	libsystemd-dev libpam0g-dev libcmocka-dev scdoc
	libseat-dev
	qemu-system-x86 qemu-utils linux-image-amd64 busybox-static kmod udev cpio
	qemu-guest-agent
	xserver-xorg-core xserver-xorg-input-libinput x11-xserver-utils x11-utils xterm
	python3 python3-pytest
	strace systemd
	dpkg-dev debhelper lintian
"

# What the rig's guest installs for itself (tests/vm/test_lightdm.py,
# test_sddm.py, test_logind.py, test_wayland_logind.py) and the host must
# not: a display manager would take over a newcomer's desktop.
SEATD_LEASE_GUEST_PACKAGES="lightdm lightdm-gtk-greeter sddm udisks2 acl cage sway xwayland"

die() {
	echo "$0: $*" >&2
	exit 1
}

# A virtual or removed package reads as not installed: apt sorts it out.
installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

ensure_packages() {
	local missing=() pkg
	for pkg in $SEATD_LEASE_PACKAGES; do
		if ! installed "$pkg"; then
			missing+=("$pkg")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run as root so they can be installed"
	echo "== installing: ${missing[*]}"
	# A fresh machine's package lists are empty.
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null ||
		die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		die "apt-get install failed"
}

# The .debs of SEATD_LEASE_GUEST_PACKAGES, and of what they need that the host
# lacks, downloaded (not installed) into DIR for the guest to install offline.
# A failure is reported, not fatal: the tests that need them fail and say so.
ensure_guest_debs() {
	local dir=$1 pkg missing=
	for pkg in $SEATD_LEASE_GUEST_PACKAGES; do
		installed "$pkg" || missing=1
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "$0: the rig's guest needs .debs of $SEATD_LEASE_GUEST_PACKAGES in $dir; run as root so they can be downloaded" >&2
		return 1
	fi
	local download=(apt-get install -y -q --download-only --no-install-recommends
		-o "Dir::Cache::archives=$dir" $SEATD_LEASE_GUEST_PACKAGES)
	mkdir -p "$dir/partial" &&
		# Stale package lists name versions the mirror no longer has.
		{ DEBIAN_FRONTEND=noninteractive "${download[@]}" >/dev/null ||
			{ DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
				DEBIAN_FRONTEND=noninteractive "${download[@]}" >/dev/null; }; } || {
		echo "$0: cannot download $SEATD_LEASE_GUEST_PACKAGES into $dir" >&2
		return 1
	}
}

# build DIR [meson options...]: configure once, then compile.
build() {
	local dir=$1
	shift
	if [ ! -f "$top/$dir/build.ninja" ]; then
		meson setup "$top/$dir" "$top" "$@" >"$top/$dir.setup.log" 2>&1 || {
			cat "$top/$dir.setup.log" >&2
			die "meson setup $dir failed"
		}
	fi
	ninja -C "$top/$dir" >"$top/$dir.ninja.log" 2>&1 || {
		cat "$top/$dir.ninja.log" >&2
		die "build in $dir failed"
	}
}

# seats.ini.example names the users lab1 and lab2, and `check` refuses users
# that do not exist: make them, without a home or a login shell.
ensure_example_users() {
	local user
	for user in lab1 lab2; do
		id "$user" >/dev/null 2>&1 && continue
		[ "$(id -u)" -eq 0 ] || die "user $user is missing; run as root so it can be created"
		useradd --no-create-home --shell /usr/sbin/nologin \
			--comment "seatd-lease example seat" "$user" || die "useradd $user failed"
	done
}

# The libFuzzer targets of tests/fuzz, with clang, ASan and UBSan, in build-fuzz
# (scripts/test runs them briefly, scripts/fuzz as long as asked).
fuzz_build() {
	CC=clang build build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
		-Dsystemd=disabled -Dman-pages=disabled -Dtests=false
}
