"""seatd-lease under systemd on the rig: a guest with systemd as PID 1 runs
the seats through the project's own units (build/units, as `meson install`
writes them) and through `systemd-run`."""

import functools
import os
import re
import time

import pytest

import reuse
import seatd
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, install_units, prop, seat_map,
                   setup_users, wait_prop)

# Pictures in this module get 60 s: each seat's session is a logind login
# here, and logind starts its user's manager (user@UID.service) before it
# answers, 10-20 s under TCG.
assert_head = functools.partial(seatd.assert_head, timeout=60)
# Second of the modules on the shared systemd guest (reuse.systemd_guest).
SYSTEMD_GUEST = 2


@pytest.fixture(scope="module")
def rig(request):
    # The guest has a second card with one head (rig head 4, card1's
    # Virtual-4), for the kiosk row's fourth kiosk; the primary Xorg leaves
    # it alone.
    failed = request.session.testsfailed
    with reuse.systemd_guest("test_systemd", lambda: request.session.testsfailed == failed) as r:
        if not r.xorg_running():
            r.start_xorg(auto_add_gpu=False)
        setup_users(r, ["lab1", "lab2"])
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        r.run("mkdir -p %s" % os.path.dirname(CONFIG))
        r.write_file(CONFIG, seat_map("x11", [
            dict(name="s1", outputs="Virtual-2", user="lab1", colour=SEAT_COLOURS[0]),
            dict(name="s2", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1]),
        ]).encode())
        install_units(r)
        yield r


def xserver_pid(rig, seat):
    out = rig.run("cat %s/%s/pids" % (RUNTIME_DIR, seat)).stdout
    return int(re.search(r"^xserver (\d+)", out, re.M).group(1))


def test_the_daemon_unit_is_ready_reloads_and_stops_clean(rig):
    # Type=notify: start returns once READY=1 came.
    rig.run("systemctl start seatd-lease.service", timeout=90)
    try:
        assert prop(rig, "seatd-lease", "ActiveState") == "active"
        wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        status = rig.run("%s status" % BIN)
        assert re.search(r"^s1 +running", status.stdout, re.M), status.stdout
        before = xserver_pid(rig, "s1")
        # Delegate=yes: each seat's processes in a cgroup of its own, under the unit's.
        cgroup = rig.run("cat /proc/%d/cgroup" % before).stdout
        assert "0::/system.slice/seatd-lease.service/seat-s1\n" in cgroup, cgroup
        assert "have no cgroups" not in rig.run(
            "journalctl -b --no-pager -u seatd-lease.service").stdout
        # The seat's file system, mounted by a daemon in the unit's own mount
        # namespace (ProtectSystem=), is seen outside the unit too; so is the
        # link to its X server's socket, in the seat's tmp/.X11-unix.
        assert rig.run("stat -f -c %%T %s/s1" % RUNTIME_DIR).stdout == "tmpfs\n"
        assert rig.run("readlink /tmp/.X11-unix/X10").stdout == \
            "%s/s1/tmp/.X11-unix/X10\n" % RUNTIME_DIR
        assert rig.run("stat -L -c %F /tmp/.X11-unix/X10").stdout == "socket\n"
        # Each session is a login (PAM): its XDG_RUNTIME_DIR is its user's
        # /run/user/UID, as logind mounted it, seen where the session runs.
        for user in ("lab1", "lab2"):
            uid = rig.run("id -u %s" % user).stdout.strip()
            pid = rig.run("pgrep -u %s -x sleep" % user).stdout.split()[0]
            env = rig.run("tr '\\0' '\\n' < /proc/%s/environ" % pid).stdout
            assert "XDG_RUNTIME_DIR=/run/user/%s\n" % uid in env, env
            assert rig.run("stat -c %%U /proc/%s/root/run/user/%s" % (pid, uid)).stdout \
                == user + "\n"
        rig.run("systemctl reload seatd-lease.service", timeout=60)
        journal = lambda: rig.run("journalctl -b --no-pager -u seatd-lease.service").stdout
        deadline = time.monotonic() + 20
        while "0 started, 0 stopped, 0 restarted, 2 unchanged" not in journal():
            assert time.monotonic() < deadline, journal()
            time.sleep(0.3)
        assert xserver_pid(rig, "s1") == before
        # journald keeps the daemon's <N> prefixes as priorities.
        notice = rig.run("journalctl -b --no-pager -u seatd-lease.service -p notice -o cat").stdout
        assert "seat s1: starting -> running" in notice, notice
    finally:
        rig.run("systemctl stop seatd-lease.service", timeout=60)
    assert prop(rig, "seatd-lease", "ActiveState") == "inactive"
    assert prop(rig, "seatd-lease", "Result") == "success"
    assert_head(rig, 2, PRIMARY)
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""
    assert RUNTIME_DIR not in rig.run("cat /proc/1/mounts").stdout
    assert rig.run("pgrep -u lab1,lab2", check=False).stdout == ""


