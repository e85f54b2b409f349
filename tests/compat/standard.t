# Standard targets ACCEPT, DROP, RETURN; jumps/gotos to user chains; tables and chains.
# ':NAME' entries that are not built-in chains of the table are user chains (README.md).
*filter
:INPUT,FORWARD,OUTPUT
-j ACCEPT;=;OK
-j DROP;=;OK
-j RETURN;=;OK
--jump ACCEPT;-j ACCEPT;OK
-p tcp -j ACCEPT;=;OK
-j accept;;FAIL
-j Drop;;FAIL
-j QUEUE;;FAIL
-j NOSUCHCHAIN;;FAIL
-j;;FAIL
-j ACCEPT -j DROP;;FAIL
! -j ACCEPT;;FAIL
-g ACCEPT;;FAIL
-s 192.0.2.1 -j DROP;-s 192.0.2.1/32 -j DROP;OK
-j DROP -s 192.0.2.1;-s 192.0.2.1/32 -j DROP;OK
:FORWARD
-i eth0 -o eth1 -j ACCEPT;=;OK
:OUTPUT
-o lo -j ACCEPT;=;OK
*filter
:USERCHAIN
-j RETURN;=;OK
-j ACCEPT;=;OK
-s 192.0.2.0/24 -j RETURN;=;OK
-p tcp --dport 22 -j DROP;-p tcp -m tcp --dport 22 -j DROP;OK
*filter
:INPUT,MYCHAIN,OTHER
-j MYCHAIN;=;OK
-g MYCHAIN;=;OK
--goto OTHER;-g OTHER;OK
-p udp -j OTHER;=;OK
-j mychain;;FAIL
*raw
:PREROUTING,OUTPUT
-j ACCEPT;=;OK
-j DROP;=;OK
-j RETURN;=;OK
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j ACCEPT;=;OK
-j DROP;=;OK
*nat
:PREROUTING,INPUT,OUTPUT,POSTROUTING
-j ACCEPT;=;OK
-j RETURN;=;OK
-j DROP;;FAIL
*security
:INPUT,FORWARD,OUTPUT
-j ACCEPT;=;OK
-j DROP;=;OK
-6
*filter
:INPUT,FORWARD,OUTPUT
-j ACCEPT;=;OK
-j DROP;=;OK
-j RETURN;=;OK
-j NOSUCHCHAIN;;FAIL
*filter
:USERCHAIN6
-j RETURN;=;OK
*nat
:POSTROUTING
-j ACCEPT;=;OK
*raw
:PREROUTING
-j DROP;=;OK
