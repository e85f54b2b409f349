# hl match (IPv6 hop limit): --hl-eq --hl-lt --hl-gt, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-6
-m hl --hl-eq 64;=;OK
-m hl --hl-lt 10;=;OK
-m hl --hl-gt 1;=;OK
-m hl ! --hl-eq 255;=;OK
-m hl ! --hl-lt 10;;FAIL
-m hl ! --hl-gt 10;;FAIL
-m hl --hl-eq 0;=;OK
-m hl --hl-eq 255;=;OK
-m hl --hl-eq 256;;FAIL
-m hl --hl-eq foo;;FAIL
-m hl;;FAIL
-m hl --hl-eq 1 --hl-gt 2;;FAIL
-m hl --hl 64;-m hl --hl-eq 64;OK
-m ttl --ttl-eq 64;;FAIL
-4
-m hl --hl-eq 64;;FAIL