def test_one_unit_per_seat_restarted_by_systemd(rig):
    rig.run("systemctl start seatd-lease@s1.service seatd-lease@s2.service", timeout=90)
    try:
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        other = xserver_pid(rig, "s2")
        main = prop(rig, "seatd-lease@s1", "MainPID")
        rig.run("kill -9 %d" % xserver_pid(rig, "s1"))
        # The seat process exits 137; Restart=on-failure brings it back.
        wait_prop(rig, "seatd-lease@s1", "NRestarts", r"^[1-9]")
        wait_prop(rig, "seatd-lease@s1", "ActiveState", r"^active$")
        assert prop(rig, "seatd-lease@s1", "MainPID") != main
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert xserver_pid(rig, "s2") == other
        # The daemon unit and the seat units exclude each other.
        rig.run("systemctl start seatd-lease.service", timeout=90)
        assert prop(rig, "seatd-lease@s1", "ActiveState") == "inactive"
        assert prop(rig, "seatd-lease@s2", "ActiveState") == "inactive"
        wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")
    finally:
        rig.run("systemctl stop seatd-lease.service seatd-lease@s1.service "
                "seatd-lease@s2.service", timeout=60)
    assert_head(rig, 2, PRIMARY)
    assert_head(rig, 3, PRIMARY)


def test_systemd_run_one_seat(rig):
    rig.run("systemd-run --unit=seat-s2 -p Type=notify -p Restart=on-failure %s seat s2" % BIN,
            timeout=90)
    try:
        assert prop(rig, "seat-s2", "ActiveState") == "active"
        assert_head(rig, 3, SEAT_COLOURS[1])
        assert_head(rig, 2, PRIMARY)
    finally:
        rig.run("systemctl stop seat-s2", timeout=60)
    assert_head(rig, 3, PRIMARY)
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""


def daemon_facts(rig):
    """What must not grow across the daemon's restarts: its descriptors, the
    seat users' processes, the rules and seat directories."""
    main = prop(rig, "seatd-lease", "MainPID")
    return dict(
        fds=int(rig.run("ls /proc/%s/fd | wc -l" % main).stdout),
        procs=int(rig.run("pgrep -c -u lab1,lab2", check=False).stdout or 0),
        rules=rig.run("ls -A /run/udev/rules.d 2>/dev/null; true").stdout,
        dirs=rig.run("ls -A %s" % RUNTIME_DIR).stdout,
    )


# Where the upgrade test installs seatd-lease and its helpers, side by side
# as in a package's libexec: a writable place, so that an upgrade can put new
# files there.
UPGRADE_DIR = "/tmp/seatd-lease-bin"
XORG = "/usr/lib/xorg/Xorg"


