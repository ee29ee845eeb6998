"""USB input devices on the rig's xhci controller: seats that name USB ports
(path: on an ID_PATH, sysfs: on a hub's port), USB hot-plug into a seat's
port, and `seatd-lease identify`, the wizard that writes those lines.

QEMU binds no USB device to a head: keys and clicks with no head go to the
USB keyboard (and mouse) plugged in last, so each test plugs in the device it
types on last."""

import os
import re
import time

import pytest

import rig as rigmod
from seatd import (BIN, CONFIG, PRIMARY, RUNTIME_DIR, SEAT_COLOURS, Supervisor, event_node,
                   input_seat, presses, seat_map, setup_users, wait_presses)

SEAT0_NODE = "root input 660"


@pytest.fixture(scope="module")
def rig(guest):
    setup_users(guest, ["lab1", "lab2"])
    guest.run("mkdir -p %s" % os.path.dirname(CONFIG))
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())
    yield guest


@pytest.fixture
def usb(rig):
    """Plugs USB devices in (usb(driver, port)) and out again afterwards."""
    plugged = []

    def plug(driver, port):
        plugged.append(rig.usb_add(driver, port))
        return plugged[-1]
    yield plug
    for dev in reversed(plugged):
        if dev in rig.plugged():
            rig.usb_remove(dev)


def owner(rig, node):
    return rig.run("stat -c '%%U %%a' %s" % node).stdout.strip()


def usb_seat(name, head, user, colour, inputs):
    s = input_seat(name, head, user, colour)
    s["extra"] = "inputs = %s\n" % inputs
    return s


def test_seats_take_usb_ports_by_path_and_by_hub(rig, usb):
    # s1: everything behind the hub on port 1 (sysfs:); s2: port 2 (path:).
    hub = usb("usb-hub", "1")
    hub_keyboard = usb("usb-kbd", "1.1")
    hub_mouse = usb("usb-mouse", "1.2")
    keyboard = usb("usb-kbd", "2")
    text = seat_map("x11", [
        usb_seat("s1", 2, "lab1", SEAT_COLOURS[0], "sysfs:%s" % hub.syspath),
        usb_seat("s2", 3, "lab2", SEAT_COLOURS[1], "path:%s" % keyboard.id_path)])
    rig.write_file(CONFIG, text.encode())
    probe = rig.run("%s check --probe %s" % (BIN, CONFIG), check=False)
    sections = dict(re.findall(r"^(seat s\d|no seat's):\n((?:  .*\n)*)", probe.stdout, re.M))
    for node in hub_keyboard.nodes + hub_mouse.nodes:
        assert "  input %s:" % node in sections["seat s1"], probe.stdout
    assert "  input %s:" % keyboard.nodes[0] in sections["seat s2"], probe.stdout
    with Supervisor(rig, text) as sup:
        sup.wait_state("s1", "running")
        sup.wait_state("s2", "running")
        for node in hub_keyboard.nodes + hub_mouse.nodes:
            assert owner(rig, node) == "lab1 600"
        assert owner(rig, keyboard.nodes[0]) == "lab2 600"
        rig.wait_until("grep -q 'Adding input device.*%s' %s/s2/log/Xorg.log"
                       % (keyboard.nodes[0], RUNTIME_DIR), timeout=15)
        # The port-2 keyboard, plugged in last, types into s2 only.
        rig.usb_key("a")
        wait_presses(rig, "%s/s2/session.log" % RUNTIME_DIR, 1)
        time.sleep(1)
        assert presses(rig, "%s/s1/session.log" % RUNTIME_DIR) == "0"
    for node in hub_keyboard.nodes + hub_mouse.nodes + keyboard.nodes:
        assert rig.run("stat -c '%%U %%G %%a' %s" % node).stdout.strip() == SEAT0_NODE


def test_a_usb_keyboard_plugged_into_a_seats_port_types_there_at_once(rig, usb):
    # s2 owns USB port 3 and anything that will ever sit behind it.
    s1 = input_seat("s1", 2, "lab1", SEAT_COLOURS[0])
    s2 = input_seat("s2", 3, "lab2", SEAT_COLOURS[1])
    s2["extra"] = s2["extra"].rstrip("\n") + " path:%s*\n" % rigmod.usb_id_path("3")[:-len(":1.0")]
    primary = rig.spawn("exec stdbuf -oL xev -root -event keyboard", name="primary-xev",
                        env=rig.x_env())
    try:
        with Supervisor(rig, seat_map("x11", [s1, s2])) as sup:
            sup.wait_state("s1", "running")
            sup.wait_state("s2", "running")
            xserver = sup.xserver_pid("s2")
            keyboard = usb("usb-kbd", "3")
            node = keyboard.nodes[0]
            rig.wait_until("[ \"$(stat -c '%%U %%a' %s)\" = 'lab2 600' ]" % node, timeout=10)
            rig.wait_until("grep -q 'Adding input device.*%s' %s/s2/log/Xorg.log"
                           % (node, RUNTIME_DIR), timeout=15)
            sup.wait_log(r"seat s2: plugged in .* \(%s\)" % node)
            rig.usb_key("b")
            wait_presses(rig, "%s/s2/session.log" % RUNTIME_DIR, 1)
            time.sleep(1)
            assert presses(rig, "%s/s1/session.log" % RUNTIME_DIR) == "0"
            assert presses(rig, primary.log) == "0"
            # Unplugged, it leaves s2 running on the same X server.
            rig.usb_remove(keyboard)
            sup.wait_log(r"seat s2: unplugged .* \(%s\)" % node)
            time.sleep(1)
            sup.wait_state("s2", "running", timeout=1)
            assert sup.xserver_pid("s2") == xserver
            assert rig.run("kill -0 %d" % xserver, check=False).status == 0
    finally:
        primary.stop()


