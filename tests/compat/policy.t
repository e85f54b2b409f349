# policy match: --dir --pol and one element (no IPsec in a box: docs/extensions.md).
*filter
:INPUT,FORWARD,OUTPUT
-4
-m policy --dir in --pol none;=;OK
-m policy --dir out --pol ipsec;;FAIL
-m policy --dir in --pol ipsec --strict --proto esp --mode tunnel --tunnel-src 192.0.2.1 --tunnel-dst 192.0.2.2;-m policy --dir in --pol ipsec --strict --proto esp --mode tunnel --tunnel-dst 192.0.2.2 --tunnel-src 192.0.2.1;OK
-m policy --pol none;;FAIL
-m policy --dir in;-m policy --dir in --pol ipsec;OK
-m policy --dir in --pol ipsec --reqid 5 --spi 0x100;=;OK
-m policy --dir in --pol ipsec --proto 50;-m policy --dir in --pol ipsec --proto esp;OK
*filter
:INPUT
-6
-m policy --dir in --pol none;=;OK
*mangle
:PREROUTING
-6
-m policy --dir out --pol none;;FAIL
