# TTL target (IPv4): --ttl-set --ttl-dec --ttl-inc, mangle only.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j TTL --ttl-set 64;=;OK
-j TTL --ttl-dec 1;=;OK
-j TTL --ttl-inc 1;=;OK
-j TTL --ttl-set 0;=;OK
-j TTL --ttl-set 255;=;OK
-j TTL --ttl-set 256;;FAIL
-j TTL --ttl-dec 0;;FAIL
-j TTL --ttl-inc 0;;FAIL
-j TTL --ttl-inc 255;=;OK
-j TTL;;FAIL
-j TTL --ttl-set 1 --ttl-inc 1;;FAIL
-j TTL --ttl-set 0x40;-j TTL --ttl-set 64;OK
-j TTL --ttl-set foo;;FAIL
-6
-j TTL --ttl-set 64;;FAIL
*filter
:INPUT
-j TTL --ttl-set 64;;FAIL
