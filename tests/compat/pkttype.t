# pkttype match: --pkt-type unicast|broadcast|multicast, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m pkttype --pkt-type unicast;=;OK
-m pkttype --pkt-type broadcast;=;OK
-m pkttype --pkt-type multicast;=;OK
-m pkttype ! --pkt-type broadcast;=;OK
-m pkttype --pkt-type host;-m pkttype --pkt-type unicast;OK
-m pkttype --pkt-type otherhost;=;OK
-m pkttype --pkt-type BROADCAST;-m pkttype --pkt-type broadcast;OK
-m pkttype --pkt-type Multicast;-m pkttype --pkt-type multicast;OK
-m pkttype --pkt-type 0;;FAIL
-m pkttype;;FAIL
-m pkttype --pkt-type foo;;FAIL
-m pkttype --pkt-type unicast --pkt-type multicast;;FAIL
-6
-m pkttype --pkt-type multicast;=;OK
-m pkttype --pkt-type broadcast;=;OK
