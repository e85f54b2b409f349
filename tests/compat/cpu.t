# cpu match: --cpu N, "!".
*filter
:INPUT,FORWARD,OUTPUT
-4
-m cpu --cpu 0;=;OK
-m cpu ! --cpu 1;=;OK
-m cpu;;FAIL
*filter
:INPUT
-6
-m cpu --cpu 3;=;OK
