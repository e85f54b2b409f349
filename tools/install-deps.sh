#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tools/install-deps.sh [--bench] - installs the Debian (12) packages pkttables needs to build,
# demo and test, only those missing; with --bench also the heavy ones only benchmarks use.
# Runs apt-get as root, through sudo otherwise. Safe to run again: it does nothing (and prints
# nothing) when all are in. `make deps` (so `make demo` and `make check`) runs it plain, `make
# bench` with --bench.
#
# The lists below: one package a line, then the architectures it exists on (none = all), then
# `#` and what calls it. Add a line where it belongs; keep one package a line (easy to merge).
# A package not built for this machine's architecture is left out with a note (its users must
# detect its absence, as tests detect a missing tool and skip).
#
# While it installs, services of the packages are not started (a policy-rc.d that says no,
# removed afterwards, unless the machine has its own): they are test tools here, run by the
# tests inside their own network namespaces, never daemons on the host.
set -e

base() {
	cat <<'EOF'
# ---- the build
gcc                        # the compiler (cc, also ld and nm through binutils)
make
pkg-config                 # the Makefile asks it for the libraries' flags
libpcap-dev
libedit-dev
libmnl-dev
liburcu-dev
libcmocka-dev              # unit tests
libnetfilter-queue-dev
# ---- tests: programs they run
procps                     # sysctl (forwarding, DAD and router solicitations off), ps, kill, pkill
iproute2                   # ip (netns, veth, addr, route, neigh), ss, tc
iptables                   # iptables, ip6tables, -save, -restore, -legacy: the kernel as reference
conntrack                  # the kernel's conntrack table (tests/netns/run-ct-tools.sh)
ethtool                    # offloads off on veths
iputils-ping               # ping through the live router
curl                       # downloads through the live router
python3-scapy              # python3 and scapy: packet builders, servers and clients in tests
stun-client                # stun (tests/netns/run-stun.sh)
stun-server                # stund
coturn                     # turnserver, turnutils_natdiscovery (RFC 5780)
socat                      # sockets and ptys from shell tests
netcat-openbsd             # nc
tcpdump                    # captures on test links
clang                      # libFuzzer targets (tests/fuzz, make fuzz)
libclang-rt-14-dev         # clang's fuzzer and sanitizer runtimes
clang-format               # make fmt
# ---- benchmarks (make bench) and their smoke test
valgrind                   # callgrind instruction counts
gnuplot-nox                # build/bench.png
iperf3                     # bench/live.sh
# ---- references and libraries for the work on conntrack sync, VRRP, sets, XDP, DPI, crypto
conntrackd
keepalived
ipset
netsniff-ng                # trafgen, mausezahn
libbpf-dev
libxdp-dev
xdp-tools                  # xdp-loader, xdp-bench
libhyperscan-dev amd64     # Hyperscan exists for x86-64 only
libsodium-dev
EOF
}

bench() {
	cat <<'EOF'
# ---- only for benchmarks: about 220 packages, 180 MiB installed, so not in `make deps`
dpdk-dev
EOF
}

lists=base
case ${1:-} in
--bench) lists="base bench" ;;
"") ;;
*) echo "usage: tools/install-deps.sh [--bench]" >&2; exit 2 ;;
esac

arch=$(dpkg --print-architecture)
missing=""
# needed NAME [ARCH...] lines on stdin: the names of those not installed
needed() {
	sed 's/#.*//' | while read -r p archs; do
		[ -n "$p" ] || continue
		if [ -n "$archs" ]; then
			case " $archs " in
			*" $arch "*) ;;
			*) echo "install-deps: $p is not built for $arch: left out" >&2; continue ;;
			esac
		fi
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
			echo "$p"
	done
}
for l in $lists; do
	missing="$missing $($l | needed)"
done
# shellcheck disable=SC2086
missing=$(echo $missing)
[ -z "$missing" ] && exit 0
echo "install-deps: installing: $missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

# No service starts during the install (see above); our policy-rc.d is removed on every way out.
policy=/usr/sbin/policy-rc.d
ours=""
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# tools/install-deps.sh (pkttables), removed when it ends\nexit 101\n' |
		$SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && ours=1
fi
trap '[ -z "$ours" ] || $SUDO rm -f "$policy"' EXIT
trap 'exit 1' INT TERM HUP

$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