def identify(rig, args, name):
    """Starts `seatd-lease identify ARGS` and waits until it listens."""
    proc = rig.spawn("exec stdbuf -oL %s identify %s" % (BIN, args), name=name)
    rig.wait_until("grep -q 'press' %s" % proc.log, timeout=15)
    return proc


def matches(output):
    return re.findall(r"^  inputs = (.*)$", output, re.M)


def accepted_by_check(rig, name, inputs):
    """check accepts a seat with these inputs; returns check --probe's section
    for that seat."""
    text = seat_map("x11", [dict(name=name, outputs="Virtual-2", user="lab1",
                                 extra="inputs = %s\n" % inputs)])
    rig.write_file(CONFIG, text.encode())
    check = rig.run("%s check %s" % (BIN, CONFIG), check=False)
    assert check.status == 0, check.stdout + check.stderr
    probe = rig.run("%s check --probe %s" % (BIN, CONFIG), check=False).stdout
    m = re.search(r"^seat %s:\n((?:  .*\n)*)" % re.escape(name), probe, re.M)
    assert m, probe
    return m.group(1)


def test_identify_names_the_device_a_key_came_from(rig):
    proc = identify(rig, "--timeout 60", "identify")
    try:
        rig.send_key(2, "a")
        rig.click(3, 100, 100)
        rig.wait_until("grep -q '^click' %s" % proc.log, timeout=20)
    finally:
        proc.stop()
    out = proc.output()
    keyboard = event_node(rig, rigmod.keyboard_id_path(2))
    pointer = event_node(rig, rigmod.pointer_id_path(3))
    assert re.search(r'^key on "QEMU Virtio Keyboard" %s\n  ID_PATH %s, not on USB\n'
                     r'  inputs = path:%s$' % (keyboard, rigmod.keyboard_id_path(2),
                                               rigmod.keyboard_id_path(2)), out, re.M), out
    assert re.search(r'^click on "QEMU Virtio Tablet" %s\n' % pointer, out, re.M), out
    line = matches(out)[0]
    section = accepted_by_check(rig, "lab-1", line)
    assert "  input %s: QEMU Virtio Keyboard" % keyboard in section, section
    assert "  input %s:" % pointer not in section, section


def test_identify_seat_gives_one_hub_line_for_keyboard_and_mouse(rig, usb):
    # Started first: devices plugged in while it listens are heard too.
    proc = identify(rig, "--seat lab-1 --timeout 90", "identify-seat")
    try:
        hub = usb("usb-hub", "2")
        keyboard = usb("usb-kbd", "2.1")
        mouse = usb("usb-mouse", "2.2")
        rig.wait_until("[ $(grep -c '^plugged in' %s) -ge 2 ]" % proc.log, timeout=20)
        rig.usb_click()
        rig.wait_until("grep -q 'now press a key' %s" % proc.log, timeout=20)
        rig.usb_key("x")
        assert proc.wait(30) == 0, proc.output()
    finally:
        proc.stop()
    out = proc.output()
    assert "plugged in: \"QEMU QEMU USB Keyboard\" %s" % keyboard.nodes[0] in out, out
    assert re.search(r"^  ID_PATH %s, USB port 1-2\.1 \(%s\)$" % (keyboard.id_path,
                     keyboard.syspath), out, re.M), out
    assert out.endswith("[seat:lab-1]\ninputs = sysfs:%s\n" % hub.syspath), out
    section = accepted_by_check(rig, "lab-1", "sysfs:%s" % hub.syspath)
    for node in keyboard.nodes + mouse.nodes:
        assert "  input %s:" % node in section, section


def test_identify_seat_with_separate_keyboard_and_mouse(rig):
    proc = identify(rig, "--seat s3 --timeout 60", "identify-separate")
    try:
        rig.send_key(3, "q")
        rig.click(3, 10, 10)
        assert proc.wait(30) == 0, proc.output()
    finally:
        proc.stop()
    line = "path:%s path:%s" % (rigmod.keyboard_id_path(3), rigmod.pointer_id_path(3))
    assert proc.output().endswith("[seat:s3]\ninputs = %s\n" % line), proc.output()
    section = accepted_by_check(rig, "s3", line)
    assert "ID_PATH %s\n" % rigmod.keyboard_id_path(3) in section, section
    assert "ID_PATH %s\n" % rigmod.pointer_id_path(3) in section, section


def test_identify_seat_says_what_is_missing_when_time_is_up(rig):
    proc = identify(rig, "--seat s3 --timeout 2", "identify-timeout")
    rig.send_key(2, "k")
    assert proc.wait(30) == 1
    assert "no click in 2 s; seat s3's line is not complete" in proc.output(), proc.output()
    bad = rig.run("%s identify --seat 'lab 1'" % BIN, check=False)
    assert bad.status == 2 and "'lab 1' is not a seat name" in bad.stderr, bad.stderr
    bad = rig.run("%s identify --timeout soon" % BIN, check=False)
    assert bad.status == 2 and "--timeout takes seconds" in bad.stderr, bad.stderr
