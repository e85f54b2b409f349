# ECN target (IPv4 only): --ecn-tcp-remove, mangle only.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-p tcp -j ECN --ecn-tcp-remove;=;OK
-j ECN --ecn-tcp-remove;;FAIL
-p tcp -j ECN;;FAIL
-p tcp -j ECN --ecn-tcp-cwr 1;=;OK
-p tcp -j ECN --ecn-tcp-ece 1;=;OK
-p tcp -j ECN --ecn-ip-ect 1;=;OK
-6
-p tcp -j ECN --ecn-tcp-remove;;FAIL
*filter
:INPUT
-p tcp -j ECN --ecn-tcp-remove;;FAIL
