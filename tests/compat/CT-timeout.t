# CT --timeout with an existing policy: hand-written, not from the kernel oracle (the oracle
# cannot make timeout policies). Checked by hand on Linux 6.18 with iptables 1.8.9 (nft) in a
# throw-away namespace after `nfct add timeout dns inet udp unreplied 5 replied 10`:
#   -p udp -j CT --timeout dns                    loads, printed as given
#   -p udp -j CT --notrack --timeout dns --zone 3 printed as given (this option order)
#   -p udp -j CT --helper tftp --timeout dns      printed as given
#   -p tcp / no -p / ! -p udp with --timeout dns   refused (Invalid argument)
#   -p udp -j CT --timeout nodns                   refused (No such file or directory)
#   a generic policy on a -p tcp rule              refused (Invalid argument)
# Only the syntax cases are here: whether the policy exists and fits the rule's protocol is
# checked against a box's table when a ruleset is installed (ext_ct_timeout_check), which
# this suite (parsing and printing only) does not do.
*raw
:PREROUTING,OUTPUT
-p udp -j CT --timeout dns;=;OK
-p udp -j CT --notrack --timeout dns --zone 3;=;OK
-p udp -j CT --helper tftp --timeout dns;=;OK
-p udp -j CT --zone 3 --timeout dns --notrack;-p udp -j CT --notrack --timeout dns --zone 3;OK
-j CT --timeout dns;;FAIL
! -p udp -j CT --timeout dns;;FAIL
