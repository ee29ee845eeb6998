"""Seats for the whole desktop, on a rig guest with systemd as
init: each running seat is a logind seat, its session a logind session
opened through PAM, and the USB devices on its ports (`devices =`) are its
own: udisks lets its user mount its disk and no other seat's user, its sound
card's nodes have an ACL for its user only. udisks2 and acl are installed in
the guest only (Rig(writable_usr=True)), from the .debs scripts/test
downloads into build/vm/debs."""

import os
import re
import subprocess
import time

import pytest

import reuse
import rig as rigmod
import seatd
from seatd import (BIN, CONFIG, PRIMARY, SEAT_COLOURS, Supervisor, assert_head,
                   install_guest_debs, seat_map, setup_users, status_json)

GUEST_PACKAGES = "udisks2 acl"
# First of the modules on the shared systemd guest (reuse.systemd_guest).
SYSTEMD_GUEST = 1
RULES_DIR = "/run/udev/rules.d"


def port_devices(port):
    """devices = for everything on the rig's USB port (USB 2 or 3 side)."""
    return "path:pci-0000:00:%02x.0-usb*-0:%s:*" % (rigmod.SLOT_USB, port)


# A session that ignores SIGTERM: it outlives its opener when the daemon is
# killed, and only the next run's clean-up can end its logind session.
STUBBORN = ("/bin/sh -c \"trap '' TERM; xsetroot -solid '%s'; "
            "while :; do sleep 1; done\"" % SEAT_COLOURS[0])

S1 = dict(name="s1", outputs="Virtual-2", user="lab1", session=STUBBORN,
          extra="inputs = path:%s path:%s\ndevices = %s\n" % (
              rigmod.keyboard_id_path(2), rigmod.pointer_id_path(2), port_devices(1)))
# No input device at all: still a graphical logind seat.
# power = local: its sessions keep logind's power actions.
S2 = dict(name="s2", outputs="Virtual-3", user="lab2", colour=SEAT_COLOURS[1],
          extra="devices = %s\npower = local\n" % port_devices(2))
# The polkit rule seatd-lease installs (meson: /usr/share/polkit-1/rules.d).
POLKIT_RULE = os.path.join(rigmod.build_dir(), "polkit", "40-seatd-lease.rules")


@pytest.fixture(scope="module")
def rig(request):
    failed = request.session.testsfailed
    with reuse.systemd_guest("test_logind", lambda: request.session.testsfailed == failed) as r:
        if not r.xorg_running():
            r.start_xorg(auto_add_gpu=False)
        install_guest_debs(r, GUEST_PACKAGES, "udisks2")
        setup_users(r, ["lab1", "lab2"])
        r.run("xsetroot -solid '%s'" % PRIMARY, env=r.x_env())
        with open(seatd.PAM_FILE, "rb") as f:
            r.write_file("/etc/pam.d/seatd-lease", f.read())
        # As a package installs it: a new file renamed into place (polkitd,
        # if running, reloads on every change, and read a half-written file
        # once on the rig: "Error loading script"), then polkit restarted,
        # so that it has the whole rule whatever it saw.
        rules = "/usr/share/polkit-1/rules.d/40-seatd-lease.rules"
        with open(POLKIT_RULE, "rb") as f:
            r.write_file(rules + ".new", f.read())
        r.run("mv %s.new %s && systemctl try-restart polkit.service" % (rules, rules),
              timeout=90)
        r.run("systemctl start dbus.service systemd-logind.service polkit.service", timeout=90)
        # udisks mounts under /media/USER: the host's, read-only in the guest.
        r.run("mountpoint -q /media || mount -t tmpfs -o mode=0755 tmpfs /media")
        r.add_log("/run/rig/*.log")
        yield r
        # The next module finds no disk of ours.
        r.usb_remove_all()


@pytest.fixture(scope="module")
def sup(rig):
    s = Supervisor(rig, seat_map("x11", [S1, S2]))
    s.start()
    try:
        s.wait_state("s1", "running", timeout=90)
        s.wait_state("s2", "running", timeout=90)
        yield s
    finally:
        s.stop()


def seats(rig):
    return rig.run("loginctl list-seats --no-legend").stdout.split()


def show(rig, what, name, prop):
    return rig.run("loginctl show-%s %s -p %s --value" % (what, name, prop),
                   check=False).stdout.strip()


