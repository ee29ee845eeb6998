"""Input devices per seat on the rig: each head's keyboard and pointer (virtio
devices bound to that head) given to the seat on that head through udev, as
`loginctl attach` does, and back to the primary when the seat stops."""

import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, event_node,
                   input_seat as seat, presses, seat_map, setup_users,
                   two_input_seats as two_seats, wait_presses)


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


# An event node that no seat has, on Debian.
SEAT0_NODE = "root input 660"


@pytest.fixture
def primary_keys(rig):
    """What the primary X server receives, as key presses on its root."""
    xev = rig.spawn("exec stdbuf -oL xev -root -event keyboard", name="primary-xev",
                    env=rig.x_env())
    time.sleep(1)
    yield xev.log
    xev.stop()


def press_until_the_primary_gets_it(rig, head, primary_keys):
    """The primary has head's keyboard back once its own udev monitor has
    re-added it (under load, more than a second after udev answered
    seatd-lease): a key pressed before that is lost, so press until one
    arrives."""
    deadline = time.monotonic() + 20
    while presses(rig, primary_keys) == "0":
        assert time.monotonic() < deadline, "the primary never got head %d's keyboard back" % head
        rig.send_key(head, "d")
        time.sleep(1)


def test_a_key_reaches_only_its_seat(rig, primary_keys):
    s1 = "%s/s1/session.log" % RUNTIME_DIR
    s2 = "%s/s2/session.log" % RUNTIME_DIR
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        sup.wait_log(r"seat s1: 2 input devices assigned \(1 keyboard, 1 pointer\)")
        time.sleep(1)
        rig.send_key(2, "a")
        wait_presses(rig, s1, 1)
        rig.send_key(3, "b")
        wait_presses(rig, s2, 1)
        rig.send_key(1, "c")
        wait_presses(rig, primary_keys, 1)
        time.sleep(1)
        # Each key reached one X server and no other.
        assert presses(rig, s1) == "1" and presses(rig, s2) == "1"
        assert presses(rig, primary_keys) == "1"


def test_devices_belong_to_the_seat_user_then_go_back(rig, primary_keys):
    node = event_node(rig, rigmod.keyboard_id_path(2))
    assert rig.run("stat -c '%%U %%G %%a' %s" % node).stdout.strip() == SEAT0_NODE
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        assert rig.run("stat -c '%%U %%a' %s" % node).stdout.strip() == "lab1 600"
        other = rig.run("su -s /bin/sh lab2 -c 'exec 3<%s'" % node, check=False)
        assert other.status != 0 and "Permission denied" in other.stderr
        rules = rig.run("cat /run/udev/rules.d/72-seatd-lease-s1.rules").stdout
        assert 'ENV{ID_SEAT}="seat-s1", OWNER="lab1", MODE="0600"' in rules
        assert sup.stop() == 0
    assert rig.run("stat -c '%%U %%G %%a' %s" % node).stdout.strip() == SEAT0_NODE
    assert rig.run("ls /run/udev/rules.d/ | grep seatd-lease || true").stdout == ""
    press_until_the_primary_gets_it(rig, 2, primary_keys)


def test_a_keyboard_plugged_into_a_seats_port_joins_it(rig):
    # The seat's inputs name the keyboard of its head and a free hot-plug
    # port; a keyboard plugged there later is the seat's, with nothing done.
    port_path = rigmod.hotplug_id_path(1)
    s = seat("s1", 2, "lab1", SEAT_COLOURS[0])
    s["extra"] = s["extra"].rstrip("\n") + " path:%s\n" % port_path
    with Supervisor(rig, seat_map("x11", [s])) as sup:
        sup.wait_state("s1", "running")
        xserver = sup.xserver_pid("s1")
        keyboard = rig.hotplug_keyboard(2)
        assert keyboard.id_path == port_path
        node = rig.run("readlink -f %s" % keyboard.node).stdout.strip()
        rig.wait_until("[ \"$(stat -c '%%U %%a' %s)\" = 'lab1 600' ]" % node, timeout=10)
        rig.wait_until("grep -q 'Adding input device.*%s' %s/s1/log/Xorg.log"
                       % (node, RUNTIME_DIR), timeout=15)
        sup.wait_log(r"seat s1: plugged in .* \(%s\)" % node)
        # Unplugging it leaves the seat alone.
        rig.unplug(keyboard)
        sup.wait_log(r"seat s1: unplugged .* \(%s\)" % node)
        time.sleep(1)
        assert sup.xserver_pid("s1") == xserver
        sup.wait_state("s1", "running", timeout=1)


