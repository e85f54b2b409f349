# frag match (IPv6 fragment header): --fragid, --fraglen, --fragres, --fragfirst/more/last.
*filter
:INPUT,FORWARD,OUTPUT
-6
-m frag --fragid 100;=;OK
-m frag --fragid 100:200;=;OK
-m frag --fragid :200;-m frag --fragid 0:200;OK
-m frag --fragid 100:;-m frag --fragid 100:4294967295;OK
-m frag --fragid 200:100;=;OK
-m frag ! --fragid 100;=;OK
-m frag ! --fragid 1:2;=;OK
-m frag --fragid 0;=;OK
-m frag --fragid 4294967295;=;OK
-m frag --fragid 4294967296;;FAIL
-m frag --fragid foo;;FAIL
-m frag --fragfirst;=;OK
-m frag --fragmore;=;OK
-m frag --fraglast;=;OK
-m frag --fragres;=;OK
-m frag --fraglen 8;=;OK
-m frag ! --fraglen 8;=;OK
-m frag --fragmore --fraglast;;FAIL
-m frag --fragfirst --fragmore;=;OK
-m frag --fragid 1 --fraglen 8 --fragres --fragfirst --fragmore;=;OK
-m frag;=;OK
-4
-m frag --fragid 1;;FAIL
