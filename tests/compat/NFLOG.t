# NFLOG target: --nflog-group --nflog-prefix --nflog-range --nflog-size --nflog-threshold.
*filter
:INPUT,FORWARD,OUTPUT
-4
-j NFLOG;=;OK
-j NFLOG --nflog-group 2 --nflog-prefix "drop " --nflog-range 128 --nflog-threshold 5;-j NFLOG --nflog-prefix "drop " --nflog-group 2 --nflog-threshold 5;OK
-j NFLOG --nflog-size 64;=;OK
-j NFLOG --nflog-group 65535;=;OK
-j NFLOG --nflog-group 65536;;FAIL
-j NFLOG --nflog-prefix "";;FAIL
