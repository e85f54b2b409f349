# AUDIT target: --type accept|drop|reject (a no-op in a box).
*filter
:INPUT,FORWARD,OUTPUT
-4
-j AUDIT --type accept;=;OK
-j AUDIT --type drop;=;OK
-j AUDIT --type reject;=;OK
-j AUDIT;;FAIL
-j AUDIT --type foo;;FAIL
