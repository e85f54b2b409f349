# CHECKSUM target: --checksum-fill, mangle only.
*mangle
:POSTROUTING,PREROUTING,INPUT,FORWARD,OUTPUT
-p udp --dport 68 -j CHECKSUM --checksum-fill;-p udp -m udp --dport 68 -j CHECKSUM --checksum-fill;OK
-j CHECKSUM --checksum-fill;=;OK
-j CHECKSUM;;FAIL
-j CHECKSUM --checksum-fill --checksum-fill;;FAIL
-j CHECKSUM --fill;;FAIL
-6
-p udp --dport 546 -j CHECKSUM --checksum-fill;-p udp -m udp --dport 546 -j CHECKSUM --checksum-fill;OK
*filter
:INPUT
-j CHECKSUM --checksum-fill;;FAIL
