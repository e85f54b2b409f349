# connbytes: [!] --connbytes from[:to] --connbytes-dir original|reply|both
# --connbytes-mode packets|bytes|avgpkt (conntrack accounting counters).
*filter
:INPUT,FORWARD,OUTPUT
-m connbytes --connbytes 10 --connbytes-dir original --connbytes-mode packets;-m connbytes --connbytes 10 --connbytes-mode packets --connbytes-dir original;OK
-m connbytes --connbytes 10:20 --connbytes-dir original --connbytes-mode packets;-m connbytes --connbytes 10:20 --connbytes-mode packets --connbytes-dir original;OK
-m connbytes --connbytes 10: --connbytes-dir both --connbytes-mode bytes;-m connbytes --connbytes 10 --connbytes-mode bytes --connbytes-dir both;OK
-m connbytes --connbytes :20 --connbytes-dir reply --connbytes-mode avgpkt;-m connbytes --connbytes 0:20 --connbytes-mode avgpkt --connbytes-dir reply;OK
-m connbytes --connbytes 0:0 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 0 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes --connbytes 20:10 --connbytes-dir both --connbytes-mode packets;;FAIL
-m connbytes ! --connbytes 10:20 --connbytes-dir both --connbytes-mode bytes;-m connbytes ! --connbytes 10:20 --connbytes-mode bytes --connbytes-dir both;OK
-m connbytes ! --connbytes 10 --connbytes-dir reply --connbytes-mode packets;-m connbytes ! --connbytes 10 --connbytes-mode packets --connbytes-dir reply;OK
-m connbytes --connbytes 1000000000000 --connbytes-dir both --connbytes-mode bytes;-m connbytes --connbytes 1000000000000 --connbytes-mode bytes --connbytes-dir both;OK
-m connbytes --connbytes 18446744073709551615 --connbytes-dir both --connbytes-mode bytes;-m connbytes --connbytes 18446744073709551615 --connbytes-mode bytes --connbytes-dir both;OK
-m connbytes --connbytes 18446744073709551616 --connbytes-dir both --connbytes-mode bytes;;FAIL
-m connbytes --connbytes 0x10 --connbytes-dir both --connbytes-mode bytes;-m connbytes --connbytes 16 --connbytes-mode bytes --connbytes-dir both;OK
-m connbytes --connbytes-mode bytes --connbytes-dir reply --connbytes 5;-m connbytes --connbytes 5 --connbytes-mode bytes --connbytes-dir reply;OK
-m connbytes --connbytes 10 --connbytes-dir original;;FAIL
-m connbytes --connbytes 10 --connbytes-mode packets;;FAIL
-m connbytes --connbytes-dir original --connbytes-mode packets;;FAIL
-m connbytes;;FAIL
-m connbytes --connbytes 10 --connbytes-dir sideways --connbytes-mode packets;;FAIL
-m connbytes --connbytes 10 --connbytes-dir original --connbytes-mode frames;;FAIL
-m connbytes --connbytes foo --connbytes-dir original --connbytes-mode packets;;FAIL
-m connbytes --connbytes -5 --connbytes-dir original --connbytes-mode packets;;FAIL
-m connbytes --connbytes 10 --connbytes-dir ORIGINAL --connbytes-mode packets;;FAIL
-m connbytes --connbytes 10 --connbytes-dir original --connbytes-mode PACKETS;;FAIL
-m connbytes --connbytes 10 --connbytes 20 --connbytes-dir original --connbytes-mode packets;;FAIL
-m connbytes --connbytes 10 --connbytes-dir original ! --connbytes-mode packets;;FAIL
-m connbytes --connbytes 10 ! --connbytes-dir original --connbytes-mode packets;;FAIL
-m connbytes --connbytes 1:2:3 --connbytes-dir original --connbytes-mode packets;;FAIL
-p tcp -m connbytes --connbytes 0:1000000 --connbytes-dir both --connbytes-mode bytes -j ACCEPT;-p tcp -m connbytes --connbytes 0:1000000 --connbytes-mode bytes --connbytes-dir both -j ACCEPT;OK
*mangle
:POSTROUTING
-m connbytes --connbytes 100: --connbytes-dir both --connbytes-mode avgpkt;-m connbytes --connbytes 100 --connbytes-mode avgpkt --connbytes-dir both;OK
*raw
:PREROUTING
-m connbytes --connbytes 100: --connbytes-dir both --connbytes-mode bytes;-m connbytes --connbytes 100 --connbytes-mode bytes --connbytes-dir both;OK
-6
*filter
:INPUT
-m connbytes --connbytes 3:7 --connbytes-dir original --connbytes-mode packets;-m connbytes --connbytes 3:7 --connbytes-mode packets --connbytes-dir original;OK
# inversion swaps the bounds: an inverted one-value range is the same range
-4
*filter
:INPUT
-m connbytes ! --connbytes 0:0 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 0 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes ! --connbytes 10:10 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 10:10 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes ! --connbytes 10: --connbytes-dir both --connbytes-mode packets;-m connbytes ! --connbytes 10 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes --connbytes 10:18446744073709551615 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 10 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes --connbytes 10:18446744073709551614 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 10:18446744073709551614 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes --connbytes 5:5 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 5:5 --connbytes-mode packets --connbytes-dir both;OK
-m connbytes --connbytes 010 --connbytes-dir both --connbytes-mode packets;-m connbytes --connbytes 8 --connbytes-mode packets --connbytes-dir both;OK
