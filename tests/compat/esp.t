# esp match: --espspi (needs -p esp).
*filter
:INPUT,FORWARD,OUTPUT
-p esp -m esp --espspi 1;=;OK
-p 50 -m esp --espspi 1;-p esp -m esp --espspi 1;OK
-p esp -m esp --espspi 1:1000;=;OK
-p esp -m esp --espspi :1000;-p esp -m esp --espspi 0:1000;OK
-p esp -m esp --espspi 1000:1;=;OK
-p esp -m esp ! --espspi 1;=;OK
-p esp -m esp --espspi 0;=;OK
-p esp -m esp --espspi 4294967295;=;OK
-p esp -m esp --espspi 4294967296;;FAIL
-p esp -m esp --espspi foo;;FAIL
-p esp -m esp;=;OK
-m esp --espspi 1;;FAIL
-p ah -m esp --espspi 1;;FAIL
-p esp -m esp --espspi 1 --espspi 2;;FAIL
-6
-p esp -m esp --espspi 1;=;OK
-p esp -m esp ! --espspi 5:10;=;OK
-m esp --espspi 1;;FAIL
