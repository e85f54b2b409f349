# owner match: --uid-owner --gid-owner --socket-exists --suppl-groups, '!'. OUTPUT/POSTROUTING.
*filter
:OUTPUT
-m owner --uid-owner 0;=;OK
-m owner --uid-owner root;-m owner --uid-owner 0;OK
-m owner --uid-owner 1000-2000;=;OK
-m owner ! --uid-owner 1000;=;OK
-m owner --gid-owner 0;=;OK
-m owner --gid-owner 100-200;=;OK
-m owner --gid-owner root;-m owner --gid-owner 0;OK
-m owner --gid-owner 100 --suppl-groups;=;OK
-m owner --suppl-groups;;FAIL
-m owner --socket-exists;=;OK
-m owner ! --socket-exists;=;OK
-m owner --uid-owner 0 --gid-owner 0 --socket-exists;-m owner --socket-exists --uid-owner 0 --gid-owner 0;OK
-m owner --gid-owner 0 --uid-owner 0;-m owner --uid-owner 0 --gid-owner 0;OK
-m owner --uid-owner nosuchuserxx;;FAIL
-m owner --uid-owner 4294967295;;FAIL
-m owner --uid-owner 4294967294;=;OK
-m owner --uid-owner 2000-1000;;FAIL
-m owner;;FAIL
-m owner --pid-owner 1;;FAIL
-m owner --cmd-owner foo;;FAIL
-6
-m owner --uid-owner 1000;=;OK
*filter
:INPUT
-m owner --uid-owner 0;;FAIL
*mangle
:POSTROUTING
-m owner --uid-owner 0;=;OK
:PREROUTING
-m owner --uid-owner 0;;FAIL