def wait_for(cond, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what()
        time.sleep(0.3)


def seat_session(rig, seat):
    """The active logind session on seat-NAME, waiting for one."""
    wait_for(lambda: show(rig, "seat", "seat-" + seat, "ActiveSession") != "",
             lambda: "no active session on seat-%s:\n%s" % (
                 seat, rig.run("loginctl list-sessions; journalctl -b --no-pager -n 40",
                               check=False).stdout))
    return show(rig, "seat", "seat-" + seat, "ActiveSession")


def acl_users(rig, node):
    """The users getfacl names on node."""
    out = rig.run("getfacl -p %s" % node).stdout
    return sorted(set(re.findall(r"^user:([^:]+):", out, re.M)))


def in_session(rig, session, user, command, check=True):
    """command as user, in the scope of logind session: what polkit and
    udisks see as a process of that session."""
    scope = show(rig, "session", session, "Scope")
    uid = rig.run("id -u %s" % user).stdout.strip()
    procs = "/sys/fs/cgroup/user.slice/user-%s.slice/%s/cgroup.procs" % (uid, scope)
    return rig.run("sh -c 'echo $$ > %s && exec setpriv --reuid=%s --regid=%s --init-groups "
                   "env -i PATH=/usr/bin:/bin %s'" % (procs, user, user, command),
                   check=check, timeout=60)


def test_two_seats_are_logind_seats_with_their_sessions(rig, sup):
    wait_for(lambda: {"seat-s1", "seat-s2"} <= set(seats(rig)),
             lambda: "logind's seats: %s" % seats(rig))
    for seat, user, display in (("s1", "lab1", ":10"), ("s2", "lab2", ":11")):
        # s2 has no input device: its connector alone makes it graphical.
        assert show(rig, "seat", "seat-" + seat, "CanGraphical") == "yes"
        session = seat_session(rig, seat)
        props = {p: show(rig, "session", session, p)
                 for p in ("Active", "Remote", "Type", "Seat", "Display", "Service", "Name",
                           "Class")}
        assert props == dict(Active="yes", Remote="no", Type="x11", Seat="seat-" + seat,
                             Display=display, Service="seatd-lease", Name=user,
                             Class="user"), props
        runtime = show(rig, "user", user, "RuntimePath")
        assert rig.run("test -d %s" % runtime, check=False).status == 0, runtime
    # The seat's input devices are attached to it in logind.
    status = rig.run("loginctl seat-status seat-s1 --no-pager --full").stdout
    assert "input" in status, status
    # The session's program has the environment PAM gave it.
    pid = rig.run("pgrep -u lab2 -x sleep").stdout.split()[0]
    env = rig.run("tr '\\0' '\\n' < /proc/%s/environ" % pid).stdout
    uid = rig.run("id -u lab2").stdout.strip()
    assert "XDG_RUNTIME_DIR=/run/user/%s\n" % uid in env, env
    assert "XDG_SEAT=seat-s2\n" in env and "XDG_SESSION_TYPE=x11\n" in env, env
    assert_head(rig, 2, SEAT_COLOURS[0])
    assert_head(rig, 3, SEAT_COLOURS[1])


@pytest.fixture(scope="module")
def disk():
    path = os.path.join(rigmod.build_dir(), "vm", "logind-disk.img")
    with open(path, "wb") as f:
        f.truncate(16 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "SEATDISK", path], check=True)
    yield path
    os.unlink(path)


def usb_block_node(rig, port):
    pattern = "/dev/disk/by-path/pci-0000:00:%02x.0-usb*-0:%s:1.0-scsi-0:0:0:0" % (
        rigmod.SLOT_USB, port)
    rig.wait_until("ls %s >/dev/null 2>&1" % pattern, timeout=60)
    return rig.run("readlink -f %s" % pattern).stdout.strip()


def test_a_disk_on_a_seats_port_is_its_users_to_mount(rig, sup, disk):
    rig.usb_add("usb-storage", "1", disk=disk, removable=True, timeout=60)
    node = usb_block_node(rig, "1")
    rig.run("udevadm settle -t 30")
    props = rig.run("udevadm info -q property %s" % node).stdout
    assert "ID_SEAT=seat-s1\n" in props, props
    wait_for(lambda: acl_users(rig, node) == ["lab1"],
             lambda: "%s: ACL for %s, not lab1 alone" % (node, acl_users(rig, node)))
    # status and check --probe list it with the seat's devices, under s1.
    wait_for(lambda: node in status_json(rig)["s1"]["devices"],
             lambda: "status: s1's devices %s lack %s" % (status_json(rig)["s1"]["devices"],
                                                         node))
    assert node not in status_json(rig)["s2"]["devices"]
    probe = rig.run("%s check --probe %s" % (BIN, CONFIG)).stdout
    s1_part = probe.split("seat s1:\n", 1)[1].split("seat s2:\n", 1)[0]
    assert re.search(r"^  device %s \(ID_PATH pci-" % re.escape(node), s1_part, re.M), probe
    s1, s2 = seat_session(rig, "s1"), seat_session(rig, "s2")
    # udisks and polkit: the active local session on the disk's seat may
    # mount it; another seat's session is asked for an admin password.
    refused = in_session(rig, s2, "lab2", "udisksctl mount --no-user-interaction -b %s" % node,
                         check=False)
    assert refused.status != 0, refused
    assert "NotAuthorized" in refused.stderr or "Not authorized" in refused.stderr, refused
    mounted = in_session(rig, s1, "lab1", "udisksctl mount --no-user-interaction -b %s" % node)
    assert "Mounted %s at " % node in mounted.stdout, mounted
    assert node in rig.run("cat /proc/mounts").stdout
    in_session(rig, s1, "lab1", "udisksctl unmount --no-user-interaction -b %s" % node)


