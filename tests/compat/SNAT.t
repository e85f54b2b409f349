# SNAT target: --to-source [addr[-addr]][:port[-port]], --random, --random-fully, --persistent;
# nat table, POSTROUTING and INPUT only. Ports need -p tcp|udp|sctp|dccp|udplite (icmp: id).
*nat
:POSTROUTING
-4
-j SNAT --to-source 203.0.113.1;=;OK
-j SNAT --to-source 203.0.113.1-203.0.113.5;=;OK
-j SNAT --to-source 203.0.113.5-203.0.113.1;=;OK
-j SNAT --to-source 203.0.113.1-203.0.113.1;-j SNAT --to-source 203.0.113.1;OK
-p tcp -j SNAT --to-source 203.0.113.1:1000;=;OK
-p tcp -j SNAT --to-source 203.0.113.1:1000-2000;=;OK
-p tcp -j SNAT --to-source 203.0.113.1:1000-1000;-p tcp -j SNAT --to-source 203.0.113.1:1000;OK
-p tcp -j SNAT --to-source 203.0.113.1:2000-1000;;FAIL
-p udp -j SNAT --to-source 203.0.113.1-203.0.113.5:1000-2000;=;OK
-p sctp -j SNAT --to-source 203.0.113.1:1000;=;OK
-p dccp -j SNAT --to-source 203.0.113.1:1000;=;OK
-p udplite -j SNAT --to-source 203.0.113.1:1000;;FAIL
-p icmp -j SNAT --to-source 203.0.113.1:1000;=;OK
-p gre -j SNAT --to-source 203.0.113.1:1000;;FAIL
-j SNAT --to-source 203.0.113.1:1000;;FAIL
! -p tcp -j SNAT --to-source 203.0.113.1:1000;=;OK
-p tcp -j SNAT --to-source :1000;=;OK
-p tcp -j SNAT --to-source :1000-2000;=;OK
-p tcp -j SNAT --to-source 203.0.113.1:0;=;OK
-p tcp -j SNAT --to-source 203.0.113.1:65535;=;OK
-p tcp -j SNAT --to-source 203.0.113.1:65536;;FAIL
-p tcp -j SNAT --to-source 203.0.113.1:http;-p tcp -j SNAT --to-source 203.0.113.1:80;OK
-p tcp -j SNAT --to-source 203.0.113.1:;;FAIL
-p tcp -j SNAT --to-source 203.0.113.1:1000-;;FAIL
-j SNAT --to-source 203.0.113;;FAIL
-j SNAT --to-source 203.0.113.256;;FAIL
-j SNAT --to-source foo;;FAIL
-j SNAT --to-source 0.0.0.0;=;OK
-j SNAT --to-source 203.0.113.1/24;;FAIL
-j SNAT --to-source 2001:db8::1;;FAIL
-j SNAT --to-source 203.0.113.1 --random;=;OK
-j SNAT --to-source 203.0.113.1 --random-fully;=;OK
-j SNAT --to-source 203.0.113.1 --persistent;=;OK
-j SNAT --to-source 203.0.113.1 --persistent --random-fully --random;-j SNAT --to-source 203.0.113.1 --random --random-fully --persistent;OK
-p tcp -j SNAT --to-source 203.0.113.1:1000-2000 --random;=;OK
-j SNAT --to-source 203.0.113.1 --to-source 203.0.113.2;;FAIL
-j SNAT --to-source 203.0.113.1 --random --random;;FAIL
-j SNAT;;FAIL
-j SNAT --random;;FAIL
-s 10.0.0.0/8 -o eth0 -j SNAT --to-source 203.0.113.1;=;OK
:INPUT
-j SNAT --to-source 203.0.113.1;=;OK
:PREROUTING
-j SNAT --to-source 203.0.113.1;;FAIL
:OUTPUT
-j SNAT --to-source 203.0.113.1;;FAIL
*filter
:INPUT
-j SNAT --to-source 203.0.113.1;;FAIL
*mangle
:POSTROUTING
-j SNAT --to-source 203.0.113.1;;FAIL
*nat
:POSTROUTING
-6
-j SNAT --to-source 2001:db8::1;=;OK
-j SNAT --to-source 2001:db8::1-2001:db8::5;=;OK
-j SNAT --to-source [2001:db8::1];-j SNAT --to-source 2001:db8::1;OK
-j SNAT --to-source [2001:db8::1]-[2001:db8::5];;FAIL
-p tcp -j SNAT --to-source [2001:db8::1]:1000;=;OK
-p tcp -j SNAT --to-source [2001:db8::1]:1000-2000;=;OK
-p tcp -j SNAT --to-source [2001:db8::1]-[2001:db8::5]:1000-2000;;FAIL
-p tcp -j SNAT --to-source [2001:db8::1-2001:db8::5]:1000-2000;=;OK
-p tcp -j SNAT --to-source 2001:db8::1:1000;=;OK
-j SNAT --to-source 2001:DB8:0:0::1;-j SNAT --to-source 2001:db8::1;OK
-j SNAT --to-source ::;=;OK
-p udp -j SNAT --to-source [::]:53;=;OK
-p tcp -j SNAT --to-source [2001:db8::1:1000;;FAIL
-j SNAT --to-source 203.0.113.1;;FAIL
-j SNAT --to-source 2001:db8::1 --random --random-fully --persistent;=;OK
-p icmpv6 -j SNAT --to-source [2001:db8::1]:1000;;FAIL
-j SNAT;;FAIL
:INPUT
-j SNAT --to-source 2001:db8::1;=;OK
:PREROUTING
-j SNAT --to-source 2001:db8::1;;FAIL
