# mac match: --mac-source (PREROUTING, INPUT, FORWARD only), case, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m mac --mac-source 00:11:22:33:44:55;=;OK
-m mac --mac-source 00:11:22:AA:bb:CC;-m mac --mac-source 00:11:22:aa:bb:cc;OK
-m mac --mac-source AA:BB:CC:DD:EE:FF;-m mac --mac-source aa:bb:cc:dd:ee:ff;OK
-m mac --mac-source 0:1:2:3:4:5;-m mac --mac-source 00:01:02:03:04:05;OK
-m mac --mac-source ff:ff:ff:ff:ff:ff;=;OK
-m mac ! --mac-source 00:11:22:33:44:55;=;OK
-m mac --mac-source ! 00:11:22:33:44:55;;FAIL
-m mac --mac-source 00:11:22:33:44;;FAIL
-m mac --mac-source 00:11:22:33:44:55:66;;FAIL
-m mac --mac-source 00-11-22-33-44-55;;FAIL
-m mac --mac-source 001122334455;;FAIL
-m mac --mac-source 00:11:22:33:44:gg;;FAIL
-m mac --mac-source 100:11:22:33:44:55;;FAIL
-m mac;;FAIL
-m mac --mac-source 00:11:22:33:44:55 --mac-source 00:11:22:33:44:56;;FAIL
:FORWARD
-m mac --mac-source 00:11:22:33:44:55;=;OK
:OUTPUT
-m mac --mac-source 00:11:22:33:44:55;;FAIL
*mangle
:PREROUTING
-m mac --mac-source 00:11:22:33:44:55;=;OK
:POSTROUTING
-m mac --mac-source 00:11:22:33:44:55;;FAIL
*raw
:PREROUTING
-m mac --mac-source 00:11:22:33:44:55;=;OK
-6
*filter
:INPUT
-m mac --mac-source 02:00:00:00:00:01;=;OK
