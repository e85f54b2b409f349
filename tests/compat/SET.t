# -j SET (xt_SET revision 3). The sets exist in the oracle's namespace first:
# ipset: create t4 hash:ip timeout 600 skbinfo
# ipset: create t6 hash:ip family inet6 timeout 600
# ipset: create tpp hash:ip,port
*filter
:INPUT,FORWARD,OUTPUT
-j SET --add-set t4 src;=;OK
-j SET --add-set t4 src --exist;=;OK
-j SET --add-set t4 src --timeout 100;=;OK
-j SET --add-set t4 src --exist --timeout 100;=;OK
-j SET --add-set t4 src --timeout 100 --exist;-j SET --add-set t4 src --exist --timeout 100;OK
-j SET --del-set t4 dst;=;OK
-j SET --add-set t4 src --del-set tpp dst,dst;=;OK
-j SET --del-set tpp dst,dst --add-set t4 src;-j SET --add-set t4 src --del-set tpp dst,dst;OK
-j SET --add-set tpp src,dst;=;OK
-j SET;;FAIL
-j SET --add-set t4;;FAIL
-j SET --del-set t4 src --exist;;FAIL
-j SET --map-set t4 src --map-mark;;FAIL
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j SET --map-set t4 src --map-mark;=;OK
-j SET --map-set t4 dst --map-mark --map-prio --map-queue;;FAIL
-j SET --map-set t4 dst --map-prio;;FAIL
-j SET --map-set t4 src;;FAIL
:FORWARD
-j SET --map-set t4 dst --map-mark --map-prio --map-queue;=;OK
-j SET --map-set t4 dst --map-prio;=;OK
-6
*filter
:INPUT,FORWARD,OUTPUT
-j SET --add-set t6 src --exist --timeout 30;=;OK
