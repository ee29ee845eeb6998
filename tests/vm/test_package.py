"""The Debian package on the rig, with dpkg and apt-get themselves
(package.py): a systemd guest that has never seen seatd-lease installs it,
waits for a seat map, runs two seats (a PAM session, and a kiosk), and is
upgraded, downgraded, has the package removed, purged and installed again.
The maintainer scripts are debhelper's, but the purge in debian/postrm.

Also here: seatd-lease=off on the kernel's command line keeps the unit from
starting at boot (a guest booted with the unit enabled for its boot target)."""

import functools
import os
import re
import subprocess
import tempfile

import pytest

import rig as rigmod
import seatd
from package import (BIN, PAM_FILE, POLKIT_RULE, SESSION_HELPER, UNIT, USERS, APT,
                     change_version, deb, install, journal, outputs, package_guest, prop,
                     running, seats_facts, the_map, versions)
from seatd import CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, seat_map

# Pictures get 60 s: each seat's session is a logind login (as in test_systemd).
assert_head = functools.partial(seatd.assert_head, timeout=60)


@pytest.fixture(scope="module")
def rig():
    with package_guest("test_package") as r:
        yield r


def nothing_left(rig):
    """After the package's removal: no seat, no process of a seat's user, every
    output back to the primary, and nothing of seatd-lease's left in logind,
    udev, the cgroups, the mounts or /run."""
    for head in (2, 3):
        assert_head(rig, head, PRIMARY)
    assert outputs(rig) == {"Virtual-1": "connected", "Virtual-2": "connected",
                            "Virtual-3": "connected"}
    assert rig.run("pgrep -u %s" % ",".join(USERS), check=False).stdout == ""
    assert rig.run("loginctl list-seats --no-legend").stdout.split() == ["seat0"]
    assert rig.run("loginctl list-sessions --no-legend").stdout == ""
    assert rig.run("ls -A /run/udev/rules.d 2>/dev/null; true").stdout == ""
    assert rig.run("udevadm info --export-db | grep -c 'ID_SEAT=seat-' || true").stdout == "0\n"
    assert rig.run("find /sys/fs/cgroup -name 'seatd-lease*' -o -name 'seat-s*'").stdout == ""
    mounts = rig.run("cat /proc/1/mounts").stdout
    assert "seatd-lease" not in mounts, mounts
    assert rig.run("ls -A %s 2>/dev/null; true" % RUNTIME_DIR).stdout == ""
    assert rig.run("find /tmp/.X11-unix -lname '%s/*'" % RUNTIME_DIR).stdout == ""


