# Canonical forms iptables-save 1.8.9 prints: service names with a dash, port shifts of the
# NAT targets, inverted full port ranges (which iptables-nft leaves out of the rule).
*filter
:INPUT
-p tcp --dport ftp-data;-p tcp -m tcp --dport 20;OK
-p tcp --sport ftp-data:ftp;-p tcp -m tcp --sport 20:21;OK
-p tcp -m multiport --dports ftp-data,ssh;-p tcp -m multiport --dports 20,22;OK
-p udp --dport netbios-ns;-p udp -m udp --dport 137;OK
-p tcp ! --sport :;-p tcp;OK
-p tcp --sport :;-p tcp -m tcp;OK
-p udp ! --dport :;-p udp;OK
-p tcp ! --dport 0:65535;-p tcp;OK
-p tcp --dport 1024:;-p tcp -m tcp --dport 1024:65535;OK
-p tcp --dport :1023;-p tcp -m tcp --dport 0:1023;OK
-p tcp --dport www-http;;FAIL
*nat
:PREROUTING
-p tcp -j DNAT --to-destination 10.0.0.1:1000-2000/1000;=;OK
-p tcp -j DNAT --to-destination 10.0.0.1:1000-2000/3000;=;OK
-p tcp -j DNAT --to-destination 10.0.0.1-10.0.0.5:1000-2000/1000;=;OK
-p tcp -j DNAT --to-destination 10.0.0.1:ftp-data;-p tcp -j DNAT --to-destination 10.0.0.1:20;OK
-p tcp -j REDIRECT --to-ports 1000-2000/1000;;FAIL
:POSTROUTING
-p tcp -j SNAT --to-source 10.0.0.1:1000-2000/1000;-p tcp -j SNAT --to-source 10.0.0.1:1000-2000/0;OK
-p tcp -j MASQUERADE --to-ports 1000-2000/1000;-p tcp -j MASQUERADE --to-ports 1000-2000/0;OK
# inverted full ranges combined with other tests
*filter
:INPUT
-p tcp ! --sport : --dport 80;-p tcp -m tcp --dport 80;OK
-p tcp ! --sport : ! --dport :;-p tcp;OK
-p tcp --sport : ! --dport :;-p tcp;OK
-p tcp ! --sport : --syn;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN;OK
-p udp ! --sport 0:65535 --dport 53;-p udp -m udp --dport 53;OK
-p tcp -m tcp ! --sport :;-p tcp;OK
