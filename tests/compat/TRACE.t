# TRACE target (meant for the raw table).
*raw
:PREROUTING,OUTPUT
-j TRACE;=;OK
-p tcp --dport 80 -j TRACE;-p tcp -m tcp --dport 80 -j TRACE;OK
-j TRACE --foo;;FAIL
:OUTPUT
-j TRACE;=;OK
*filter
:INPUT,FORWARD,OUTPUT
-j TRACE;=;OK
*mangle
:PREROUTING
-j TRACE;=;OK
*nat
:PREROUTING
-j TRACE;=;OK
-6
*raw
:PREROUTING,OUTPUT
-j TRACE;=;OK
-s 2001:db8::/32 -j TRACE;=;OK
*filter
:INPUT
-j TRACE;=;OK
