# ttl match (IPv4): --ttl-eq --ttl-lt --ttl-gt, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m ttl --ttl-eq 64;=;OK
-m ttl --ttl-lt 10;=;OK
-m ttl --ttl-gt 1;=;OK
-m ttl ! --ttl-eq 64;=;OK
-m ttl ! --ttl-lt 10;;FAIL
-m ttl ! --ttl-gt 10;;FAIL
-m ttl --ttl-eq 0;=;OK
-m ttl --ttl-eq 255;=;OK
-m ttl --ttl-gt 255;=;OK
-m ttl --ttl-lt 0;=;OK
-m ttl --ttl-eq 256;;FAIL
-m ttl --ttl-eq -1;;FAIL
-m ttl --ttl-eq foo;;FAIL
-m ttl --ttl-eq 0x40;-m ttl --ttl-eq 64;OK
-m ttl --ttl 64;-m ttl --ttl-eq 64;OK
-m ttl;;FAIL
-m ttl --ttl-eq 1 --ttl-lt 2;;FAIL
-m ttl --ttl-lt 2 --ttl-gt 1;;FAIL
-m ttl --ttl-eq 1 --ttl-eq 2;;FAIL
-6
-m ttl --ttl-eq 64;;FAIL
