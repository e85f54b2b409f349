# CONNMARK target: set (xmark), save, restore with masks; printed as iptables-save prints them.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j CONNMARK --set-mark 1;-j CONNMARK --set-xmark 0x1/0xffffffff;OK
-j CONNMARK --set-mark 0x1/0xff;-j CONNMARK --set-xmark 0x1/0xff;OK
-j CONNMARK --set-mark 0;-j CONNMARK --set-xmark 0x0/0xffffffff;OK
-j CONNMARK --set-xmark 1;-j CONNMARK --set-xmark 0x1/0xffffffff;OK
-j CONNMARK --set-xmark 0x1/0xff;=;OK
-j CONNMARK --set-xmark 0/0;-j CONNMARK --set-xmark 0x0/0x0;OK
-j CONNMARK --and-mark 0xff;-j CONNMARK --set-xmark 0x0/0xffffff00;OK
-j CONNMARK --or-mark 0x10;-j CONNMARK --set-xmark 0x10/0x10;OK
-j CONNMARK --xor-mark 0x10;-j CONNMARK --set-xmark 0x10/0x0;OK
-j CONNMARK --and-mark 0;-j CONNMARK --set-xmark 0x0/0xffffffff;OK
-j CONNMARK --or-mark 0;-j CONNMARK --set-xmark 0x0/0x0;OK
-j CONNMARK --save-mark;-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
-j CONNMARK --save-mark --mask 0xff;-j CONNMARK --save-mark --nfmask 0xff --ctmask 0xff;OK
-j CONNMARK --save-mark --nfmask 0xff;-j CONNMARK --save-mark --nfmask 0xff --ctmask 0xffffffff;OK
-j CONNMARK --save-mark --ctmask 0xff;-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xff;OK
-j CONNMARK --save-mark --nfmask 0xf0 --ctmask 0x0f;-j CONNMARK --save-mark --nfmask 0xf0 --ctmask 0xf;OK
-j CONNMARK --save-mark --mask 0xff --nfmask 0xf;;FAIL
-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff;=;OK
-j CONNMARK --restore-mark;-j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
-j CONNMARK --restore-mark --mask 0xff;-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xff;OK
-j CONNMARK --restore-mark --nfmask 0xff;-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xffffffff;OK
-j CONNMARK --restore-mark --ctmask 0xff;-j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xff;OK
-j CONNMARK --restore-mark --nfmask 0xf0 --ctmask 0x0f;-j CONNMARK --restore-mark --nfmask 0xf0 --ctmask 0xf;OK
-j CONNMARK --set-mark 1 --mask 0xff;-j CONNMARK --set-xmark 0x1/0xff;OK
-j CONNMARK --set-mark 1 --nfmask 0xff;-j CONNMARK --set-xmark 0x1/0xffffffff;OK
-j CONNMARK --set-xmark 1 --ctmask 0xff;-j CONNMARK --set-xmark 0x1/0xff;OK
-j CONNMARK --save-mark --restore-mark;;FAIL
-j CONNMARK --set-mark 1 --save-mark;;FAIL
-j CONNMARK --set-mark 1 --set-xmark 2;;FAIL
-j CONNMARK --set-mark 1 --and-mark 2;;FAIL
-j CONNMARK --and-mark 0x1/0x1;;FAIL
-j CONNMARK;;FAIL
-j CONNMARK --set-mark foo;;FAIL
-j CONNMARK --set-mark 0x100000000;;FAIL
-j CONNMARK --set-mark 010;-j CONNMARK --set-xmark 0x8/0xffffffff;OK
-j CONNMARK --save-mark --mask 0xff --mask 0xf;;FAIL
-j CONNMARK --mask 0xff;;FAIL
-j CONNMARK --nfmask 0xff;;FAIL
-m connmark --mark 1 -j CONNMARK --restore-mark;-m connmark --mark 0x1 -j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
*filter
:INPUT
-j CONNMARK --set-mark 1;-j CONNMARK --set-xmark 0x1/0xffffffff;OK
-j CONNMARK --save-mark;-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
*raw
:PREROUTING
-j CONNMARK --restore-mark;-j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
*nat
:PREROUTING
-j CONNMARK --save-mark;-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff;OK
-6
*mangle
:PREROUTING
-j CONNMARK --set-xmark 0x5/0xf;=;OK
-j CONNMARK --restore-mark --nfmask 0xff --ctmask 0xff00;=;OK
# options apply in the order given; the last word on ctmask wins
-4
*mangle
:PREROUTING
-j CONNMARK --mask 0xff --set-mark 1;-j CONNMARK --set-xmark 0x1/0xffffffff;OK
-j CONNMARK --ctmask 0xff --set-xmark 1/0xf;-j CONNMARK --set-xmark 0x1/0xf;OK
-j CONNMARK --nfmask 0xf --save-mark;-j CONNMARK --save-mark --nfmask 0xf --ctmask 0xffffffff;OK
-j CONNMARK --and-mark 1 --ctmask 0xff;-j CONNMARK --set-xmark 0x0/0xff;OK
-j CONNMARK --set-mark 1 --mask 0xff --ctmask 0xf;;FAIL
-j CONNMARK --save-mark --left-shift-mark 8;-j CONNMARK --save-mark --nfmask 0xffffffff --ctmask 0xffffffff --left-shift-mark 8;OK
-j CONNMARK --restore-mark --right-shift-mark 8;-j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff --right-shift-mark 8;OK
-j CONNMARK --set-mark 1/0xff --nfmask 0xf;-j CONNMARK --set-xmark 0x1/0xff;OK
-j CONNMARK --save-mark --nfmask 0 --ctmask 0;-j CONNMARK --save-mark --nfmask 0x0 --ctmask 0x0;OK
-j CONNMARK --set-xmark 0x1/0x2/0x3;;FAIL
-j CONNMARK --or-mark 0x1/0x1;;FAIL
-j CONNMARK --save-mark --mask foo;;FAIL
-j CONNMARK --save-mark --ctmask 0x100000000;;FAIL