def pam_sessions(rig):
    """Each seat's session as a PAM login: its opener's pid and its logind
    session, asserted to be there (the seat's session line in the pids
    record is root's seatd-lease-session, and logind has a session of the
    seatd-lease service on the seat)."""
    found = {}
    for seat in ("s1", "s2"):
        record = rig.run("cat %s/%s/pids" % (RUNTIME_DIR, seat)).stdout
        m = re.search(r"^session (\d+) \d+ 0 %s/seatd-lease-session$" % UPGRADE_DIR,
                      record, re.M)
        assert m, "seat %s's session was not opened through PAM:\n%s" % (seat, record)
        ids = rig.run("loginctl show-seat seat-%s -p Sessions --value" % seat).stdout.split()
        assert len(ids) == 1, "seat-%s has sessions %r" % (seat, ids)
        assert rig.run("loginctl show-session %s -p Service --value" % ids[0]).stdout == \
            "seatd-lease\n"
        found[seat] = (int(m.group(1)), ids[0])
    return found


def upgrade(rig, files):
    """What dpkg does to each file: the new one written beside it, then
    renamed over it, while the old one still runs."""
    rig.run(" && ".join("cp -p {0} {0}.dpkg-new && echo >>{0}.dpkg-new && "
                        "mv {0}.dpkg-new {0}".format(f) for f in files))


