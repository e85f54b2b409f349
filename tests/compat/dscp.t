# dscp match: --dscp value, --dscp-class name, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m dscp --dscp 10;-m dscp --dscp 0x0a;OK
-m dscp --dscp 0x0a;=;OK
-m dscp --dscp 0;-m dscp --dscp 0x00;OK
-m dscp --dscp 63;-m dscp --dscp 0x3f;OK
-m dscp --dscp 0x3f;=;OK
-m dscp --dscp 64;;FAIL
-m dscp --dscp -1;;FAIL
-m dscp --dscp foo;;FAIL
-m dscp ! --dscp 10;-m dscp ! --dscp 0x0a;OK
-m dscp --dscp-class EF;-m dscp --dscp 0x2e;OK
-m dscp --dscp-class ef;-m dscp --dscp 0x2e;OK
-m dscp --dscp-class AF41;-m dscp --dscp 0x22;OK
-m dscp --dscp-class AF11;-m dscp --dscp 0x0a;OK
-m dscp --dscp-class AF23;-m dscp --dscp 0x16;OK
-m dscp --dscp-class CS0;-m dscp --dscp 0x00;OK
-m dscp --dscp-class CS1;-m dscp --dscp 0x08;OK
-m dscp --dscp-class CS7;-m dscp --dscp 0x38;OK
-m dscp --dscp-class BE;-m dscp --dscp 0x00;OK
-m dscp ! --dscp-class EF;-m dscp ! --dscp 0x2e;OK
-m dscp --dscp-class FOO;;FAIL
-m dscp --dscp-class 46;;FAIL
-m dscp --dscp 10 --dscp-class EF;;FAIL
-m dscp --dscp 10 --dscp 12;;FAIL
-m dscp;;FAIL
-6
-m dscp --dscp 46;-m dscp --dscp 0x2e;OK
-m dscp --dscp-class AF21;-m dscp --dscp 0x12;OK
