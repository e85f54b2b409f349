# IPv6 options headers (hbh, dst), mobility header (mh), IPComp (ipcomp).
*filter
:INPUT,FORWARD,OUTPUT
-6
-m mh --mh-type 5;;FAIL
-m mh --mh-type binding-update;;FAIL
-m mh ! --mh-type 1:3;;FAIL
-m mh;;FAIL
-p mh -m mh --mh-type 5;-p mobility-header -m mh --mh-type 5;OK
-p mobility-header -m mh --mh-type bu;-p mobility-header -m mh --mh-type 5;OK
-m hbh --hbh-len 8;=;OK
-m hbh ! --hbh-len 0;=;OK
-m hbh --hbh-opts 1:2,5:4;=;OK
-m hbh --hbh-opts 194;=;OK
-m hbh;=;OK
-m dst --dst-len 8 --dst-opts 201:18;=;OK
-m dst ! --dst-len 8;=;OK
-m dst;=;OK
-m ipcomp --ipcompspi 5;;FAIL
-m ipcomp ! --ipcompspi 1:100 --compres;;FAIL
-m ipcomp;;FAIL
-p ipcomp -m ipcomp --ipcompspi 0x10;-p ipcomp -m ipcomp --ipcompspi 16;OK
-4
-m ipcomp --ipcompspi 5;;FAIL
-p ipcomp -m ipcomp --ipcompspi 5;=;OK
-p 108 -m ipcomp --ipcompspi 5 --compres;-p ipcomp -m ipcomp --ipcompspi 5 --compres;OK
*filter
:INPUT,FORWARD,OUTPUT
-6
-p mh -m mh ! --mh-type 1:3;-p mobility-header -m mh ! --mh-type 1:3;OK
-p mh -m mh --mh-type 0:255;-p mobility-header -m mh;OK
-p mh -m mh --mh-type home-test-init;-p mobility-header -m mh --mh-type 1;OK
-p mh -m mh --mh-type brr;-p mobility-header -m mh --mh-type 0;OK
-p mh -m mh;-p mobility-header -m mh;OK
-p mh -m mh --mh-type 256;;FAIL
-p mh -m mh --mh-type :5;-p mobility-header -m mh --mh-type 0:5;OK
-p mh -m mh --mh-type 3:;-p mobility-header -m mh --mh-type 3:255;OK
-p mh -m mh --mh-type 5:3;;FAIL
-p ipcomp -m ipcomp ! --ipcompspi 1:100 --compres;=;OK
-p ipcomp -m ipcomp;-p ipcomp -m ipcomp --ipcompspi 0;OK
-m hbh --hbh-len 8 --hbh-opts 1:2;=;OK
-m hbh --hbh-opts 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17;;FAIL
-m hbh --hbh-opts 256;-m hbh --hbh-opts 0;OK
-m hbh --hbh-opts 1:256;-m hbh --hbh-opts 1:0;OK
-m dst --dst-opts 1:;;FAIL
-m hbh ! --hbh-opts 1;;FAIL
