# ah match: --ahspi (IPv4 needs -p ah); IPv6 also --ahlen, --ahres.
*filter
:INPUT,FORWARD,OUTPUT
-p ah -m ah --ahspi 1;=;OK
-p 51 -m ah --ahspi 1;-p ah -m ah --ahspi 1;OK
-p ah -m ah --ahspi 1:100;=;OK
-p ah -m ah --ahspi :100;-p ah -m ah --ahspi 0:100;OK
-p ah -m ah --ahspi 100:1;=;OK
-p ah -m ah ! --ahspi 1;=;OK
-p ah -m ah --ahspi 4294967295;=;OK
-p ah -m ah --ahspi 4294967296;;FAIL
-p ah -m ah --ahspi foo;;FAIL
-p ah -m ah;=;OK
-m ah --ahspi 1;;FAIL
-p esp -m ah --ahspi 1;;FAIL
-p ah -m ah --ahlen 1;;FAIL
-p ah -m ah --ahres;;FAIL
-6
-m ah --ahspi 1;=;OK
-p ah -m ah --ahspi 1;=;OK
-m ah --ahspi 1:2;=;OK
-m ah ! --ahspi 1:2;=;OK
-m ah --ahlen 8;=;OK
-m ah ! --ahlen 8;=;OK
-m ah --ahres;=;OK
-m ah --ahspi 1 --ahlen 4 --ahres;=;OK
-m ah;=;OK
-m ah --ahspi 4294967296;;FAIL
