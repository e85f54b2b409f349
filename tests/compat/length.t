# length match: --length N, N:M, :M, N:, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m length --length 40;=;OK
-m length --length 40:1500;=;OK
-m length --length :100;-m length --length 0:100;OK
-m length --length 100:;-m length --length 100:65535;OK
-m length --length 0:65535;=;OK
-m length --length 40:40;-m length --length 40;OK
-m length ! --length 40:60;=;OK
-m length --length ! 40;;FAIL
-m length --length 1500:40;=;OK
-m length --length 65535;=;OK
-m length --length 65536;;FAIL
-m length --length -1;;FAIL
-m length --length foo;;FAIL
-m length --length 0x28;-m length --length 40;OK
-m length --length 40,60;;FAIL
-m length;;FAIL
-m length --length 1 --length 2;;FAIL
-6
-m length --length 1280:;-m length --length 1280:65535;OK
-m length ! --length 0:100;=;OK