def test_a_device_two_seats_match_is_an_error_naming_both(rig):
    # s2's name: match takes every virtio keyboard, head 2's too.
    s1 = seat("s1", 2, "lab1", SEAT_COLOURS[0])
    s2 = dict(name="s2", outputs="Virtual-3", user="lab2",
              extra='inputs = name:"QEMU Virtio Keyboard"\n')
    with Supervisor(rig, seat_map("x11", [s1, s2])) as sup:
        line = sup.wait_log(r"is matched by seats")
        assert "matched by seats s1 and s2" in line and "QEMU Virtio Keyboard" in line, line
        # A seat with a keyboard and no pointer is told so.
        sup.wait_log(r"seat s2: no pointer matches its inputs now")
    # However tangled, every device is seat0's again afterwards.
    node = event_node(rig, rigmod.keyboard_id_path(2))
    assert rig.run("stat -c '%%U %%G %%a' %s" % node).stdout.strip() == SEAT0_NODE


def test_a_killed_run_leaves_no_rule_behind(rig):
    node = event_node(rig, rigmod.keyboard_id_path(2))
    first = Supervisor(rig, two_seats())
    first.start()
    first.wait_state("s1", "running")
    rig.run("kill -9 %d" % first.pid())
    # Still there: nothing runs that could have removed it...
    assert rig.run("ls /run/udev/rules.d/72-seatd-lease-s1.rules", check=False).status == 0
    # ...until the next run, whatever its seat map says.
    other = seat_map("x11", [dict(name="s3", outputs="Virtual-3", user="lab2",
                                  colour=SEAT_COLOURS[1])])
    with Supervisor(rig, other) as sup:
        sup.wait_log(r"removed the input rules an earlier run left")
        assert rig.run("ls /run/udev/rules.d/ | grep seatd-lease || true").stdout == ""
        rig.wait_until("[ \"$(stat -c '%%U %%G %%a' %s)\" = '%s' ]" % (node, SEAT0_NODE))


def test_unwritable_rules_directory_starts_the_seat_without_inputs(rig):
    rig.run("mkdir -p /run/udev/rules.d && mount -t tmpfs -o ro tmpfs /run/udev/rules.d")
    try:
        with Supervisor(rig, two_seats()) as sup:
            line = sup.wait_log(r"seat s1: cannot assign its input devices")
            assert "/run/udev/rules.d/72-seatd-lease-s1.rules" in line, line
            assert "starting it without them" in line
            sup.wait_state("s1", "running")
    finally:
        rig.run("umount /run/udev/rules.d")
    assert rig.run("ls /run/udev/rules.d/").stdout == ""


def test_a_udev_that_never_answers_delays_the_seat_only_so_long(rig):
    rig.run("pkill -STOP systemd-udevd")
    try:
        with Supervisor(rig, two_seats()) as sup:
            # Both seats wait for udev at once, and the daemon answers
            # meanwhile: the wait is the loop's, not a blocking one.
            sup.wait_state("s1", "assigning", timeout=30)
            sup.wait_state("s2", "assigning", timeout=30)
            status = rig.run("%s -c %s status --json" % (BIN, CONFIG), timeout=10)
            assert '"xserver_pid":null' in status.stdout, status.stdout
            assert "udev did not answer" not in sup.log()
            line = sup.wait_log(r"udev did not answer", timeout=60)
            assert "within 5000 ms" in line, line
            sup.wait_state("s1", "running", timeout=90)
            sup.wait_state("s2", "running", timeout=90)
            rig.run("pkill -CONT systemd-udevd")
    finally:
        rig.run("pkill -CONT systemd-udevd")
    rig.run("udevadm settle --timeout=30")


