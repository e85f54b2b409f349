#!/bin/sh
# Installs the Debian packages pkttables needs to build, test and demo, only those missing.
# Runs apt-get as root, through sudo otherwise. Safe to run again: it does nothing when all are in.
set -e
PKGS="gcc make pkg-config libpcap-dev libedit-dev libmnl-dev liburcu-dev libcmocka-dev
      libnetfilter-queue-dev gnuplot-nox valgrind iproute2 iptables tcpdump python3-scapy
      iputils-ping curl ethtool iperf3 conntrack stun-client stun-server coturn
      clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
