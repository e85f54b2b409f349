# CLASSIFY target: --set-class MAJOR:MINOR (hex); mangle OUTPUT/FORWARD/POSTROUTING only.
*mangle
:POSTROUTING,FORWARD,OUTPUT
-j CLASSIFY --set-class 1:10;-j CLASSIFY --set-class 0001:0010;OK
-j CLASSIFY --set-class 1:a;-j CLASSIFY --set-class 0001:000a;OK
-j CLASSIFY --set-class 1:A;-j CLASSIFY --set-class 0001:000a;OK
-j CLASSIFY --set-class 0x1:0x10;-j CLASSIFY --set-class 0001:0010;OK
-j CLASSIFY --set-class 01:010;-j CLASSIFY --set-class 0001:0010;OK
-j CLASSIFY --set-class 0:0;-j CLASSIFY --set-class 0000:0000;OK
-j CLASSIFY --set-class ffff:ffff;=;OK
-j CLASSIFY --set-class 10000:1;-j CLASSIFY --set-class 0000:0001;OK
-j CLASSIFY --set-class 1:10000;-j CLASSIFY --set-class 0001:0000;OK
-j CLASSIFY --set-class 1;;FAIL
-j CLASSIFY --set-class 1:;;FAIL
-j CLASSIFY --set-class :1;;FAIL
-j CLASSIFY --set-class foo;;FAIL
-j CLASSIFY --set-class 1:g;;FAIL
-j CLASSIFY;;FAIL
-j CLASSIFY --set-class 1:1 --set-class 1:2;;FAIL
:FORWARD
-j CLASSIFY --set-class 1:1;-j CLASSIFY --set-class 0001:0001;OK
:OUTPUT
-j CLASSIFY --set-class 1:1;-j CLASSIFY --set-class 0001:0001;OK
:PREROUTING
-j CLASSIFY --set-class 1:1;;FAIL
:INPUT
-j CLASSIFY --set-class 1:1;;FAIL
*filter
:FORWARD,OUTPUT
-j CLASSIFY --set-class 1:1;-j CLASSIFY --set-class 0001:0001;OK
*raw
:OUTPUT
-j CLASSIFY --set-class 1:1;-j CLASSIFY --set-class 0001:0001;OK
*nat
:POSTROUTING
-j CLASSIFY --set-class 1:1;-j CLASSIFY --set-class 0001:0001;OK
-6
*mangle
:POSTROUTING
-j CLASSIFY --set-class 2:20;-j CLASSIFY --set-class 0002:0020;OK
