#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/netns/run-ct-cli-suite.sh SUITE_DIR - conntrack-tools' own command-line checks, run
# against `pkttables ct` (a served box) and, for reference, against conntrack and the kernel.
#
#   SUITE_DIR: the testsuite directory of a conntrack-tools source tree (tests/conntrack/
#   testsuite of 1.4.7: 11 files, 286 checks), or PT_CT_SUITE. Nothing is fetched and none of
#   it is in this project: without it the test prints SKIP. Its files are data (below); its C
#   driver is not built, this script reads the files as that driver does:
#
#     # comment, or a line starting with a space: skipped
#     WORDS ; OK        run `conntrack WORDS`, the check passes when it exits 0
#     WORDS ; BAD       ... when it exits non-zero
#     WORDS ; |SED      `conntrack WORDS | sed "SED" | ` before the next command (no check)
#     WORDS ;           a line of text fed by `echo "..." | ` to the next command (-R -)
#
# Each side runs every check with its own `conntrack`: a wrapper that execs
# `pkttables ct --socket SOCK` against `pkttables sim --serve` of a box with conntrack on, or
# `ip netns exec NS conntrack` in a fresh namespace (root, conntrack installed; otherwise only
# the box side runs). Prints each check whose result differs between the sides (or that fails
# on the box when there is no kernel side), then the counts. Exit 0 when the box passes every
# check the kernel passes (all of them without a kernel side), 1 otherwise, 77 skipped.
# PT_BIN names the pkttables binary.
cd "$(dirname "$0")/../.." || exit 2
BIN=${PT_BIN:-$PWD/build/pkttables}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
SUITE=${1:-$PT_CT_SUITE}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

skip() { echo "SKIP: $*"; exit 77; }
[ -n "$SUITE" ] || skip "no conntrack-tools testsuite directory given (argument or PT_CT_SUITE)"
[ -d "$SUITE" ] || skip "$SUITE is not a directory"
command -v "$PY" >/dev/null 2>&1 || skip "python3 not installed"
[ -x "$BIN" ] || { echo "FAIL: $BIN missing"; exit 1; }

D=$(mktemp -d /tmp/pt-ct-suite.XXXXXX)
NS=ptcs$$
BOX=""
KERN=no
cleanup() {
	[ -n "$BOX" ] && kill "$BOX" 2>/dev/null && wait "$BOX" 2>/dev/null
	[ $KERN = yes ] && ip netns del "$NS" 2>/dev/null
	rm -rf "$D"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

printf 'box ct\nconntrack on\n' >"$D/box.sim"
timeout -k 2 1200 "$BIN" sim -q --serve "$D/box.ctl" --serve-ready "$D/ready" "$D/box.sim" \
	>"$D/box.log" 2>&1 &
BOX=$!
i=0
while [ ! -s "$D/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$D/ready" ] || { echo "FAIL: the box did not serve"; cat "$D/box.log"; exit 1; }
mkdir "$D/box" "$D/kern"
printf '#!/bin/sh\nexec "%s" ct --socket "%s" "$@"\n' "$BIN" "$D/box.ctl" >"$D/box/conntrack"
chmod +x "$D/box/conntrack"

if [ "$(id -u)" -eq 0 ] && command -v conntrack >/dev/null 2>&1 && ip netns add "$NS" 2>/dev/null
then
	KERN=yes
	ip -n "$NS" link set lo up
	printf '#!/bin/sh\nexec ip netns exec "%s" conntrack "$@"\n' "$NS" >"$D/kern/conntrack"
	chmod +x "$D/kern/conntrack"
	ip netns exec "$NS" conntrack -L >/dev/null 2>&1 || { ip netns del "$NS"; KERN=no; }
fi
[ $KERN = yes ] || echo "note: no kernel side (needs root, conntrack, network namespaces)"

"$PY" - "$SUITE" "$D" "$KERN" <<'EOF'
import os, subprocess, sys

suite, d, kern = sys.argv[1], sys.argv[2], sys.argv[3] == "yes"


def checks():
    """(file, line, shell command, want 'O' or 'B') as the suite's driver builds them."""
    for name in sorted(os.listdir(suite)):
        if name.startswith("."):
            continue
        cmd, pending = "", None
        for no, buf in enumerate(open(os.path.join(suite, name)), 1):
            if buf[:1] in ("#", " "):
                continue
            if ";" not in buf:
                sys.exit("malformed file %s at line %d" % (name, no))
            words, rest = buf.split(";", 1)
            rest = rest.lstrip(" \t")
            kind = rest[:1]
            opt = rest[1:].lstrip(" \t").split("\n", 1)[0]
            if pending and kind != pending:
                cmd += '" | '
                pending = None
            if kind in ("\n", ""):
                cmd += ('echo "' if not pending else "\n") + words
                pending = "\n"
                continue
            cmd += "CONNTRACK " + words
            if kind == "|":
                cmd += " | " + ('sed "%s" | ' % opt if opt else "")
                continue
            yield name, no, cmd, kind
            cmd = ""


def run(side, cmd):
    prog = os.path.join(d, side, "conntrack")
    r = subprocess.run(["sh", "-c", cmd.replace("CONNTRACK", prog)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
    return r.returncode == 0


sides = ["kern", "box"] if kern else ["box"]
ok = {s: 0 for s in sides}
total = differ = 0
for name, no, cmd, want in checks():
    total += 1
    res = {}
    for s in sides:
        res[s] = run(s, cmd) == (want == "O")
        ok[s] += res[s]
    if res["box"] != res.get("kern", True):
        differ += not res["box"]  # a check only the kernel fails is shown, not counted
        print("DIFF %s:%d (%s): kernel %s, pkttables %s" % (
            name, no, cmd.replace("CONNTRACK ", "conntrack "),
            "-" if not kern else ("ok" if res["kern"] else "BAD"),
            "ok" if res["box"] else "BAD"))
if kern:
    print("conntrack and the kernel: OK: %d BAD: %d" % (ok["kern"], total - ok["kern"]))
print("pkttables ct and a box:   OK: %d BAD: %d" % (ok["box"], total - ok["box"]))
sys.exit(1 if differ else 0)
EOF
