# NFQUEUE target: --queue-num, --queue-balance, --queue-bypass, --fail-open, --queue-cpu-fanout.
*filter
:INPUT,FORWARD,OUTPUT
-j NFQUEUE;-j NFQUEUE --queue-num 0;OK
-j NFQUEUE --queue-num 0;=;OK
-j NFQUEUE --queue-num 1;=;OK
-j NFQUEUE --queue-num 65535;=;OK
-j NFQUEUE --queue-num 65536;;FAIL
-j NFQUEUE --queue-num -1;;FAIL
-j NFQUEUE --queue-num foo;;FAIL
-j NFQUEUE --queue-balance 0:3;=;OK
-j NFQUEUE --queue-balance 2:2;;FAIL
-j NFQUEUE --queue-balance 3:0;;FAIL
-j NFQUEUE --queue-balance 0:65535;;FAIL
-j NFQUEUE --queue-balance 0:65536;;FAIL
-j NFQUEUE --queue-balance 3;;FAIL
-j NFQUEUE --queue-bypass;-j NFQUEUE --queue-num 0 --queue-bypass;OK
-j NFQUEUE --queue-num 1 --queue-bypass;=;OK
-j NFQUEUE --queue-balance 0:3 --queue-bypass;=;OK
-j NFQUEUE --fail-open;;FAIL
-j NFQUEUE --queue-num 1 --fail-open;;FAIL
-j NFQUEUE --queue-bypass --fail-open;;FAIL
-j NFQUEUE --queue-balance 0:3 --queue-cpu-fanout;=;OK
-j NFQUEUE --queue-cpu-fanout;;FAIL
-j NFQUEUE --queue-num 5 --queue-cpu-fanout;;FAIL
-j NFQUEUE --queue-balance 0:3 --queue-bypass --queue-cpu-fanout --fail-open;;FAIL
-j NFQUEUE --queue-num 1 --queue-balance 2:3;;FAIL
-j NFQUEUE --queue-balance 2:3 --queue-num 1;;FAIL
-j NFQUEUE --queue-num 1 --queue-num 2;;FAIL
-j QUEUE;;FAIL
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-j NFQUEUE --queue-num 3;=;OK
*raw
:PREROUTING
-j NFQUEUE --queue-num 3;=;OK
-6
*filter
:INPUT,FORWARD,OUTPUT
-j NFQUEUE --queue-num 7;=;OK
-j NFQUEUE --queue-balance 4:7 --queue-bypass;=;OK
