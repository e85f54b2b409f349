# -m set (xt_set revision 4). The sets exist in the oracle's namespace first:
# ipset: create s4 hash:ip counters
# ipset: create s6 hash:ip family inet6
# ipset: create ipp hash:ip,port
# ipset: create ipn hash:ip,port,net
# ipset: create l list:set
*filter
:INPUT,FORWARD,OUTPUT
-m set --match-set s4 src;=;OK
-m set --match-set s4 dst -j DROP;=;OK
-m set ! --match-set s4 src;=;OK
-m set --match-set s4 src,dst;=;OK
-m set --match-set s4 src,dst,src,dst,src,dst;=;OK
-m set --match-set s4 src,dst,src,dst,src,dst,src;;FAIL
-m set --match-set s4 foo;;FAIL
-m set --match-set s4;;FAIL
-m set --match-set s4 src --return-nomatch;=;OK
-m set --match-set s4 src ! --update-counters;=;OK
-m set --match-set s4 src ! --update-subcounters;=;OK
-m set --match-set s4 src --update-counters;-m set --match-set s4 src;OK
-m set --match-set s4 src --packets-eq 5;=;OK
-m set --match-set s4 src ! --packets-eq 5;=;OK
-m set --match-set s4 src --packets-lt 5;=;OK
-m set --match-set s4 src --packets-gt 5;=;OK
-m set --match-set s4 src --bytes-eq 100;=;OK
-m set --match-set s4 src ! --bytes-eq 100;=;OK
-m set --match-set s4 src --bytes-lt 100;=;OK
-m set --match-set s4 src --bytes-gt 100;=;OK
-m set --match-set s4 src --packets-gt 5 --bytes-lt 100;=;OK
-m set --match-set s4 src --bytes-lt 100 --packets-gt 5;-m set --match-set s4 src --packets-gt 5 --bytes-lt 100;OK
-m set --match-set s4 src --return-nomatch ! --update-counters ! --update-subcounters --packets-gt 5 ! --bytes-eq 4;=;OK
-m set --packets-gt 5 --match-set s4 src;-m set --match-set s4 src --packets-gt 5;OK
-m set --match-set ipp src,dst;=;OK
-m set --match-set ipn dst,dst,src;=;OK
-m set --match-set l src;=;OK
-m set --match-set s4 src -m set ! --match-set ipp dst,dst;=;OK
-p tcp -m set --match-set ipp src,src -j REJECT --reject-with tcp-reset;=;OK
-6
-m set --match-set s6 src;=;OK
-m set ! --match-set s6 dst -j DROP;=;OK