def test_check_probe_shows_what_each_seat_would_get(rig):
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, two_seats().encode())
    out = rig.run("%s check --probe %s" % (BIN, CONFIG)).stdout
    sections = dict(re.findall(r"^(seat s\d|no seat's):\n((?:  .*\n)*)", out, re.M))
    for head, name in ((2, "seat s1"), (3, "seat s2")):
        section = sections[name]
        assert "  output Virtual-%d: connected (card0)\n" % head in section, out
        for id_path, what in ((rigmod.keyboard_id_path(head), "QEMU Virtio Keyboard"),
                              (rigmod.pointer_id_path(head), "QEMU Virtio Tablet")):
            line = "  input %s: %s, ID_PATH %s\n" % (event_node(rig, id_path), what, id_path)
            assert line in section, out
    # Head 1's devices are nobody's.
    assert "ID_PATH %s\n" % rigmod.keyboard_id_path(1) in sections["no seat's"], out
    # Two seats matching one device: an error naming both, exit 1.
    s2 = dict(name="s2", outputs="Virtual-3", user="lab2",
              extra='inputs = name:"QEMU Virtio Keyboard"\n')
    rig.write_file(CONFIG, seat_map("x11", [seat("s1", 2, "lab1", SEAT_COLOURS[0]), s2]).encode())
    r = rig.run("%s check --probe %s" % (BIN, CONFIG), check=False)
    assert r.status == 1
    assert re.search(r"error: input device QEMU Virtio Keyboard \(%s\) is matched by seats "
                     r"s1 and s2" % event_node(rig, rigmod.keyboard_id_path(2)), r.stderr), r.stderr


EVERY_KEYBOARD = r"the seats take every keyboard \(3\): seat0, .* has none while they run\. " \
    r"The ways back: `seatd-lease stop` over ssh .*seatd-lease=off on the kernel's command line"


def test_a_map_taking_every_keyboard_is_warned_of_and_stop_gives_them_back(rig, primary_keys):
    """A map whose seats take every keyboard, the primary's (head 1's) too,
    locks the administrator out of seat0: check and the daemon's log say so,
    naming the ways back; `seatd-lease stop`, run as from ssh, stops every
    seat, and head 1's keyboard types on the primary again. A map that
    leaves seat0 a keyboard gets no such warning."""
    rig.run("mkdir -p /etc/seatd-lease")
    rig.write_file(CONFIG, two_seats().encode())
    assert "every keyboard" not in rig.run("%s check %s" % (BIN, CONFIG)).stderr
    s1 = seat("s1", 2, "lab1", SEAT_COLOURS[0])
    s1["extra"] = s1["extra"].rstrip("\n") + " path:%s\n" % rigmod.keyboard_id_path(1)
    text = seat_map("x11", [s1, seat("s2", 3, "lab2", SEAT_COLOURS[1])])
    rig.write_file(CONFIG, text.encode())
    out = rig.run("%s check %s" % (BIN, CONFIG))
    assert re.search("^warning: " + EVERY_KEYBOARD, out.stderr, re.M), out.stderr
    with Supervisor(rig, text) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        sup.wait_log(EVERY_KEYBOARD)
        sup.wait_log(r"seat s1: 3 input devices assigned \(2 keyboards, 1 pointer\)")
        # Head 1's keyboard is s1's now: the primary gets nothing from it.
        rig.send_key(1, "a")
        wait_presses(rig, "%s/s1/session.log" % RUNTIME_DIR, 1)
        assert presses(rig, primary_keys) == "0"
        stop = rig.run("%s -c %s stop" % (BIN, CONFIG))
        assert stop.stdout == "seat s1: running -> stopping\nseat s2: running -> stopping\n"
        sup.wait_state("s1", "stopped")
        sup.wait_state("s2", "stopped")
        assert sup.running(), "stop with no name stopped the daemon too"
        assert rig.run("ls /run/udev/rules.d/ | grep seatd-lease || true").stdout == ""
        press_until_the_primary_gets_it(rig, 1, primary_keys)
        xrandr = rig.run("xrandr --query", env=rig.x_env()).stdout
        assert re.findall(r"^Virtual-\d+ connected", xrandr, re.M) == \
            ["Virtual-1 connected", "Virtual-2 connected", "Virtual-3 connected"], xrandr


def sysrq_helps(rig):
    """How many times the kernel's SysRq handler has printed its help."""
    return int(rig.run("dmesg | grep -c 'sysrq: HELP' || true").stdout)


