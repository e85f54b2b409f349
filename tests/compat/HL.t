# HL target (IPv6): --hl-set --hl-dec --hl-inc, mangle only.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-6
-j HL --hl-set 64;=;OK
-j HL --hl-dec 1;=;OK
-j HL --hl-inc 1;=;OK
-j HL --hl-set 0;=;OK
-j HL --hl-set 256;;FAIL
-j HL --hl-dec 0;;FAIL
-j HL --hl-inc 0;;FAIL
-j HL;;FAIL
-j HL --hl-set 1 --hl-dec 1;;FAIL
-4
-j HL --hl-set 64;;FAIL
*filter
:INPUT
-6
-j HL --hl-set 64;;FAIL