def test_restart_kill_and_upgrade_keep_every_seat(rig):
    """`systemctl restart`, a SIGKILL that Restart= follows, and an upgrade of
    every program of ours and of the X server then a restart: every seat
    keeps its X server, its PAM session and logind session, and its
    picture."""
    binaries = ["seatd-lease", "seatd-lease-session", "seatd-lease-identify",
                "seatd-lease-assign-screen"]
    rig.run("mkdir -p %s && cp %s %s" % (UPGRADE_DIR, " ".join(
        os.path.join(os.path.dirname(BIN), b) for b in binaries), UPGRADE_DIR))
    with open(seatd.PAM_FILE, "rb") as f:
        rig.write_file("/etc/pam.d/seatd-lease", f.read())
    rig.run("systemctl start dbus.service systemd-logind.service", timeout=90)
    unit = rig.run("cat /etc/systemd/system/seatd-lease.service").stdout
    rig.write_file("/etc/systemd/system/seatd-lease.service", unit.replace(
        "ExecStart=%s " % BIN, "ExecStart=%s/seatd-lease " % UPGRADE_DIR).encode())
    rig.run("systemctl daemon-reload")
    rig.run("systemctl start seatd-lease.service", timeout=90)
    journal = lambda: rig.run("journalctl -b --no-pager -u seatd-lease.service -o cat").stdout
    try:
        wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")
        assert_head(rig, 2, SEAT_COLOURS[0])
        assert_head(rig, 3, SEAT_COLOURS[1])
        pids = (xserver_pid(rig, "s1"), xserver_pid(rig, "s2"))
        sessions = pam_sessions(rig)
        first = daemon_facts(rig)
        timings = []
        with seatd.HeadSampler(rig, [2, 3]) as sampler:
            for i in range(20):
                main = prop(rig, "seatd-lease", "MainPID")
                began = time.monotonic()
                if i == 10:
                    # The daemon crashes: systemd's Restart= brings it back.
                    rig.run("kill -9 %s" % main)
                    wait_prop(rig, "seatd-lease", "NRestarts", r"^[1-9]")
                elif i == 15:
                    # An upgrade of seatd-lease and of Xorg: a new file in
                    # each program's place, then the restart its maintainer
                    # script runs. The running ones are "(deleted)" now.
                    upgrade(rig, ["%s/%s" % (UPGRADE_DIR, b) for b in binaries] + [XORG])
                    assert rig.run("readlink /proc/%d/exe" % pids[0]).stdout == \
                        XORG + " (deleted)\n"
                    rig.run("systemctl restart seatd-lease.service", timeout=90)
                else:
                    rig.run("systemctl restart seatd-lease.service", timeout=90)
                wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$")
                assert prop(rig, "seatd-lease", "MainPID") != main
                timings.append(time.monotonic() - began)
        print("restarts: %d, to every seat adopted: median %.2f s, max %.2f s" %
              (len(timings), sorted(timings)[len(timings) // 2], max(timings)))
        log = journal()
        assert log.count("leaving every seat running for the next seatd-lease") >= 19, log
        assert log.count("seat s1: adopted from an earlier run") == 20, log
        assert "not adopted" not in log, log
        assert (xserver_pid(rig, "s1"), xserver_pid(rig, "s2")) == pids
        assert pam_sessions(rig) == sessions
        for head, colour in ((2, SEAT_COLOURS[0]), (3, SEAT_COLOURS[1])):
            sampler.assert_never(head, PRIMARY)
            low = [round(x, 2) for _, x in sampler.shares(head, colour) if x < 0.9]
            assert not low, "head %d did not show its seat throughout: %s" % (head, low)
        assert daemon_facts(rig) == first
        # The primary still has exactly the two seats' outputs leased.
        xrandr = rig.run("xrandr --query", env=rig.x_env()).stdout
        assert dict(re.findall(r"^(Virtual-\d+) (connected|disconnected)", xrandr, re.M)) == \
            {"Virtual-1": "connected", "Virtual-2": "disconnected", "Virtual-3": "disconnected"}
        print("head samples: %d of head 2, longest gap %.2f s" %
              (len(sampler.shares(2, PRIMARY)), sampler.gaps(2)))
        assert rig.run("readlink /proc/%s/exe" % prop(rig, "seatd-lease", "MainPID")).stdout \
            == UPGRADE_DIR + "/seatd-lease\n"
        # A seat whose settings changed meanwhile is not adopted but started
        # afresh, its directory made anew. This daemon's mount namespace was
        # copied while that seat's file system was mounted: there the
        # directory stays busy after the unmount, and only its removal from
        # the host's lets the seat start again.
        config = rig.run("cat %s" % CONFIG).stdout
        assert "[seat:s2]\n" in config, config
        rig.write_file(CONFIG, config.replace("[seat:s2]\n", "[seat:s2]\nxserver_args = -dpi 96\n")
                       .encode())
        rig.run("systemctl restart seatd-lease.service", timeout=90)
        wait_prop(rig, "seatd-lease", "StatusText", r"^2/2 seats running$", timeout=90)
        log = journal()
        assert "seat s2: not adopted from an earlier run: its settings changed since it was " \
               "started; starting it afresh" in log, log
        assert "cannot create" not in log and "is not a seat directory" not in log, log
        assert xserver_pid(rig, "s1") == pids[0] and xserver_pid(rig, "s2") != pids[1]
        assert_head(rig, 3, SEAT_COLOURS[1])
        rig.write_file(CONFIG, config.encode())
    finally:
        rig.run("systemctl stop seatd-lease.service", timeout=60)
        rig.write_file("/etc/systemd/system/seatd-lease.service", unit.encode())
        rig.run("systemctl daemon-reload; systemctl reset-failed seatd-lease.service || true")
    # A stop still stops every seat and gives the outputs back.
    assert_head(rig, 2, PRIMARY)
    assert_head(rig, 3, PRIMARY)
    assert rig.run("pgrep -u lab1,lab2", check=False).stdout == ""
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == ""


def test_kiosk_row_with_the_drm_lessor_and_no_display_manager(rig):
    # Last in the module: the primary X server goes, as on a kiosk PC with no
    # display manager, and seatd-lease.service leases from the card itself.
    rig.xorg_server.stop()
    rig.wait_until("! pgrep -x Xorg >/dev/null", timeout=20)
    # Three kiosks on card0 and a fourth on card1, each card leased from
    # itself: a DRM master per card, each kept in systemd's store.
    colours = SEAT_COLOURS + ["#8040c0"]
    kiosk = "/bin/sh -c \"xsetroot -solid '%s' && exec sleep 100000\""

    def kiosks(heads):
        return seat_map("drm", [
            dict(name="kiosk-%d" % h, outputs=rig.output_name(h), user="lab%d" % (1 + h % 2),
                 session=kiosk % colours[h - 1],
                 extra="card = %s\n" % rig.card(h) if h > 3 else "") for h in heads],
            general="card = /dev/dri/card0\nrestart = always").encode()
    rig.write_file(CONFIG, kiosks((1, 2, 3, 4)))
    rig.run("systemctl start seatd-lease.service", timeout=90)
    try:
        wait_prop(rig, "seatd-lease", "StatusText", r"^4/4 seats running$")
        for h in (1, 2, 3, 4):
            assert_head(rig, h, colours[h - 1])
        # kiosk-4's logind seat is its connector on card1 (card0 has none
        # of that name), and graphical.
        rig.wait_until("[ \"$(loginctl show-seat seat-kiosk-4 -p CanGraphical --value)\" = yes ]",
                       timeout=30)
        assert "ID_SEAT=seat-kiosk-4\n" in rig.run(
            "udevadm info -q property /sys/class/drm/card1-Virtual-4").stdout
        # A kiosk whose session dies comes back by itself (restart = always).
        session = int(re.search(r"^session (\d+)", rig.run(
            "cat %s/kiosk-2/pids" % RUNTIME_DIR).stdout, re.M).group(1))
        rig.run("kill %d" % session)
        wait_prop(rig, "seatd-lease", "StatusText", r"^3/4 seats running", timeout=30)
        wait_prop(rig, "seatd-lease", "StatusText", r"^4/4 seats running$", timeout=60)
        assert_head(rig, 2, SEAT_COLOURS[1])
        # Each card's DRM master waits in systemd's store while no daemon
        # runs: a restart, and a crash that Restart= follows, keep every kiosk.
        pids = [xserver_pid(rig, "kiosk-%d" % h) for h in (1, 2, 3, 4)]
        with seatd.HeadSampler(rig, [1, 2, 3, 4]) as sampler:
            rig.run("systemctl restart seatd-lease.service", timeout=90)
            wait_prop(rig, "seatd-lease", "StatusText", r"^4/4 seats running$")
            restarts = prop(rig, "seatd-lease", "NRestarts")
            rig.run("kill -9 %s" % prop(rig, "seatd-lease", "MainPID"))
            wait_prop(rig, "seatd-lease", "NRestarts", r"^%d$" % (int(restarts) + 1))
            wait_prop(rig, "seatd-lease", "StatusText", r"^4/4 seats running$")
        log = rig.run("journalctl -b --no-pager -u seatd-lease.service -o cat").stdout
        for card in ("/dev/dri/card0", "/dev/dri/card1"):
            assert log.count("DRM master of %s kept by systemd across the restart" % card) \
                == 2, log
        assert log.count("seat kiosk-1: adopted from an earlier run") == 2, log
        assert log.count("seat kiosk-4: adopted from an earlier run") == 2, log
        assert [xserver_pid(rig, "kiosk-%d" % h) for h in (1, 2, 3, 4)] == pids
        for h in (1, 2, 3, 4):
            low = [round(x, 2) for _, x in sampler.shares(h, colours[h - 1]) if x < 0.9]
            assert not low, "head %d did not show its kiosk throughout: %s" % (h, low)
        # card1's kiosk leaves the map: at the next start its stored DRM
        # master is let go, and no process is card1's master any more.
        rig.write_file(CONFIG, kiosks((1, 2, 3)))
        rig.run("systemctl restart seatd-lease.service", timeout=90)
        wait_prop(rig, "seatd-lease", "StatusText", r"^3/3 seats running$")
        assert "a card no seat is on now: letting it go" in rig.run(
            "journalctl -b --no-pager -u seatd-lease.service -o cat").stdout
        r = rig.run("python3 -c \"import fcntl, os; fd = os.open('/dev/dri/card1', os.O_RDWR); "
                    "fcntl.ioctl(fd, 0x641e)\"", check=False)
        assert r.status == 0, "card1 still has a DRM master: " + r.stderr
        assert [xserver_pid(rig, "kiosk-%d" % h) for h in (1, 2, 3)] == pids[:3]
    finally:
        rig.run("systemctl stop seatd-lease.service", timeout=60)
    assert rig.run("ls -A %s" % RUNTIME_DIR).stdout == "", \
        rig.run("journalctl -b --no-pager -u seatd-lease.service -o cat; "
                "grep seatd-lease /proc/self/mountinfo; true").stdout
    assert rig.run("pgrep -u lab1,lab2", check=False).stdout == ""
