# Shared by scripts/test and scripts/demo: install what is missing, then build.
# Sourced, not run. Expects $top to be the source tree.

# Every Debian package the build, the unit tests, the VM rig and the demo need.
SEATD_LEASE_PACKAGES="
	meson ninja-build pkg-config gcc clang
	libdrm-dev libxcb1-dev libxcb-randr0-dev libudev-dev libinput-dev libinih-dev
	libsystemd-dev libcmocka-dev scdoc
	qemu-system-x86 qemu-utils linux-image-amd64 busybox-static kmod udev cpio
	qemu-guest-agent
	xserver-xorg-core xserver-xorg-input-libinput x11-xserver-utils x11-utils xterm
	python3 python3-pytest
	strace systemd
"

die() {
	echo "$0: $*" >&2
	exit 1
}

ensure_packages() {
	local missing=() pkg
	for pkg in $SEATD_LEASE_PACKAGES; do
		# A virtual or removed package reads as not installed: apt sorts it out.
		if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
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