def sound_nodes(rig, seat):
    out = rig.run("for n in /dev/snd/*; do [ -c $n ] && udevadm info -q property $n | "
                  "grep -qx ID_SEAT=seat-%s && echo $n; done; true" % seat).stdout
    return out.split()


def test_a_sound_card_on_a_seats_port_is_its_user_alone(rig, sup):
    rig.usb_add("usb-audio", "2", audiodev=rigmod.AUDIODEV, timeout=60)
    rig.run("udevadm settle -t 30")
    wait_for(lambda: any(n.startswith("/dev/snd/pcmC") for n in sound_nodes(rig, "s2")),
             lambda: "no sound node on seat-s2: %s" % rig.run(
                 "ls -l /dev/snd; loginctl seat-status seat-s2 --no-pager", check=False).stdout)
    nodes = sound_nodes(rig, "s2")
    assert any(n.startswith("/dev/snd/controlC") for n in nodes), nodes
    for node in nodes:
        wait_for(lambda: acl_users(rig, node) == ["lab2"],
                 lambda: "%s: ACL for %s, not lab2 alone" % (node, acl_users(rig, node)))


def login1(rig, session, user, call):
    """logind's Manager.CALL asked from inside session, as user."""
    return in_session(rig, session, user, "busctl call org.freedesktop.login1 "
                      "/org/freedesktop/login1 org.freedesktop.login1.Manager " + call,
                      check=False)


def can(rig, session, user, method, tries=4):
    """logind's answer to Manager.METHOD (CanPowerOff, ...) from inside
    session: asked again while logind has none (under TCG, polkit just
    (re)started can take longer than the D-Bus call's time-out)."""
    for _ in range(tries):
        r = login1(rig, session, user, method)
        if r.status == 0:
            return r.stdout
        time.sleep(5)
    raise AssertionError("%s: no answer: %s" % (method, r.stderr))


def test_a_seats_session_needs_an_administrator_for_the_machines_power(rig, sup):
    """An active local session on a seat of ours may not power off, reboot or
    suspend the machine (every other seat with it) without an administrator,
    unless its seat says power = local; nor, whatever power says, keep the
    machine from shutting down."""
    s1, s2 = seat_session(rig, "s1"), seat_session(rig, "s2")
    polkit = rig.run("journalctl -b --no-pager -o cat -u polkit.service").stdout
    assert "Error loading script" not in polkit.split("Started polkitd")[-1], polkit
    for method in ("CanPowerOff", "CanReboot", "CanHalt"):
        assert can(rig, s1, "lab1", method) == 's "challenge"\n', method
    # power = local: what logind's policy gives any active local session.
    for method in ("CanPowerOff", "CanReboot"):
        assert can(rig, s2, "lab2", method) == 's "yes"\n', method
    # The daemon's mark is what the rule reads, and only s2 has it.
    marks = rig.run("ls %s/s1 %s/s2" % (seatd.RUNTIME_DIR, seatd.RUNTIME_DIR)).stdout
    assert marks.count("power-local") == 1, marks
    for session, user in ((s1, "lab1"), (s2, "lab2")):
        for what in ("shutdown", "sleep", "handle-power-key"):
            r = login1(rig, session, user, "Inhibit ssss %s lab test block" % what)
            assert r.status != 0 and "authenticat" in r.stderr.lower(), (what, r.stdout, r.stderr)
        # Processes that outlive the session: lingering, which logind's
        # policy lets an active session turn on for its own user. (The
        # reboot settings are refused by logind itself on the rig, before
        # polkit: no EFI, and it takes the guest for a container.)
        uid = rig.run("id -u %s" % user).stdout.strip()
        r = login1(rig, session, user, "SetUserLinger ubb %s true false" % uid)
        assert r.status != 0 and "authenticat" in r.stderr.lower(), (r.stdout, r.stderr)
        assert show(rig, "user", user, "Linger") == "no"


