# ecn match: --ecn-tcp-cwr --ecn-tcp-ece --ecn-ip-ect N, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-p tcp -m ecn --ecn-tcp-cwr;=;OK
-p tcp -m ecn --ecn-tcp-ece;=;OK
-p tcp -m ecn ! --ecn-tcp-ece;=;OK
-p tcp -m ecn --ecn-tcp-ece --ecn-tcp-cwr;=;OK
-m ecn --ecn-ip-ect 0;=;OK
-m ecn --ecn-ip-ect 3;=;OK
-m ecn ! --ecn-ip-ect 1;=;OK
-m ecn --ecn-ip-ect 4;;FAIL
-p tcp -m ecn --ecn-ip-ect 2 --ecn-tcp-cwr;-p tcp -m ecn --ecn-tcp-cwr --ecn-ip-ect 2;OK
-m ecn --ecn-tcp-cwr;;FAIL
-p udp -m ecn --ecn-tcp-cwr;;FAIL
-m ecn;;FAIL
-6
-p tcp -m ecn --ecn-tcp-ece;=;OK
-m ecn --ecn-ip-ect 1;=;OK
