# addrtype match: --src-type --dst-type (lists), --limit-iface-in/out, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m addrtype --src-type LOCAL;=;OK
-m addrtype --dst-type LOCAL;=;OK
-m addrtype --dst-type LOCAL,BROADCAST;=;OK
-m addrtype --dst-type BROADCAST,LOCAL;-m addrtype --dst-type LOCAL,BROADCAST;OK
-m addrtype --dst-type local;-m addrtype --dst-type LOCAL;OK
-m addrtype ! --src-type LOCAL;=;OK
-m addrtype --src-type ! LOCAL;;FAIL
-m addrtype ! --dst-type LOCAL,MULTICAST;=;OK
-m addrtype --src-type UNICAST --dst-type MULTICAST;=;OK
-m addrtype ! --src-type UNICAST ! --dst-type MULTICAST;=;OK
-m addrtype --dst-type LOCAL --limit-iface-in;=;OK
-m addrtype --dst-type LOCAL --limit-iface-out;;FAIL
-m addrtype --dst-type LOCAL --limit-iface-in --limit-iface-out;;FAIL
-m addrtype --limit-iface-in;;FAIL
-m addrtype --src-type UNSPEC;=;OK
-m addrtype --src-type ANYCAST;=;OK
-m addrtype --src-type BLACKHOLE,UNREACHABLE,PROHIBIT;=;OK
-m addrtype --src-type THROW,NAT,XRESOLVE;=;OK
-m addrtype --src-type UNSPEC,UNICAST,LOCAL,BROADCAST,ANYCAST,MULTICAST,BLACKHOLE,UNREACHABLE,PROHIBIT,THROW,NAT,XRESOLVE;=;OK
-m addrtype --src-type FOO;;FAIL
-m addrtype --src-type LOCAL,;;FAIL
-m addrtype;;FAIL
-m addrtype --src-type LOCAL --src-type UNICAST;;FAIL
:OUTPUT
-m addrtype --dst-type LOCAL --limit-iface-out;=;OK
-m addrtype --dst-type LOCAL --limit-iface-in;;FAIL
:FORWARD
-m addrtype --dst-type LOCAL --limit-iface-in;=;OK
-m addrtype --dst-type LOCAL --limit-iface-out;=;OK
-6
:INPUT,FORWARD,OUTPUT
-m addrtype --src-type LOCAL;=;OK
-m addrtype --dst-type LOCAL,MULTICAST;=;OK
-m addrtype --dst-type UNICAST --limit-iface-in;=;OK
-m addrtype --dst-type BROADCAST;;FAIL
-m addrtype --dst-type BLACKHOLE;;FAIL
-m addrtype --dst-type PROHIBIT;;FAIL
-m addrtype --dst-type UNREACHABLE;=;OK
-m addrtype --dst-type ANYCAST;=;OK
