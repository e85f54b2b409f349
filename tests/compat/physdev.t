# physdev match: bridge ports (no bridge in a box: docs/extensions.md).
*filter
:INPUT,FORWARD,OUTPUT
-4
-m physdev --physdev-in eth0;=;OK
-m physdev ! --physdev-in eth0;=;OK
-m physdev --physdev-out eth1;=;OK
-m physdev --physdev-is-in;=;OK
-m physdev ! --physdev-is-out;=;OK
-m physdev --physdev-is-bridged;=;OK
-m physdev --physdev-in eth+ --physdev-out eth1 --physdev-is-bridged;=;OK
-m physdev --physdev-is-bridged --physdev-in eth0;-m physdev --physdev-in eth0 --physdev-is-bridged;OK
-m physdev;;FAIL
*filter
:OUTPUT
-4
-m physdev --physdev-in eth0;=;OK
-m physdev --physdev-out eth0;;FAIL
*mangle
:PREROUTING
-6
-m physdev --physdev-is-bridged;=;OK
