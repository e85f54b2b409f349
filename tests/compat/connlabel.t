# connlabel match: --label BIT|NAME, --set, "!" (no connlabel.conf on the oracle machine: numbers).
*filter
:INPUT,FORWARD,OUTPUT
-m connlabel --label 5;-m connlabel --label "5";OK
-m connlabel ! --label 5;-m connlabel ! --label "5";OK
-m connlabel --label 5 --set;-m connlabel --label "5" --set;OK
-m connlabel --label 127;-m connlabel --label "127";OK
-m connlabel --label 128;;FAIL
-m connlabel --label foo;;FAIL
-m connlabel;;FAIL
-m connlabel ! --label 3 --set;-m connlabel ! --label "3" --set;OK
-m connlabel --label 0x10;-m connlabel --label "16";OK
