#!/bin/sh
# keepalived's notify script for a pkttables pair: conntrackd's primary-backup.sh, with
# `pkttables sync` in conntrackd's place (docs/sync.md). $1: primary | backup | fault.
# PT: the pkttables binary; BOX: this box's control socket name (the config's `control`).
PT=${PT:-/usr/local/bin/pkttables}
BOX=${BOX:-$(hostname -s)}
sync() { "$PT" sync --name "$BOX" "$@" || logger -t pkttables-failover "sync $* failed"; }

case $1 in
primary)
	# the connections the old primary replicated go into our table (conntrackd -c)
	sync commit
	# forget both caches (-f): what we received is in the table now
	sync flush
	# conntrackd -R has no equivalent: our table is the internal cache
	# tell the new backup everything we have (-B)
	sync bulk
	;;
backup | fault)
	# ask the new primary for its whole table (conntrackd -n). conntrackd's backup also
	# schedules a flush of its kernel table (-t); a pkttables backup keeps its table, whose
	# entries time out as usual.
	sync resync
	;;
*)
	echo "usage: $0 primary|backup|fault" >&2
	exit 2
	;;
esac
exit 0
