# MARK target: --set-mark, --set-xmark, --and-mark, --or-mark, --xor-mark (printed forms).
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j MARK --set-mark 1;-j MARK --set-xmark 0x1/0xffffffff;OK
-j MARK --set-mark 0x1;-j MARK --set-xmark 0x1/0xffffffff;OK
-j MARK --set-mark 0;-j MARK --set-xmark 0x0/0xffffffff;OK
-j MARK --set-mark 0x1/0xff;-j MARK --set-xmark 0x1/0xff;OK
-j MARK --set-mark 0x1/0xffffffff;-j MARK --set-xmark 0x1/0xffffffff;OK
-j MARK --set-mark 0xffffffff;-j MARK --set-xmark 0xffffffff/0xffffffff;OK
-j MARK --set-xmark 0x1/0xff;=;OK
-j MARK --set-xmark 1;-j MARK --set-xmark 0x1/0xffffffff;OK
-j MARK --set-xmark 0x1/0xffffffff;=;OK
-j MARK --set-xmark 0/0;-j MARK --set-xmark 0x0/0x0;OK
-j MARK --and-mark 0xff;-j MARK --set-xmark 0x0/0xffffff00;OK
-j MARK --and-mark 0;-j MARK --set-xmark 0x0/0xffffffff;OK
-j MARK --or-mark 0x10;-j MARK --set-xmark 0x10/0x10;OK
-j MARK --or-mark 0;-j MARK --set-xmark 0x0/0x0;OK
-j MARK --xor-mark 0x10;-j MARK --set-xmark 0x10/0x0;OK
-j MARK --set-mark 010;-j MARK --set-xmark 0x8/0xffffffff;OK
-j MARK --set-mark 4294967295;-j MARK --set-xmark 0xffffffff/0xffffffff;OK
-j MARK --set-mark 0x100000000;;FAIL
-j MARK --set-mark foo;;FAIL
-j MARK --set-mark -1;;FAIL
-j MARK --and-mark 0x1/0x1;;FAIL
-j MARK;;FAIL
-j MARK --set-mark 1 --and-mark 2;;FAIL
-j MARK --set-mark 1 --set-xmark 2;;FAIL
-j MARK --or-mark 1 --xor-mark 2;;FAIL
-j MARK --set-mark 1 --set-mark 2;;FAIL
-m mark --mark 1 -j MARK --set-mark 2;-m mark --mark 0x1 -j MARK --set-xmark 0x2/0xffffffff;OK
*filter
:INPUT,FORWARD,OUTPUT
-j MARK --set-mark 1;-j MARK --set-xmark 0x1/0xffffffff;OK
*raw
:PREROUTING,OUTPUT
-j MARK --set-mark 1;-j MARK --set-xmark 0x1/0xffffffff;OK
*nat
:PREROUTING
-j MARK --set-mark 1;-j MARK --set-xmark 0x1/0xffffffff;OK
-6
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j MARK --set-mark 0x2/0x2;-j MARK --set-xmark 0x2/0x2;OK
-j MARK --xor-mark 3;-j MARK --set-xmark 0x3/0x0;OK
