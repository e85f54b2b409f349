# CT target (raw table). From the kernel oracle (oracle.sh -w). --timeout with an existing
# policy needs `nfct timeout add` first, which the oracle cannot do: those cases are in
# CT-timeout.t. The oracle says `-p udp -j CT --timeout nosuchpolicy;;FAIL` (No such file or
# directory): a box decides that when the ruleset is installed, not parsing, so the case is
# kept out of here and tested in tests/unit/test_ct_settings.c.
*raw
:PREROUTING,OUTPUT
-j CT;=;OK
-j CT --notrack;=;OK
-j CT --zone 0;-j CT;OK
-j CT --zone 5;=;OK
-j CT --notrack --zone 0;-j CT --notrack;OK
-p tcp -j CT --helper ftp;=;OK
-p tcp -j CT --helper ftp --zone 0;-p tcp -j CT --helper ftp;OK
-j NOTRACK;=;OK
-j CT --timeout nosuchpolicy;;FAIL
*filter
:INPUT
-j CT;;FAIL
