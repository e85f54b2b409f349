# REJECT target: every --reject-with value and alias, IPv4 and IPv6; the printed default.
*filter
:INPUT,FORWARD,OUTPUT
-j REJECT;-j REJECT --reject-with icmp-port-unreachable;OK
-j REJECT --reject-with icmp-port-unreachable;=;OK
-j REJECT --reject-with port-unreach;-j REJECT --reject-with icmp-port-unreachable;OK
-j REJECT --reject-with icmp-net-unreachable;=;OK
-j REJECT --reject-with net-unreach;-j REJECT --reject-with icmp-net-unreachable;OK
-j REJECT --reject-with icmp-host-unreachable;=;OK
-j REJECT --reject-with host-unreach;-j REJECT --reject-with icmp-host-unreachable;OK
-j REJECT --reject-with icmp-proto-unreachable;=;OK
-j REJECT --reject-with proto-unreach;-j REJECT --reject-with icmp-proto-unreachable;OK
-j REJECT --reject-with icmp-net-prohibited;=;OK
-j REJECT --reject-with net-prohib;-j REJECT --reject-with icmp-net-prohibited;OK
-j REJECT --reject-with icmp-host-prohibited;=;OK
-j REJECT --reject-with host-prohib;-j REJECT --reject-with icmp-host-prohibited;OK
-j REJECT --reject-with icmp-host-prohib;-j REJECT --reject-with icmp-host-prohibited;OK
-j REJECT --reject-with icmp-admin-prohibited;=;OK
-j REJECT --reject-with admin-prohib;-j REJECT --reject-with icmp-admin-prohibited;OK
-j REJECT --reject-with ICMP-PORT-UNREACHABLE;-j REJECT --reject-with icmp-port-unreachable;OK
-j REJECT --reject-with icmp-host;-j REJECT --reject-with icmp-host-unreachable;OK
-j REJECT --reject-with icmp;-j REJECT --reject-with icmp-net-unreachable;OK
-j REJECT --reject-with tcp-reset;;FAIL
-p tcp -j REJECT --reject-with tcp-reset;=;OK
-p tcp -j REJECT --reject-with tcp-rst;-p tcp -j REJECT --reject-with tcp-reset;OK
-p tcp --dport 113 -j REJECT --reject-with tcp-reset;-p tcp -m tcp --dport 113 -j REJECT --reject-with tcp-reset;OK
-p udp -j REJECT --reject-with tcp-reset;;FAIL
-j REJECT --reject-with icmp-echo-reply;;FAIL
-j REJECT --reject-with echo-reply;;FAIL
-j REJECT --reject-with foo;;FAIL
-j REJECT --reject-with icmp6-port-unreachable;;FAIL
-j REJECT --reject-with;;FAIL
-j REJECT --reject-with net-unreach --reject-with host-unreach;;FAIL
*filter
:USERCHAIN
-j REJECT;-j REJECT --reject-with icmp-port-unreachable;OK
*mangle
:INPUT,FORWARD,OUTPUT
-j REJECT;;FAIL
*mangle
:PREROUTING
-j REJECT;;FAIL
*raw
:PREROUTING
-j REJECT;;FAIL
*nat
:PREROUTING
-j REJECT;;FAIL
-6
*filter
:INPUT,FORWARD,OUTPUT
-j REJECT;-j REJECT --reject-with icmp6-port-unreachable;OK
-j REJECT --reject-with icmp6-port-unreachable;=;OK
-j REJECT --reject-with port-unreach;-j REJECT --reject-with icmp6-port-unreachable;OK
-j REJECT --reject-with icmp6-no-route;=;OK
-j REJECT --reject-with no-route;-j REJECT --reject-with icmp6-no-route;OK
-j REJECT --reject-with icmp6-adm-prohibited;=;OK
-j REJECT --reject-with adm-prohibited;-j REJECT --reject-with icmp6-adm-prohibited;OK
-j REJECT --reject-with icmp6-addr-unreachable;=;OK
-j REJECT --reject-with addr-unreach;-j REJECT --reject-with icmp6-addr-unreachable;OK
-j REJECT --reject-with icmp6-policy-fail;=;OK
-j REJECT --reject-with policy-fail;-j REJECT --reject-with icmp6-policy-fail;OK
-j REJECT --reject-with icmp6-reject-route;=;OK
-j REJECT --reject-with reject-route;-j REJECT --reject-with icmp6-reject-route;OK
-j REJECT --reject-with tcp-reset;;FAIL
-p tcp -j REJECT --reject-with tcp-reset;=;OK
-p tcp -j REJECT --reject-with tcp-rst;;FAIL
-j REJECT --reject-with icmp-port-unreachable;;FAIL
-j REJECT --reject-with icmp-host-prohibited;;FAIL
-j REJECT --reject-with foo;;FAIL
