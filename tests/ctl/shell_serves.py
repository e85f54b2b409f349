# SPDX-License-Identifier: GPL-2.0-or-later
# tests/ctl/shell_serves.py BIN DIR - the interactive simulator (on a pty) answers the control
# socket while it waits for a key, even in the middle of a line; prints PASS:/FAIL: lines.
import os, pty, select, subprocess, sys, time

BIN, D = sys.argv[1], sys.argv[2]
sock = os.path.join(D, "sh.ctl")
fails = 0


def check(ok, what):
    global fails
    print(("PASS: " if ok else "FAIL: ") + what)
    fails += not ok


def read_for(fd, seconds):
    out, end = b"", time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out.decode(errors="replace")


def until(fd, text, seconds=5):
    out, end = "", time.time() + seconds
    while text not in out and time.time() < end:
        out += read_for(fd, 0.1)
    return text in out


def rules(*args):
    return subprocess.run(["timeout", "5", BIN, "rules", "--socket", sock] + list(args),
                          capture_output=True, text=True)


pid, fd = pty.fork()
if pid == 0:
    os.environ["HOME"] = D
    os.execv(BIN, [BIN, "sim", "-q"])
until(fd, "pkttables> ")
for line in ["box fw", "iface lan0",
             "rules <<EOF", "*filter", ":INPUT DROP [0:0]", "COMMIT", "EOF",
             "ctl listen " + sock]:
    os.write(fd, (line + "\r").encode())
check(until(fd, "serving " + sock), "ctl listen in the shell prints 'serving PATH'")
os.write(fd, b"show cou")  # half a line typed: the shell is inside libedit's read
time.sleep(0.2)
r = rules("save")
check(r.returncode == 0 and ":INPUT DROP" in r.stdout,
      "rules save answered while a line is half typed (%r)" % (r.stderr.strip(),))
r = rules("policy", "INPUT", "ACCEPT")
check(r.returncode == 0, "rules policy answered from the shell's wait")
os.write(fd, b"nters\r")
check(until(fd, "policy ACCEPT"), "the shell's own show counters sees the policy set over the socket")
os.write(fd, b"quit\r")
end = time.time() + 5
while time.time() < end:
    p, status = os.waitpid(pid, os.WNOHANG)
    if p:
        break
    read_for(fd, 0.1)
else:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    status = -1
check(status == 0 and not os.path.exists(sock), "quit: exit 0, socket removed")
sys.exit(1 if fails else 0)
