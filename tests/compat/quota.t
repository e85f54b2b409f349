# quota match: --quota BYTES, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m quota --quota 1000;=;OK
-m quota ! --quota 1000;=;OK
-m quota --quota 0;=;OK
-m quota --quota 18446744073709551615;=;OK
-m quota --quota 18446744073709551616;;FAIL
-m quota --quota 1k;;FAIL
-m quota --quota 0x10;-m quota --quota 16;OK
-m quota;;FAIL
-m quota --quota -1;;FAIL
-6
-m quota --quota 5000000;=;OK