def keyboard_node(rig, head):
    """The event node of head's keyboard."""
    return rig.run("for d in /sys/class/input/event*; do udevadm info -q property -p $d | "
                   "grep -qx 'ID_PATH=%s' && echo /dev/input/${d##*/}; done; true"
                   % rigmod.keyboard_id_path(head)).stdout.split()[0]


def current_tags(rig, node):
    out = rig.run("udevadm info -q property -n %s" % node).stdout
    m = re.search(r"^CURRENT_TAGS=(.*)$", out, re.M)
    return m.group(1).strip(":").split(":") if m else []


def test_a_seats_power_key_is_not_the_machines(rig, sup):
    """logind powers the machine off on the power key of any power-switch
    device, whatever its seat: a seat's keyboard is none."""
    seat_session(rig, "s1")
    seat_kbd, primary_kbd = keyboard_node(rig, 2), keyboard_node(rig, 1)
    assert "seat" in current_tags(rig, seat_kbd)
    assert "power-switch" not in current_tags(rig, seat_kbd), current_tags(rig, seat_kbd)
    # The primary's keyboard (seat0's) keeps it: the premise of the press below.
    assert "power-switch" in current_tags(rig, primary_kbd)
    journal = "journalctl -b --no-pager -o cat -u systemd-logind.service"
    before = rig.run(journal).stdout.count("Power key pressed")
    rig.send_key(2, "power")
    time.sleep(3)
    # Still up, and logind heard nothing.
    assert rig.run(journal).stdout.count("Power key pressed") == before
    assert show(rig, "seat", "seat-s1", "ActiveSession") != ""


def test_no_stale_seat_session_or_acl_after_a_stop_and_a_kill(rig, sup):
    disk_node = usb_block_node(rig, "1")
    s1 = seat_session(rig, "s1")
    snd = sound_nodes(rig, "s2")
    assert snd
    # A stopped seat: gone from logind, with its session and its ACLs.
    rig.run("%s -c %s stop s2" % (BIN, CONFIG))
    sup.wait_state("s2", "stopped")
    wait_for(lambda: "seat-s2" not in seats(rig), lambda: "seats: %s" % seats(rig))
    wait_for(lambda: "seat-s2" not in rig.run("loginctl list-sessions --no-legend").stdout,
             lambda: rig.run("loginctl list-sessions").stdout)
    for node in snd:
        assert "lab2" not in acl_users(rig, node), node
    assert rig.run("ls %s" % RULES_DIR).stdout.split() == ["72-seatd-lease-s1.rules"]
    # The daemon killed: s1's session ignores the SIGTERM its opener passes
    # on, and lives on. The next run, whose map has s2 alone, ends it and
    # drops s1's logind seat.
    rig.run("kill -9 %d" % sup.pid())
    sup.proc.wait(30)
    sup.proc = None
    assert show(rig, "session", s1, "State") in ("active", "online"), \
        "the session did not outlive the daemon"
    again = Supervisor(rig, seat_map("x11", [S2]))
    again.start()
    try:
        again.wait_state("s2", "running", timeout=90)
        wait_for(lambda: "seat-s1" not in seats(rig), lambda: "seats: %s" % seats(rig))
        wait_for(lambda: show(rig, "session", s1, "State") in ("", "closing"),
                 lambda: "session %s: %s" % (s1, show(rig, "session", s1, "State")))
        wait_for(lambda: rig.run("pgrep -u lab1", check=False).stdout == "",
                 lambda: rig.run("ps -u lab1 -o pid,cgroup,args", check=False).stdout)
        assert "lab1" not in acl_users(rig, disk_node)
        props = rig.run("udevadm info -q property %s" % disk_node).stdout
        assert "ID_SEAT=seat-s1" not in props, props
        assert rig.run("ls %s" % RULES_DIR).stdout.split() == ["72-seatd-lease-s2.rules"]
        # One session on s2, the new run's.
        sessions = [l for l in rig.run("loginctl list-sessions --no-legend").stdout.splitlines()
                    if "seat-" in l]
        assert len(sessions) == 1 and "seat-s2" in sessions[0], sessions
    finally:
        again.stop()
    wait_for(lambda: not {"seat-s1", "seat-s2"} & set(seats(rig)),
             lambda: "seats: %s" % seats(rig))
    assert rig.run("ls -A %s" % RULES_DIR, check=False).stdout == ""
