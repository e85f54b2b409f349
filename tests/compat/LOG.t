# LOG target: --log-prefix (quoting, 29-char limit), --log-level names/numbers, flags.
*filter
:INPUT,FORWARD,OUTPUT
-j LOG;=;OK
-j LOG --log-prefix foo;=;OK
-j LOG --log-prefix "foo";-j LOG --log-prefix foo;OK
-j LOG --log-prefix "foo bar: ";=;OK
-j LOG --log-prefix '[FW] drop ';;FAIL
-j LOG --log-prefix "say \"hi\" ";=;OK
-j LOG --log-prefix "";;FAIL
-j LOG --log-prefix aaaaaaaaaaaaaaaaaaaaaaaaaaaaa;=;OK
-j LOG --log-prefix aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;-j LOG --log-prefix aaaaaaaaaaaaaaaaaaaaaaaaaaaaa;OK
-j LOG --log-level 4;-j LOG;OK
-j LOG --log-level warning;-j LOG;OK
-j LOG --log-level warn;;FAIL
-j LOG --log-level 0;=;OK
-j LOG --log-level emerg;-j LOG --log-level 0;OK
-j LOG --log-level panic;-j LOG --log-level 0;OK
-j LOG --log-level alert;-j LOG --log-level 1;OK
-j LOG --log-level crit;-j LOG --log-level 2;OK
-j LOG --log-level err;;FAIL
-j LOG --log-level error;-j LOG --log-level 3;OK
-j LOG --log-level notice;-j LOG --log-level 5;OK
-j LOG --log-level info;-j LOG --log-level 6;OK
-j LOG --log-level debug;-j LOG --log-level 7;OK
-j LOG --log-level 7;=;OK
-j LOG --log-level 8;;FAIL
-j LOG --log-level foo;;FAIL
-j LOG --log-level INFO;;FAIL
-j LOG --log-tcp-sequence;=;OK
-j LOG --log-tcp-options;=;OK
-j LOG --log-ip-options;=;OK
-j LOG --log-uid;=;OK
-j LOG --log-macdecode;=;OK
-j LOG --log-macdecode --log-uid --log-ip-options --log-tcp-options --log-tcp-sequence;-j LOG --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode;OK
-j LOG --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode --log-level debug --log-prefix "all ";-j LOG --log-prefix "all " --log-level 7 --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode;OK
-j LOG --log-prefix "x" --log-level info --log-uid;-j LOG --log-prefix x --log-level 6 --log-uid;OK
-j LOG --log-level 6 --log-prefix "x";-j LOG --log-prefix x --log-level 6;OK
-p tcp --dport 22 -j LOG --log-prefix "ssh: " --log-level 6;-p tcp -m tcp --dport 22 -j LOG --log-prefix "ssh: " --log-level 6;OK
-j LOG --log-prefix a --log-prefix b;;FAIL
-j LOG --log-foo;;FAIL
*nat
:PREROUTING,INPUT,OUTPUT,POSTROUTING
-j LOG --log-prefix "nat ";=;OK
*raw
:PREROUTING,OUTPUT
-j LOG --log-level debug;-j LOG --log-level 7;OK
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j LOG;=;OK
-6
*filter
:INPUT,FORWARD,OUTPUT
-j LOG;=;OK
-j LOG --log-prefix "v6 " --log-level 5;=;OK
-j LOG --log-ip-options --log-tcp-options --log-tcp-sequence --log-uid --log-macdecode;-j LOG --log-tcp-sequence --log-tcp-options --log-ip-options --log-uid --log-macdecode;OK
