# MASQUERADE target: [--to-ports port[-port]] [--random] [--random-fully]; nat POSTROUTING only
# (INPUT too? the oracle says). Ports need -p tcp|udp|sctp|dccp|udplite.
*nat
:POSTROUTING
-4
-j MASQUERADE;=;OK
-o eth0 -j MASQUERADE;=;OK
-p tcp -j MASQUERADE --to-ports 1000;=;OK
-p tcp -j MASQUERADE --to-ports 1000-2000;=;OK
-p udp -j MASQUERADE --to-ports 1000:2000;;FAIL
-p tcp -j MASQUERADE --to-ports 2000-1000;;FAIL
-p tcp -j MASQUERADE --to-ports 0;=;OK
-p tcp -j MASQUERADE --to-ports 65536;;FAIL
-p tcp -j MASQUERADE --to-ports http;-p tcp -j MASQUERADE --to-ports 80;OK
-p sctp -j MASQUERADE --to-ports 1000;=;OK
-p icmp -j MASQUERADE --to-ports 1000;=;OK
-j MASQUERADE --to-ports 1000;;FAIL
-j MASQUERADE --random;=;OK
-j MASQUERADE --random-fully;=;OK
-j MASQUERADE --random-fully --random;-j MASQUERADE --random --random-fully;OK
-p tcp -j MASQUERADE --to-ports 1000-2000 --random;=;OK
-j MASQUERADE --persistent;;FAIL
-j MASQUERADE --to-source 203.0.113.1;;FAIL
-p tcp -j MASQUERADE --to-ports 1000 --to-ports 2000;;FAIL
:INPUT
-j MASQUERADE;;FAIL
:OUTPUT
-j MASQUERADE;;FAIL
:PREROUTING
-j MASQUERADE;;FAIL
*filter
:OUTPUT
-j MASQUERADE;;FAIL
*nat
:POSTROUTING
-6
-j MASQUERADE;=;OK
-p tcp -j MASQUERADE --to-ports 1000-2000;=;OK
-j MASQUERADE --random-fully;=;OK
-p ipv6-icmp -j MASQUERADE --to-ports 1000;;FAIL
:INPUT
-j MASQUERADE;;FAIL
:PREROUTING
-j MASQUERADE;;FAIL
