# DNAT target: --to-destination [addr[-addr]][:port[-port]], --random, --random-fully, --persistent;
# nat table, PREROUTING and OUTPUT only. Ports need -p tcp|udp|sctp|dccp|udplite (icmp: id).
*nat
:PREROUTING
-4
-j DNAT --to-destination 203.0.113.1;=;OK
-j DNAT --to-destination 203.0.113.1-203.0.113.5;=;OK
-j DNAT --to-destination 203.0.113.5-203.0.113.1;=;OK
-j DNAT --to-destination 203.0.113.1-203.0.113.1;-j DNAT --to-destination 203.0.113.1;OK
-p tcp -j DNAT --to-destination 203.0.113.1:1000;=;OK
-p tcp -j DNAT --to-destination 203.0.113.1:1000-2000;=;OK
-p tcp -j DNAT --to-destination 203.0.113.1:1000-1000;-p tcp -j DNAT --to-destination 203.0.113.1:1000;OK
-p tcp -j DNAT --to-destination 203.0.113.1:2000-1000;;FAIL
-p udp -j DNAT --to-destination 203.0.113.1-203.0.113.5:1000-2000;=;OK
-p sctp -j DNAT --to-destination 203.0.113.1:1000;=;OK
-p dccp -j DNAT --to-destination 203.0.113.1:1000;=;OK
-p udplite -j DNAT --to-destination 203.0.113.1:1000;;FAIL
-p icmp -j DNAT --to-destination 203.0.113.1:1000;=;OK
-p gre -j DNAT --to-destination 203.0.113.1:1000;;FAIL
-j DNAT --to-destination 203.0.113.1:1000;;FAIL
! -p tcp -j DNAT --to-destination 203.0.113.1:1000;=;OK
-p tcp -j DNAT --to-destination :1000;=;OK
-p tcp -j DNAT --to-destination :1000-2000;=;OK
-p tcp -j DNAT --to-destination 203.0.113.1:0;=;OK
-p tcp -j DNAT --to-destination 203.0.113.1:65535;=;OK
-p tcp -j DNAT --to-destination 203.0.113.1:65536;;FAIL
-p tcp -j DNAT --to-destination 203.0.113.1:http;-p tcp -j DNAT --to-destination 203.0.113.1:80;OK
-p tcp -j DNAT --to-destination 203.0.113.1:;;FAIL
-p tcp -j DNAT --to-destination 203.0.113.1:1000-;;FAIL
-j DNAT --to-destination 203.0.113;;FAIL
-j DNAT --to-destination 203.0.113.256;;FAIL
-j DNAT --to-destination foo;;FAIL
-j DNAT --to-destination 0.0.0.0;=;OK
-j DNAT --to-destination 203.0.113.1/24;;FAIL
-j DNAT --to-destination 2001:db8::1;;FAIL
-j DNAT --to-destination 203.0.113.1 --random;=;OK
-j DNAT --to-destination 203.0.113.1 --random-fully;;FAIL
-j DNAT --to-destination 203.0.113.1 --persistent;=;OK
-j DNAT --to-destination 203.0.113.1 --persistent --random-fully --random;;FAIL
-p tcp -j DNAT --to-destination 203.0.113.1:1000-2000 --random;=;OK
-j DNAT --to-destination 203.0.113.1 --to-source 203.0.113.2;;FAIL
-j DNAT --to-destination 203.0.113.1 --random --random;;FAIL
-j DNAT;;FAIL
-j DNAT --random;;FAIL
-s 10.0.0.0/8 -o eth0 -j DNAT --to-destination 203.0.113.1;;FAIL
:OUTPUT
-j DNAT --to-destination 203.0.113.1;=;OK
:POSTROUTING
-j DNAT --to-destination 203.0.113.1;;FAIL
:INPUT
-j DNAT --to-destination 203.0.113.1;;FAIL
*filter
:OUTPUT
-j DNAT --to-destination 203.0.113.1;;FAIL
*mangle
:PREROUTING
-j DNAT --to-destination 203.0.113.1;;FAIL
*nat
:PREROUTING
-6
-j DNAT --to-destination 2001:db8::1;=;OK
-j DNAT --to-destination 2001:db8::1-2001:db8::5;=;OK
-j DNAT --to-destination [2001:db8::1];-j DNAT --to-destination 2001:db8::1;OK
-j DNAT --to-destination [2001:db8::1]-[2001:db8::5];;FAIL
-p tcp -j DNAT --to-destination [2001:db8::1]:1000;=;OK
-p tcp -j DNAT --to-destination [2001:db8::1]:1000-2000;=;OK
-p tcp -j DNAT --to-destination [2001:db8::1]-[2001:db8::5]:1000-2000;;FAIL
-p tcp -j DNAT --to-destination [2001:db8::1-2001:db8::5]:1000-2000;=;OK
-p tcp -j DNAT --to-destination 2001:db8::1:1000;=;OK
-j DNAT --to-destination 2001:DB8:0:0::1;-j DNAT --to-destination 2001:db8::1;OK
-j DNAT --to-destination ::;=;OK
-p udp -j DNAT --to-destination [::]:53;=;OK
-p tcp -j DNAT --to-destination [2001:db8::1:1000;;FAIL
-j DNAT --to-destination 203.0.113.1;;FAIL
-j DNAT --to-destination 2001:db8::1 --random --random-fully --persistent;;FAIL
-p icmpv6 -j DNAT --to-destination [2001:db8::1]:1000;;FAIL
-j DNAT;;FAIL
:OUTPUT
-j DNAT --to-destination 2001:db8::1;=;OK
:POSTROUTING
-j DNAT --to-destination 2001:db8::1;;FAIL
