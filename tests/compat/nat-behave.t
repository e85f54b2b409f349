# pkttables' BEHAVE options of SNAT and MASQUERADE (docs/nat.md): hand-written, not from the
# kernel oracle (iptables has no such options). A rule without them prints as iptables-save.
*nat
:POSTROUTING
-4
-j SNAT --to-source 203.0.113.1 --mapping endpoint-independent;=;OK
-j SNAT --to-source 203.0.113.1 --mapping address-dependent --filtering endpoint-independent;=;OK
-j SNAT --to-source 203.0.113.1 --filtering address-port-dependent --mapping address-port-dependent;-j SNAT --to-source 203.0.113.1 --mapping address-port-dependent --filtering address-port-dependent;OK
-j SNAT --to-source 203.0.113.1 --refresh both;=;OK
-j SNAT --to-source 203.0.113.1 --refresh outbound --hairpin;=;OK
-j SNAT --to-source 203.0.113.1 --no-hairpin --random;-j SNAT --to-source 203.0.113.1 --random --no-hairpin;OK
-j SNAT --to-source 203.0.113.1 --hairpin --no-hairpin;;FAIL
-j SNAT --to-source 203.0.113.1 --mapping full-cone;;FAIL
-j SNAT --to-source 203.0.113.1 --refresh inbound;;FAIL
-j SNAT --to-source 203.0.113.1 --mapping;;FAIL
-j MASQUERADE --mapping endpoint-independent --filtering address-dependent;=;OK
-p udp -j MASQUERADE --to-ports 1024-65535 --random-fully --mapping endpoint-independent;=;OK
-j MASQUERADE --no-hairpin;=;OK
-6
-j MASQUERADE --filtering endpoint-independent --refresh both;=;OK
-j SNAT --to-source 2001:db8::1 --mapping address-dependent;=;OK
*nat
:PREROUTING
-4
-j DNAT --to-destination 10.0.0.2 --mapping endpoint-independent;;FAIL
-j REDIRECT --hairpin;;FAIL
