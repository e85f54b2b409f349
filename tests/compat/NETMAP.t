# NETMAP target: --to address[/mask]; nat table, any of its chains (DNAT in PREROUTING/OUTPUT,
# SNAT in POSTROUTING/INPUT).
*nat
:PREROUTING
-4
-j NETMAP --to 10.1.0.0/16;=;OK
-j NETMAP --to 10.1.2.3/16;-j NETMAP --to 10.1.0.0/16;OK
-j NETMAP --to 10.1.0.0/255.255.0.0;-j NETMAP --to 10.1.0.0/16;OK
-j NETMAP --to 10.1.0.0/255.0.255.0;-j NETMAP --to 10.1.0.0/32;OK
-j NETMAP --to 10.1.2.3;-j NETMAP --to 10.1.2.3/32;OK
-j NETMAP --to 10.1.2.3/32;=;OK
-j NETMAP --to 0.0.0.0/0;=;OK
-j NETMAP --to 10.1.0.0/33;-j NETMAP --to 10.1.0.0/32;OK
-j NETMAP --to 10.1.0.0-10.1.0.5;;FAIL
-j NETMAP --to 2001:db8::/64;;FAIL
-j NETMAP;;FAIL
-j NETMAP --to 10.1.0.0/16 --to 10.2.0.0/16;;FAIL
-p tcp -j NETMAP --to 10.1.0.0/16;=;OK
:POSTROUTING
-j NETMAP --to 10.1.0.0/16;=;OK
:OUTPUT
-j NETMAP --to 10.1.0.0/16;=;OK
:INPUT
-j NETMAP --to 10.1.0.0/16;=;OK
*filter
:FORWARD
-j NETMAP --to 10.1.0.0/16;;FAIL
*nat
:PREROUTING
-6
-j NETMAP --to 2001:db8:1::/48;=;OK
-j NETMAP --to 2001:db8:1::5/48;-j NETMAP --to 2001:db8:1::/48;OK
-j NETMAP --to 2001:db8:1::5;-j NETMAP --to 2001:db8:1::5/128;OK
-j NETMAP --to 2001:db8:1::/129;;FAIL
-j NETMAP --to 10.1.0.0/16;;FAIL
:POSTROUTING
-j NETMAP --to 2001:db8:1::/48;=;OK
