# devgroup match: --src-group --dst-group.
*filter
:INPUT,FORWARD,OUTPUT
-4
-m devgroup --src-group 1;-m devgroup --src-group 0x1;OK
-m devgroup --dst-group 0x10/0xff;;FAIL
-m devgroup ! --src-group 2 --dst-group 3;;FAIL
-m devgroup;;FAIL
-m devgroup --src-group default;=;OK
