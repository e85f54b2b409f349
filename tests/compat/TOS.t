# TOS target: --set-tos name|value[/mask], --and-tos, --or-tos, --xor-tos; mangle only.
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j TOS --set-tos 0x10;-j TOS --set-tos 0x10/0xff;OK
-j TOS --set-tos 16;-j TOS --set-tos 0x10/0xff;OK
-j TOS --set-tos 0x10/0xff;=;OK
-j TOS --set-tos 0x10/0x3f;=;OK
-j TOS --set-tos 0x10/0x1f;=;OK
-j TOS --set-tos 0x00;-j TOS --set-tos 0x00/0xff;OK
-j TOS --set-tos 0/0;-j TOS --set-tos 0x00/0x00;OK
-j TOS --set-tos 0xff;-j TOS --set-tos 0xff/0xff;OK
-j TOS --set-tos Minimize-Delay;-j TOS --set-tos 0x10/0x3f;OK
-j TOS --set-tos Maximize-Throughput;-j TOS --set-tos 0x08/0x3f;OK
-j TOS --set-tos Maximize-Reliability;-j TOS --set-tos 0x04/0x3f;OK
-j TOS --set-tos Minimize-Cost;-j TOS --set-tos 0x02/0x3f;OK
-j TOS --set-tos Normal-Service;-j TOS --set-tos 0x00/0x3f;OK
-j TOS --set-tos minimize-cost;-j TOS --set-tos 0x02/0x3f;OK
-j TOS --and-tos 0x0f;-j TOS --set-tos 0x00/0xf0;OK
-j TOS --and-tos 0;-j TOS --set-tos 0x00/0xff;OK
-j TOS --and-tos 0xff;-j TOS --set-tos 0x00/0x00;OK
-j TOS --or-tos 0x10;-j TOS --set-tos 0x10/0x10;OK
-j TOS --or-tos 0;-j TOS --set-tos 0x00/0x00;OK
-j TOS --xor-tos 0x10;-j TOS --set-tos 0x10/0x00;OK
-j TOS --xor-tos 0;-j TOS --set-tos 0x00/0x00;OK
-j TOS --set-tos 0x100;;FAIL
-j TOS --set-tos foo;;FAIL
-j TOS --and-tos 0x100;;FAIL
-j TOS --or-tos 0x10/0x10;;FAIL
-j TOS;;FAIL
-j TOS --set-tos 1 --and-tos 2;;FAIL
-j TOS --or-tos 1 --xor-tos 2;;FAIL
*filter
:INPUT,FORWARD,OUTPUT
-j TOS --set-tos 0x10;;FAIL
*raw
:PREROUTING
-j TOS --set-tos 0x10;;FAIL
-6
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j TOS --set-tos 0x10;-j TOS --set-tos 0x10/0xff;OK
-j TOS --set-tos Minimize-Delay;-j TOS --set-tos 0x10/0x3f;OK
-j TOS --and-tos 0xf0;-j TOS --set-tos 0x00/0x0f;OK
