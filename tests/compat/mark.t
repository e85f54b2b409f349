# mark match: --mark value, value/mask, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m mark --mark 1;-m mark --mark 0x1;OK
-m mark --mark 0x1;=;OK
-m mark --mark 0;-m mark --mark 0x0;OK
-m mark --mark 0xff/0xff;=;OK
-m mark --mark 1/0xffffffff;-m mark --mark 0x1;OK
-m mark --mark 0x10/0xf0;=;OK
-m mark --mark 0x11/0xf0;=;OK
-m mark --mark 0/0;-m mark --mark 0x0/0x0;OK
-m mark --mark 0x0/0xffff0000;=;OK
-m mark ! --mark 1;-m mark ! --mark 0x1;OK
-m mark ! --mark 0x100/0xff00;=;OK
-m mark --mark ! 1;;FAIL
-m mark --mark 0xffffffff;=;OK
-m mark --mark 4294967295;-m mark --mark 0xffffffff;OK
-m mark --mark 0x100000000;;FAIL
-m mark --mark 010;-m mark --mark 0x8;OK
-m mark --mark 0XAB;-m mark --mark 0xab;OK
-m mark --mark foo;;FAIL
-m mark --mark -1;;FAIL
-m mark --mark 1/;;FAIL
-m mark --mark /1;;FAIL
-m mark;;FAIL
-m mark --mark 1 --mark 2;;FAIL
-m mark --mark 1 -m mark --mark 2;-m mark --mark 0x1 -m mark --mark 0x2;OK
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-m mark --mark 0x1/0x1;=;OK
-6
*filter
:INPUT,FORWARD,OUTPUT
-m mark --mark 0x2/0x2;=;OK
-m mark ! --mark 7;-m mark ! --mark 0x7;OK
