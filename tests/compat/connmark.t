# connmark match: [!] --mark value[/mask] (the connection's mark).
*filter
:INPUT,FORWARD,OUTPUT
-m connmark --mark 1;-m connmark --mark 0x1;OK
-m connmark --mark 0x1;=;OK
-m connmark --mark 0;-m connmark --mark 0x0;OK
-m connmark --mark 0x10/0xf0;=;OK
-m connmark --mark 1/0xffffffff;-m connmark --mark 0x1;OK
-m connmark --mark 0xffffffff;=;OK
-m connmark ! --mark 5;-m connmark ! --mark 0x5;OK
-m connmark ! --mark 5/0xff;-m connmark ! --mark 0x5/0xff;OK
-m connmark --mark 010;-m connmark --mark 0x8;OK
-m connmark --mark 4294967295;-m connmark --mark 0xffffffff;OK
-m connmark --mark 0x100000000;;FAIL
-m connmark --mark foo;;FAIL
-m connmark --mark -1;;FAIL
-m connmark;;FAIL
-m connmark --mark 1 --mark 2;;FAIL
-m connmark --mark 1/;;FAIL
-m connmark --mark 0x1 -j ACCEPT;=;OK
-p tcp -m connmark --mark 0x1 -m tcp --dport 22 -j DROP;=;OK
*mangle
:PREROUTING
-m connmark --mark 7/0x7;-m connmark --mark 0x7/0x7;OK
*raw
:PREROUTING
-m connmark --mark 1;-m connmark --mark 0x1;OK
*nat
:PREROUTING
-m connmark --mark 1;-m connmark --mark 0x1;OK
-6
*filter
:INPUT
-m connmark --mark 0x3/0x3;=;OK
-m connmark ! --mark 1;-m connmark ! --mark 0x1;OK
*filter
:INPUT
-4
-m connmark --mark 0x1/0x2/0x3;;FAIL
-m connmark --mark 0x10/0;-m connmark --mark 0x10/0x0;OK
