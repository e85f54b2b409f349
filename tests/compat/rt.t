# rt match (IPv6 routing header): --rt-type, --rt-segsleft, --rt-len, --rt-0-res,
# --rt-0-addrs, --rt-0-not-strict.
*filter
:INPUT,FORWARD,OUTPUT
-6
-m rt --rt-type 0;=;OK
-m rt --rt-type 2;=;OK
-m rt --rt-type 255;=;OK
-m rt --rt-type 256;=;OK
-m rt ! --rt-type 0;=;OK
-m rt --rt-segsleft 1;=;OK
-m rt --rt-segsleft 1:3;=;OK
-m rt --rt-segsleft 3:1;=;OK
-m rt ! --rt-segsleft 1;=;OK
-m rt --rt-len 16;=;OK
-m rt ! --rt-len 16;=;OK
-m rt --rt-type 0 --rt-0-res;=;OK
-m rt --rt-type 0 --rt-0-addrs 2001:db8::1,2001:db8::2;=;OK
-m rt --rt-type 0 --rt-0-addrs 2001:db8::1 --rt-0-not-strict;=;OK
-m rt --rt-0-res;;FAIL
-m rt --rt-0-addrs 2001:db8::1;;FAIL
-m rt --rt-type 0 --rt-0-not-strict;;FAIL
-m rt --rt-type 2 --rt-segsleft 0 --rt-len 2;=;OK
-m rt --rt-type foo;;FAIL
-m rt;=;OK
-4
-m rt --rt-type 0;;FAIL
