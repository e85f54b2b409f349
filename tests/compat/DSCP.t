# DSCP target: --set-dscp value, --set-dscp-class name; mangle only.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j DSCP --set-dscp 10;-j DSCP --set-dscp 0x0a;OK
-j DSCP --set-dscp 0x0a;=;OK
-j DSCP --set-dscp 0;-j DSCP --set-dscp 0x00;OK
-j DSCP --set-dscp 63;-j DSCP --set-dscp 0x3f;OK
-j DSCP --set-dscp 0x3f;=;OK
-j DSCP --set-dscp 64;;FAIL
-j DSCP --set-dscp -1;;FAIL
-j DSCP --set-dscp foo;;FAIL
-j DSCP --set-dscp-class EF;-j DSCP --set-dscp 0x2e;OK
-j DSCP --set-dscp-class ef;-j DSCP --set-dscp 0x2e;OK
-j DSCP --set-dscp-class AF11;-j DSCP --set-dscp 0x0a;OK
-j DSCP --set-dscp-class AF43;-j DSCP --set-dscp 0x26;OK
-j DSCP --set-dscp-class CS0;-j DSCP --set-dscp 0x00;OK
-j DSCP --set-dscp-class CS6;-j DSCP --set-dscp 0x30;OK
-j DSCP --set-dscp-class BE;-j DSCP --set-dscp 0x00;OK
-j DSCP --set-dscp-class FOO;;FAIL
-j DSCP --set-dscp 10 --set-dscp-class EF;;FAIL
-j DSCP --set-dscp 1 --set-dscp 2;;FAIL
-j DSCP;;FAIL
*filter
:INPUT,FORWARD,OUTPUT
-j DSCP --set-dscp 10;;FAIL
*raw
:PREROUTING
-j DSCP --set-dscp 10;;FAIL
-6
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j DSCP --set-dscp 46;-j DSCP --set-dscp 0x2e;OK
-j DSCP --set-dscp-class AF21;-j DSCP --set-dscp 0x12;OK
