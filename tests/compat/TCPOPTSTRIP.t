# TCPOPTSTRIP target: --strip-options, -p tcp, mangle.
*mangle
:PREROUTING
-6
-p tcp -j TCPOPTSTRIP --strip-options sack-permitted,timestamp;-p tcp -j TCPOPTSTRIP --strip-options 4,8;OK
-p tcp -j TCPOPTSTRIP --strip-options mss,wscale,sack,md5;-p tcp -j TCPOPTSTRIP --strip-options 2,3,5,19;OK
-p tcp -j TCPOPTSTRIP --strip-options 2,3,4;=;OK
-p tcp -j TCPOPTSTRIP;=;OK
-j TCPOPTSTRIP --strip-options mss;;FAIL