def test_every_keyboard_reaches_sysrq_and_the_administrator_is_told(rig):
    """The kernel takes its SysRq keys from every keyboard no process holds,
    and a seat's X server holds none (Xorg's libinput driver grabs nothing):
    a running seat's keyboard reaches them as seat0's does. seatd-lease
    cannot close that; check, status and the daemon's log say so, with the
    setting to change, and say nothing once it is safe."""
    # Debian 12's kernel default: reboot, remount read-only and SAK among it.
    rig.run("echo 438 > /proc/sys/kernel/sysrq")
    with Supervisor(rig, two_seats()) as sup:
        sup.wait_state("s1", "running")
        sup.wait_log(r"seat s1: 2 input devices assigned \(1 keyboard, 1 pointer\)")
        time.sleep(1)
        # Alt+SysRq+H: a key with no function of its own prints the help.
        for head in (2, 1):
            before = sysrq_helps(rig)
            rig.send_key(head, "alt", "sysrq", "h")
            rig.wait_until("[ $(dmesg | grep -c 'sysrq: HELP') -gt %d ]" % before, timeout=15)
        warning = r"kernel\.sysrq = 438 lets any keyboard, every seat's too, reboot or power " \
                  r"off the machine .*set kernel\.sysrq = 16"
        assert re.search("^warning: " + warning, rig.run("%s -c %s status" % (BIN, CONFIG))
                         .stdout, re.M)
        assert re.search("^warning: " + warning, rig.run("%s check %s" % (BIN, CONFIG))
                         .stderr, re.M)
        sup.wait_log(warning)
        # Set as it says: nothing to say.
        rig.run("echo 16 > /proc/sys/kernel/sysrq")
        assert "kernel.sysrq" not in rig.run("%s -c %s status" % (BIN, CONFIG)).stdout
        assert "kernel.sysrq" not in rig.run("%s check %s" % (BIN, CONFIG)).stderr
    rig.run("echo 0 > /proc/sys/kernel/sysrq")


def test_a_restarting_seats_keyboard_reaches_no_one_until_its_next_x_server(rig,
                                                                             primary_keys):
    """Between two X servers of a seat that restarts, its devices stay its
    own, held by the daemon: keys typed in the back-off reach neither the
    primary (given back to seat0, they would type into its desktop for the
    whole back-off) nor the kernel's SysRq; the next X server has them."""
    rig.run("echo 438 > /proc/sys/kernel/sysrq")
    s1 = dict(seat("s1", 2, "lab1", SEAT_COLOURS[0]))
    s1["extra"] += "restart_delay = 20s\n"
    log = "%s/s1/session.log" % RUNTIME_DIR
    with Supervisor(rig, seat_map("x11", [s1])) as sup:
        sup.wait_state("s1", "running")
        sup.wait_log(r"seat s1: 2 input devices assigned \(1 keyboard, 1 pointer\)")
        time.sleep(1)
        rig.run("kill -9 %d" % sup.xserver_pid("s1"))
        sup.wait_state("s1", "back-off")
        sup.wait_log(r"seat s1: holding its 2 input devices until its next X server")
        time.sleep(1)
        keys, helps = int(presses(rig, primary_keys)), sysrq_helps(rig)
        for key in ("a", "ret", "b"):
            rig.send_key(2, key)
        rig.send_key(2, "alt", "sysrq", "h")
        time.sleep(2)
        assert int(presses(rig, primary_keys)) == keys, "the primary got a backing-off seat's key"
        assert sysrq_helps(rig) == helps, "a backing-off seat's keyboard reached SysRq"
        # The devices stayed the seat's user's the whole time.
        node = event_node(rig, rigmod.keyboard_id_path(2))
        assert rig.run("stat -c %%U %s" % node).stdout.strip() == "lab1"
        sup.wait_state("s1", "running", timeout=60)
        sup.wait_log(r"seat s1: 2 input devices assigned|seat s1: starting -> running")
        time.sleep(2)
        rig.send_key(2, "c")
        wait_presses(rig, log, 1)
        assert int(presses(rig, primary_keys)) == keys
    rig.run("echo 0 > /proc/sys/kernel/sysrq")