def test_install_upgrade_downgrade_remove_purge_reinstall(rig):
    old, new = versions()
    # A guest that has never seen seatd-lease.
    assert "install ok installed" not in rig.run(
        "dpkg-query -W -f='${Status}' seatd-lease 2>&1; true").stdout
    assert rig.run("ls -d /etc/seatd-lease %s %s 2>&1; true" % (BIN, PAM_FILE)).stdout.count(
        "No such file") == 3

    # Installed, enabled, and waiting for a map, saying why; nothing changed.
    install(rig, old)
    assert rig.run("systemctl is-enabled %s" % UNIT).stdout == "enabled\n"
    assert prop(rig, "ActiveState") == "inactive"
    assert prop(rig, "ConditionResult") == "no"
    status = rig.run("systemctl status %s" % UNIT, check=False).stdout
    assert "ConditionPathExists=/etc/seatd-lease/seats.ini was not met" in status, status
    assert "unmet condition check (ConditionPathExists=/etc/seatd-lease/seats.ini)" in \
        journal(rig)
    assert rig.run("ls -A /etc/seatd-lease").stdout == ""
    assert rig.run("dpkg-query -W -f='${Conffiles}' seatd-lease").stdout.split()[0] == PAM_FILE
    for path in (SESSION_HELPER, "/usr/libexec/seatd-lease-identify",
                 "/usr/libexec/seatd-lease-assign-screen", "/usr/libexec/seatd-lease-xserver",
                 POLKIT_RULE,
                 "/lib/systemd/system/seatd-lease@.service",
                 "/usr/share/man/man8/seatd-lease.8.gz", "/usr/share/man/man5/seats.ini.5.gz",
                 "/usr/share/doc/seatd-lease/seats.ini.example"):
        rig.run("test -e %s" % path)
    assert outputs(rig)["Virtual-2"] == "connected"

    # A map, then the start the administrator runs: two seats.
    rig.write_file(CONFIG, the_map().encode())
    rig.run("%s check" % BIN)
    rig.run("systemctl start %s" % UNIT, timeout=120)
    running(rig)
    assert_head(rig, 2, SEAT_COLOURS[0])
    assert_head(rig, 3, SEAT_COLOURS[1])
    seats_facts(rig)

    change_version(rig, new)
    change_version(rig, old, downgrade=True)

    # Removed: every seat stopped and cleaned; the map and the conffile kept.
    rig.run(APT + "remove seatd-lease", timeout=600)
    nothing_left(rig)
    assert rig.run("test -e %s && test -e %s && echo kept" % (CONFIG, PAM_FILE)).stdout == \
        "kept\n"
    rig.run("! test -e %s && ! test -e %s" % (BIN, POLKIT_RULE))
    assert prop(rig, "LoadState") == "not-found"

    # Purged: the configuration too, and the unit's enablement.
    rig.run(APT + "purge seatd-lease", timeout=600)
    left = rig.run("ls -d /etc/seatd-lease %s /etc/systemd/system/*.wants/seatd-lease* "
                   "/var/lib/systemd/deb-systemd-helper-enabled/*seatd-lease* 2>/dev/null; true"
                   % PAM_FILE).stdout
    assert left == "", "purge left: %s" % left
    assert "installed" not in rig.run("dpkg-query -W -f='${Status}' seatd-lease 2>&1; true").stdout

    # Installed again where a map was written first: the install starts it.
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, the_map().encode())
    install(rig, new)
    running(rig)
    assert_head(rig, 2, SEAT_COLOURS[0])
    assert_head(rig, 3, SEAT_COLOURS[1])
    seats_facts(rig)
    rig.run(APT + "purge seatd-lease", timeout=600)
    nothing_left(rig)


def test_the_kernel_word_keeps_the_unit_from_starting_at_boot():
    """A guest booted with seatd-lease=off on its command line, the unit
    enabled for its boot target and a map in place: systemd skips the unit
    at boot for that word, and no seat starts."""
    with tempfile.TemporaryDirectory(dir=os.path.join(rigmod.build_dir(), "vm")) as etc:
        # The package's unit on the build's binary (the guest has no package),
        # enabled as the package enables it (graphical.target), and for the
        # rig's own boot target: the systemd guest boots the one or the other
        # (initramfs-init says why).
        tree = subprocess.run(["dpkg-deb", "--fsys-tarfile", deb(versions()[0])], check=True,
                              capture_output=True).stdout
        text = subprocess.run(["tar", "-xO", "./lib/systemd/system/" + UNIT], input=tree,
                              check=True, capture_output=True).stdout
        units = os.path.join(etc, "systemd", "system")
        os.makedirs(os.path.join(etc, "seatd-lease"))
        os.makedirs(units)
        with open(os.path.join(units, UNIT), "wb") as f:
            f.write(re.sub(rb"^ExecStart=\S+ ", b"ExecStart=%s " % seatd.BIN.encode(), text,
                           flags=re.M))
        for target in ("graphical.target", "rig.target"):
            os.makedirs(os.path.join(units, target + ".wants"), exist_ok=True)
            os.symlink("../" + UNIT, os.path.join(units, target + ".wants", UNIT))
        with open(os.path.join(etc, "seatd-lease", "seats.ini"), "w") as f:
            f.write(seat_map("drm", [dict(name="k1", outputs="Virtual-2", user="lab1",
                                          colour=SEAT_COLOURS[0])],
                             general="card = /dev/dri/card0\nlogind = no"))
        with rigmod.Rig("test_package-off", heads=2, init="systemd", etc=etc,
                        cmdline=["seatd-lease=off"]) as r:
            assert "seatd-lease=off" in r.run("cat /proc/cmdline").stdout
            # The boot's own start of the unit, skipped for the word.
            r.wait_until("journalctl -b -o cat -u %s | grep -qF 'unmet condition check "
                         "(ConditionKernelCommandLine=!seatd-lease=off)'" % UNIT, timeout=60)
            assert prop(r, "ConditionResult") == "no"
            assert prop(r, "ActiveState") == "inactive"
            assert r.run("pgrep -x Xorg", check=False).stdout == ""
