# TCPMSS target: --set-mss, --clamp-mss-to-pmtu. Needs -p tcp; clamp only in
# FORWARD/OUTPUT/POSTROUTING.
*mangle
:FORWARD,OUTPUT,POSTROUTING
-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1400;-p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --set-mss 1400;OK
-p tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu;-p tcp -m tcp --tcp-flags SYN,RST SYN -j TCPMSS --clamp-mss-to-pmtu;OK
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --clamp-mss-to-pmtu;OK
-p tcp --syn -j TCPMSS --set-mss 1400;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1400;OK
-p tcp -j TCPMSS --set-mss 1400;=;OK
-p tcp -j TCPMSS --clamp-mss-to-pmtu;=;OK
-p tcp --syn -j TCPMSS --set-mss 0;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 0;OK
-p tcp --syn -j TCPMSS --set-mss 536;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 536;OK
-p tcp --syn -j TCPMSS --set-mss 65535;;FAIL
-p tcp --syn -j TCPMSS --set-mss 65536;;FAIL
-p tcp --syn -j TCPMSS --set-mss foo;;FAIL
-p tcp --syn -j TCPMSS --set-mss -1;;FAIL
-p tcp --syn -j TCPMSS;;FAIL
-p tcp --syn -j TCPMSS --set-mss 1400 --clamp-mss-to-pmtu;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --clamp-mss-to-pmtu;OK
-j TCPMSS --set-mss 1400;;FAIL
-j TCPMSS --clamp-mss-to-pmtu;;FAIL
-p udp -j TCPMSS --set-mss 1400;;FAIL
-p tcp ! --syn -j TCPMSS --set-mss 1400;-p tcp -m tcp ! --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1400;OK
-p tcp --syn -j TCPMSS --set-mss 65515;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 65515;OK
-p tcp --syn -j TCPMSS --set-mss 65516;;FAIL
:PREROUTING
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;;FAIL
-p tcp --syn -j TCPMSS --set-mss 1400;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1400;OK
:INPUT
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;;FAIL
-p tcp --syn -j TCPMSS --set-mss 1400;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1400;OK
*filter
:FORWARD,OUTPUT
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --clamp-mss-to-pmtu;OK
:INPUT
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;;FAIL
-p tcp --syn -j TCPMSS --set-mss 1400;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1400;OK
-6
*mangle
:FORWARD,OUTPUT,POSTROUTING
-p tcp --syn -j TCPMSS --clamp-mss-to-pmtu;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --clamp-mss-to-pmtu;OK
-p tcp --syn -j TCPMSS --set-mss 1220;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 1220;OK
-j TCPMSS --set-mss 1220;;FAIL
-p tcp --syn -j TCPMSS --set-mss 65495;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -j TCPMSS --set-mss 65495;OK
-p tcp --syn -j TCPMSS --set-mss 65496;;FAIL
-p tcp --syn -j TCPMSS --set-mss 65515;;FAIL
