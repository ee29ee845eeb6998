"""The rig's own tests: what every later test relies on, on one three-head
guest with a primary Xorg. Each test leaves the guest as it found it."""

import os
import re

import pytest

import rig

RIG = dict(heads=3, xorg=True)

PRIMARY = "#3060c0"
HEAD_COLOURS = {1: "#d02020", 2: "#20b040", 3: "#e0c010"}
LESSEE = "#c040c0"

# What each head is sent, and the evdev code the guest must see for it:
# different on each head, or a mix-up of heads would go unseen.
HEAD_KEYS = {1: ("a", 30), 2: ("b", 48), 3: ("c", 46)}
HEAD_BUTTONS = {1: ("left", 272), 2: ("right", 273), 3: ("middle", 274)}

PROBE = os.path.join(rig.build_dir(), "tests", "vm", "lease-probe")
EVDEV_LOG = os.path.join(rig.HERE, "evdev-log")


def assert_head_colour(guest, head, spec, share=0.9):
    picture = guest.wait_for_colour(head, rig.colour(spec), share=share)
    assert picture.share(rig.colour(spec)) >= share, \
        "head %d shows mostly %s, not %s" % (head, picture.dominant(), spec)


def primary_outputs(guest):
    out = guest.run("xrandr --query", env=guest.x_env()).stdout
    return dict(re.findall(r"^(Virtual-\d+) (connected|disconnected)", out, re.M))


@pytest.fixture
def primary_painted(guest):
    guest.run("xsetroot -solid '%s'" % PRIMARY, env=guest.x_env())


def test_each_head_shows_what_the_primary_draws_there(guest, primary_painted):
    for head in (1, 2, 3):
        assert_head_colour(guest, head, PRIMARY)

    # A window of its own colour on each head, placed where the primary put
    # that head: tells the heads apart, which one root colour cannot.
    # 170x59 characters of the built-in 6x13 font nearly fill 1024x768.
    windows = [guest.spawn("exec xterm -fn fixed -bg '%s' -geometry 170x59+%d+0 -e sleep 600"
                           % (HEAD_COLOURS[head], (head - 1) * rig.HEAD_WIDTH),
                           name="xterm-head%d" % head, env=guest.x_env())
               for head in (1, 2, 3)]
    try:
        for head in (1, 2, 3):
            assert_head_colour(guest, head, HEAD_COLOURS[head])
    finally:
        for window in windows:
            window.stop()


def test_keys_and_clicks_reach_only_their_heads_devices(guest):
    keyboards = {head: "/dev/input/by-path/%s-event-kbd" % rig.keyboard_id_path(head)
                 for head in (1, 2, 3)}
    pointers = {head: "/dev/input/by-path/%s-event-mouse" % rig.pointer_id_path(head)
                for head in (1, 2, 3)}
    ready = "/tmp/evdev-log.ready"
    reader = guest.spawn("rm -f %s; exec %s %s %s %s" % (
        ready, EVDEV_LOG, ready, " ".join(keyboards.values()), " ".join(pointers.values())),
        name="evdev-log")
    try:
        guest.wait_until("[ -e %s ]" % ready)
        for head in (1, 2, 3):
            guest.send_key(head, HEAD_KEYS[head][0])
            guest.click(head, 100, 100, button=HEAD_BUTTONS[head][0])
        # Each head: key down and up, button down and up.
        guest.wait_until("[ $(wc -l <%s) -ge 12 ]" % reader.log)
        # Time for a stray event to come in after the expected ones.
        guest.run("sleep 0.5")
    finally:
        reader.stop()

    seen = {}
    for line in reader.output().splitlines():
        device, code, value = line.split()
        seen.setdefault(device, []).append((int(code), int(value)))
    expected = {}
    for head in (1, 2, 3):
        expected[keyboards[head]] = [(HEAD_KEYS[head][1], 1), (HEAD_KEYS[head][1], 0)]
        expected[pointers[head]] = [(HEAD_BUTTONS[head][1], 1), (HEAD_BUTTONS[head][1], 0)]
    assert seen == expected


def test_hot_added_keyboard_has_its_documented_id_path(guest):
    keyboard = guest.hotplug_keyboard(2)
    try:
        assert keyboard.id_path == rig.hotplug_id_path(keyboard.port)
        props = guest.run("udevadm info -q property %s" % keyboard.node).stdout
        assert "ID_INPUT_KEYBOARD=1" in props.splitlines()
    finally:
        guest.unplug(keyboard)
    assert guest.run("ls /dev/input/by-path/%s-*" % keyboard.id_path, check=False).status != 0


@pytest.fixture
def probe_user(guest):
    guest.run("useradd --no-create-home --shell /usr/sbin/nologin rigprobe")
    yield "rigprobe"
    guest.run("userdel rigprobe")


LESSEE_CONF = """\
Section "Device"
	Identifier "lease"
	Driver "modesetting"
	Option "AccelMethod" "none"
	Option "Monitor-Virtual-2" "lease"
EndSection
Section "Monitor"
	Identifier "lease"
	Option "PreferredMode" "%dx%d"
EndSection
""" % (rig.HEAD_WIDTH, rig.HEAD_HEIGHT)


def test_plain_lease_runs_an_unprivileged_xorg_on_head_2(guest, primary_painted, probe_user):
    assert os.access(PROBE, os.X_OK), "no %s: build the project first" % PROBE
    conf, ready, log = "/tmp/lessee.conf", "/tmp/lessee.ready", "/tmp/Xorg.lessee.log"
    guest.write_file(conf, LESSEE_CONF.encode())
    guest.run("rm -f %s %s" % (ready, log))
    guest.add_log(log)
    # -noreset: this Xorg would reset each time its last client leaves, which
    # repaints its root black (and, seen here, aborts it on exit after a few).
    lessee = guest.spawn(
        "exec %s Virtual-2 %s /usr/lib/xorg/Xorg :2 -seat seat1 -masterfd 3 -config %s"
        " -logfile %s -nolisten tcp -noreset -displayfd 4 4>%s"
        % (PROBE, probe_user, conf, log, ready), name="lease-probe", env=guest.x_env())
    try:
        guest.wait_until("[ -s %s ]" % ready, timeout=60)
        assert guest.run("stat -c %U /proc/$(pgrep -f '^/usr/lib/xorg/Xorg :2')").stdout.strip() \
            == probe_user
        guest.run("xsetroot -display :2 -solid '%s'" % LESSEE)
        assert_head_colour(guest, 2, LESSEE)
        for head in (1, 3):
            assert_head_colour(guest, head, PRIMARY)
        assert primary_outputs(guest) == {
            "Virtual-1": "connected", "Virtual-2": "disconnected", "Virtual-3": "connected"}
    finally:
        status = lessee.stop()
    assert status == 0, lessee.output()
    # The lease ended with its only holder: the primary takes head 2 back.
    assert_head_colour(guest, 2, PRIMARY)
    assert primary_outputs(guest)["Virtual-2"] == "connected"
