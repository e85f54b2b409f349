# ipv4options match (xtables-addons, NOT in stock iptables 1.8.9).
# hand-written, not from the kernel oracle: iptables here has no libxt_ipv4options, so
# oracle.sh skips this file.  Expected strings follow the xtables-addons man page and its
# userspace save routine: option names accepted on input are nop, security, lsrr, timestamp,
# record-route, ssrr, mtu-probe, mtu-reply, traceroute, router-alert (or numbers 1..31);
# iptables-save prints them as numbers in ascending order, each negated one prefixed by '!',
# followed by --any if given.  A bare "-m ipv4options" (no --flags) is valid.
# The brief spelled the flags "lsrr,ssrr,rr,ts,ra"; rr/ts/ra are not names the module knows
# (it wants record-route/timestamp/router-alert), so they are listed as FAIL here.
*filter
:INPUT,FORWARD,OUTPUT
-m ipv4options --flags lsrr;-m ipv4options --flags 3;OK
-m ipv4options --flags ssrr;-m ipv4options --flags 9;OK
-m ipv4options --flags lsrr,ssrr;-m ipv4options --flags 3,9;OK
-m ipv4options --flags ssrr,lsrr;-m ipv4options --flags 3,9;OK
-m ipv4options --flags lsrr,ssrr --any;-m ipv4options --flags 3,9 --any;OK
-m ipv4options --flags lsrr,ssrr,record-route,timestamp,router-alert --any;-m ipv4options --flags 3,4,7,9,20 --any;OK
-m ipv4options --flags nop,timestamp;-m ipv4options --flags 1,4;OK
-m ipv4options --flags !nop,timestamp;-m ipv4options --flags !1,4;OK
-m ipv4options --flags "!nop,timestamp" --any;-m ipv4options --flags !1,4 --any;OK
-m ipv4options --flags !lsrr,!ssrr;-m ipv4options --flags !3,!9;OK
-m ipv4options --flags security,mtu-probe,mtu-reply,traceroute;-m ipv4options --flags 2,11,12,18;OK
-m ipv4options --flags 7;-m ipv4options --flags 7;OK
-m ipv4options --flags 3,9 --any;=;OK
-m ipv4options --flags !1,4;=;OK
-m ipv4options --flags 31;=;OK
-m ipv4options --any --flags lsrr;-m ipv4options --flags 3 --any;OK
-m ipv4options;=;OK
-m ipv4options --any;=;OK
-m ipv4options --flags rr;;FAIL
-m ipv4options --flags ts;;FAIL
-m ipv4options --flags ra;;FAIL
-m ipv4options --flags lsrr,ssrr,rr,ts,ra --any;;FAIL
-m ipv4options --flags LSRR;;FAIL
-m ipv4options --flags 0;;FAIL
-m ipv4options --flags 256;;FAIL
-m ipv4options --flags foo;;FAIL
-m ipv4options ! --flags lsrr;;FAIL
-m ipv4options ! --any;;FAIL
-m ipv4options --flags;;FAIL
-6
-m ipv4options --flags lsrr;;FAIL
