# Basic rule options: -s -d -i -o -p -f and '!'. From the kernel oracle (oracle.sh).
*filter
:INPUT,FORWARD,OUTPUT
-s 192.0.2.1;-s 192.0.2.1/32;OK
-s 192.0.2.1/32;=;OK
-s 192.0.2.77/24;-s 192.0.2.0/24;OK
-s 10.1.2.3/8;-s 10.0.0.0/8;OK
-s 192.0.2.0/255.255.255.0;-s 192.0.2.0/24;OK
-s 192.0.2.0/255.0.255.0;=;OK
-s 0.0.0.0/0;;OK
-s 0/0;;OK
-s 192.0.2.1/0;;OK
-d 198.51.100.0/24;=;OK
--source 192.0.2.1;-s 192.0.2.1/32;OK
--destination 192.0.2.1;-d 192.0.2.1/32;OK
--src 192.0.2.1;-s 192.0.2.1/32;OK
--dst 192.0.2.1;-d 192.0.2.1/32;OK
! -s 192.0.2.0/24;=;OK
! -d 192.0.2.0/24;=;OK
-s ! 192.0.2.0/24;;FAIL
! -s 192.0.2.0/24 ! -d 198.51.100.0/24;=;OK
-s 192.0.2.0/33;;FAIL
-s 192.0.2.256;;FAIL
-s 192.0.2;-s 192.0.2.0/32;OK
-s 192.0.2.1,192.0.2.2;-s 192.0.2.1/32\n-s 192.0.2.2/32;OK
-s 192.0.2.1/24,198.51.100.5;-s 192.0.2.0/24\n-s 198.51.100.5/32;OK
-s 2001:db8::1;;FAIL
-i eth0;=;OK
-i eth+;=;OK
-i +;;OK
! -i eth+;=;OK
-i lo;=;OK
--in-interface eth0;-i eth0;OK
-i 0123456789abcde;=;OK
-i 0123456789abcdef;;FAIL
-o eth0;;FAIL
-p tcp;=;OK
-p TCP;-p tcp;OK
-p 6;-p tcp;OK
-p udp;=;OK
-p 17;-p udp;OK
-p all;;OK
-p ALL;;OK
-p 0;;OK
-p 47;-p gre;OK
-p gre;=;OK
-p icmp;=;OK
-p 1;-p icmp;OK
-p 4;-p ipencap;OK
-p ipencap;=;OK
-p 94;-p ipip;OK
-p 132;-p sctp;OK
-p sctp;=;OK
-p udplite;=;OK
-p esp;=;OK
-p 50;-p esp;OK
-p ah;=;OK
-p 51;-p ah;OK
-p 135;-p mobility-header;OK
-p 143;-p ethernet;OK
-p 255;=;OK
-p 256;;FAIL
-p -1;;FAIL
-p foo;;FAIL
-p ipv6-icmp;=;OK
! -p tcp;=;OK
! -p all;;FAIL
--protocol udp;-p udp;OK
-f;=;OK
! -f;=;OK
--fragment;-f;OK
-f -p tcp;-p tcp -f;OK
-s 192.0.2.1 -d 192.0.2.2 -p udp -i eth0;-s 192.0.2.1/32 -d 192.0.2.2/32 -i eth0 -p udp;OK
-i eth0 -p udp -d 192.0.2.2 -s 192.0.2.1;-s 192.0.2.1/32 -d 192.0.2.2/32 -i eth0 -p udp;OK
-s 192.0.2.1 -s 192.0.2.2;;FAIL
-p tcp -p udp;;FAIL
! ! -s 192.0.2.1;;FAIL
:OUTPUT
-o eth0;=;OK
-o eth+;=;OK
! -o eth1;=;OK
-i eth0;;FAIL
:FORWARD
-i eth0 -o eth1;=;OK
-i eth+ ! -o ppp+;=;OK
-6
:INPUT,FORWARD,OUTPUT
-s 2001:db8::1;-s 2001:db8::1/128;OK
-s 2001:db8::1/128;=;OK
-s 2001:db8::1/64;-s 2001:db8::/64;OK
-s 2001:DB8:0:0::/32;-s 2001:db8::/32;OK
-s 2001:db8:0:0:0:0:0:1;-s 2001:db8::1/128;OK
-s ::ffff:192.0.2.1;-s ::ffff:192.0.2.1/128;OK
-d ::/0;;OK
-d ::1;-d ::1/128;OK
-s fe80::1%eth0;;FAIL
! -d 2001:db8::/48;=;OK
-s 2001:db8::/ffff:ffff::;-s 2001:db8::/32;OK
-s 192.0.2.1;;FAIL
-s 2001:db8::/129;;FAIL
-s 2001:db8::1,2001:db8::2;-s 2001:db8::1/128\n-s 2001:db8::2/128;OK
-p ipv6-icmp;=;OK
-p icmpv6;-p ipv6-icmp;OK
-p 58;-p ipv6-icmp;OK
-p icmp;=;OK
-p tcp;=;OK
-p all;;OK
-p 0;;OK
-p 47;-p gre;OK
! -p udp;=;OK
-f;;FAIL
-i eth0 -p tcp;=;OK
