# tcpmss match: --mss value[:value], '!', needs -p tcp.
*filter
:INPUT,FORWARD,OUTPUT
-p tcp -m tcpmss --mss 1460;=;OK
-p tcp -m tcpmss --mss 1000:1500;=;OK
-p tcp -m tcpmss ! --mss 1460;=;OK
-p tcp -m tcpmss --mss 0:536;=;OK
-p tcp -m tcpmss --mss 1500:1000;;FAIL
-p tcp -m tcpmss --mss 65535;=;OK
-p tcp -m tcpmss --mss 65536;;FAIL
-p tcp -m tcpmss --mss :1000;-p tcp -m tcpmss --mss 0:1000;OK
-p tcp -m tcpmss --mss 1000:;-p tcp -m tcpmss --mss 1000:65535;OK
-p tcp -m tcpmss;;FAIL
-m tcpmss --mss 1460;;FAIL
-p udp -m tcpmss --mss 1460;;FAIL
-p tcp --syn -m tcpmss --mss 1461:65535 -j DROP;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m tcpmss --mss 1461:65535 -j DROP;OK
-6
-p tcp -m tcpmss --mss 1220;=;OK
