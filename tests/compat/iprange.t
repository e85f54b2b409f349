# iprange match: --src-range --dst-range, '!', both families.
*filter
:INPUT,FORWARD,OUTPUT
-m iprange --src-range 192.0.2.1-192.0.2.10;=;OK
-m iprange --dst-range 192.0.2.1-192.0.2.10;=;OK
-m iprange ! --src-range 192.0.2.1-192.0.2.10;=;OK
-m iprange ! --dst-range 192.0.2.1-192.0.2.10;=;OK
-m iprange --src-range 192.0.2.1-192.0.2.10 ! --dst-range 198.51.100.1-198.51.100.2;=;OK
-m iprange --dst-range 198.51.100.1-198.51.100.2 --src-range 192.0.2.1-192.0.2.10;-m iprange --src-range 192.0.2.1-192.0.2.10 --dst-range 198.51.100.1-198.51.100.2;OK
-m iprange --src-range 192.0.2.1;-m iprange --src-range 192.0.2.1-192.0.2.1;OK
-m iprange --src-range 192.0.2.1-192.0.2.1;=;OK
-m iprange --src-range 192.0.2.10-192.0.2.1;=;OK
-m iprange --src-range 0.0.0.0-255.255.255.255;=;OK
-m iprange --src-range 192.0.2.1-192.0.2.300;;FAIL
-m iprange --src-range 192.0.2.0/24;;FAIL
-m iprange --src-range 192.0.2.1-;;FAIL
-m iprange --src-range foo-bar;;FAIL
-m iprange;;FAIL
-m iprange --src-range 2001:db8::1-2001:db8::2;;FAIL
-m iprange --src-range 192.0.2.1-192.0.2.2 --src-range 192.0.2.3-192.0.2.4;;FAIL
-m iprange --src-range 192.0.2.1 - 192.0.2.2;;FAIL
-6
-m iprange --src-range 2001:db8::1-2001:db8::ff;=;OK
-m iprange --dst-range 2001:DB8::1-2001:db8:0::ff;-m iprange --dst-range 2001:db8::1-2001:db8::ff;OK
-m iprange ! --dst-range 2001:db8::1-2001:db8::ff;=;OK
-m iprange --src-range ::1-::2 ! --dst-range fe80::-fe80::ffff;=;OK
-m iprange --src-range 2001:db8::1;-m iprange --src-range 2001:db8::1-2001:db8::1;OK
-m iprange --src-range 2001:db8::ff-2001:db8::1;=;OK
-m iprange --src-range 192.0.2.1-192.0.2.2;;FAIL
-m iprange --src-range 2001:db8::/64;;FAIL
