# connlimit: --connlimit-upto N / --connlimit-above N, --connlimit-mask, --connlimit-saddr/-daddr.
*filter
:INPUT,FORWARD,OUTPUT
-m connlimit --connlimit-above 2;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-upto 2;-m connlimit --connlimit-upto 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 0;-m connlimit --connlimit-above 0 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-upto 0;-m connlimit --connlimit-upto 0 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 4294967295;-m connlimit --connlimit-above 4294967295 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 4294967296;;FAIL
-m connlimit ! --connlimit-above 2;-m connlimit --connlimit-upto 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit ! --connlimit-upto 2;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 24;-m connlimit --connlimit-above 2 --connlimit-mask 24 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 32;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 0;-m connlimit --connlimit-above 2 --connlimit-mask 0 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 33;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 255.255.255.0;-m connlimit --connlimit-above 2 --connlimit-mask 24 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-saddr;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-daddr;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-daddr;OK
-m connlimit --connlimit-above 2 --connlimit-saddr --connlimit-daddr;;FAIL
-m connlimit --connlimit-above 2 --connlimit-daddr --connlimit-mask 16;-m connlimit --connlimit-above 2 --connlimit-mask 16 --connlimit-daddr;OK
-m connlimit --connlimit-mask 16 --connlimit-daddr --connlimit-upto 3;-m connlimit --connlimit-upto 3 --connlimit-mask 16 --connlimit-daddr;OK
-m connlimit --connlimit-above 2 --connlimit-upto 3;;FAIL
-m connlimit --connlimit-above 2 --connlimit-above 3;;FAIL
-m connlimit;;FAIL
-m connlimit --connlimit-mask 24;;FAIL
-m connlimit --connlimit-above foo;;FAIL
-m connlimit --connlimit-above -1;;FAIL
-m connlimit --connlimit-above 0x10;-m connlimit --connlimit-above 16 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 ! --connlimit-mask 24;;FAIL
-p tcp --syn -m connlimit --connlimit-above 3 -j REJECT;-p tcp -m tcp --tcp-flags FIN,SYN,RST,ACK SYN -m connlimit --connlimit-above 3 --connlimit-mask 32 --connlimit-saddr -j REJECT --reject-with icmp-port-unreachable;OK
-p tcp -m tcp --dport 22 -m connlimit --connlimit-above 3 --connlimit-mask 24 -j DROP;-p tcp -m tcp --dport 22 -m connlimit --connlimit-above 3 --connlimit-mask 24 --connlimit-saddr -j DROP;OK
*mangle
:PREROUTING
-m connlimit --connlimit-upto 5;-m connlimit --connlimit-upto 5 --connlimit-mask 32 --connlimit-saddr;OK
*raw
:PREROUTING
-m connlimit --connlimit-upto 5;-m connlimit --connlimit-upto 5 --connlimit-mask 32 --connlimit-saddr;OK
-6
*filter
:INPUT
-m connlimit --connlimit-above 2;-m connlimit --connlimit-above 2 --connlimit-mask 128 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 64;-m connlimit --connlimit-above 2 --connlimit-mask 64 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 128;-m connlimit --connlimit-above 2 --connlimit-mask 128 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 129;;FAIL
-m connlimit --connlimit-upto 1 --connlimit-mask 48 --connlimit-daddr;=;OK
# masks: IPv4 takes any 32-bit number (clamped to 32) and dotted masks (non-contiguous: 32);
# IPv6 0..128 or an address mask (non-contiguous: 128)
-4
*filter
:INPUT
-m connlimit --connlimit-above 2 --connlimit-mask 64;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 128;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 129;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 255.0.255.0;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask -1;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask foo;;FAIL
-m connlimit --connlimit-upto 2 --connlimit-upto 3;;FAIL
-m connlimit ! --connlimit-upto 2 --connlimit-above 3;;FAIL
-m connlimit --connlimit-above 010;-m connlimit --connlimit-above 8 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-saddr --connlimit-above 1;-m connlimit --connlimit-above 1 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 1 --connlimit-saddr --connlimit-saddr;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask 1000;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 4294967295;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 4294967296;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask 255.255.255.256;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask 0.0.0.0;-m connlimit --connlimit-above 2 --connlimit-mask 0 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 0xff;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 255.255.0.0;-m connlimit --connlimit-above 2 --connlimit-mask 16 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 128.0.0.0;-m connlimit --connlimit-above 2 --connlimit-mask 1 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask ::;;FAIL
-6
-m connlimit --connlimit-above 2 --connlimit-mask ffff:ffff::;-m connlimit --connlimit-above 2 --connlimit-mask 32 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 0;-m connlimit --connlimit-above 2 --connlimit-mask 0 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask ffff::ffff;-m connlimit --connlimit-above 2 --connlimit-mask 128 --connlimit-saddr;OK
-m connlimit --connlimit-above 2 --connlimit-mask 255.255.0.0;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask 1000;;FAIL
-m connlimit --connlimit-above 2 --connlimit-mask 010;-m connlimit --connlimit-above 2 --connlimit-mask 8 --connlimit-saddr;OK
