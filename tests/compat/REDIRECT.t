# REDIRECT target: [--to-ports port[-port]] [--random]; nat PREROUTING and OUTPUT only.
*nat
:PREROUTING
-4
-j REDIRECT;=;OK
-p tcp -j REDIRECT --to-ports 8080;=;OK
-p tcp -j REDIRECT --to-ports 8080-8090;=;OK
-p udp -j REDIRECT --to-ports 8080:8090;;FAIL
-p tcp -j REDIRECT --to-ports 8090-8080;;FAIL
-p tcp -j REDIRECT --to-ports 0;=;OK
-p tcp -j REDIRECT --to-ports 65536;;FAIL
-p tcp -j REDIRECT --to-ports http;-p tcp -j REDIRECT --to-ports 80;OK
-p sctp -j REDIRECT --to-ports 8080;=;OK
-p icmp -j REDIRECT --to-ports 8080;=;OK
-j REDIRECT --to-ports 8080;;FAIL
-j REDIRECT --random;=;OK
-p tcp -j REDIRECT --to-ports 8080 --random;=;OK
-j REDIRECT --random-fully;;FAIL
-p tcp --dport 80 -j REDIRECT --to-ports 3128;-p tcp -m tcp --dport 80 -j REDIRECT --to-ports 3128;OK
:OUTPUT
-j REDIRECT;=;OK
-p tcp -j REDIRECT --to-ports 8080;=;OK
:INPUT
-j REDIRECT;;FAIL
:POSTROUTING
-j REDIRECT;;FAIL
*mangle
:PREROUTING
-j REDIRECT;;FAIL
*nat
:PREROUTING
-6
-j REDIRECT;=;OK
-p tcp -j REDIRECT --to-ports 8080-8090;=;OK
-p tcp -j REDIRECT --to-ports 8080 --random;=;OK
:OUTPUT
-p udp -j REDIRECT --to-ports 53;=;OK
:POSTROUTING
-j REDIRECT;;FAIL
