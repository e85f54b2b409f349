# sctp and dccp matches: ports, chunk types and flags, packet types and options.
*filter
:INPUT,FORWARD,OUTPUT
-p sctp --dport 80;-p sctp -m sctp --dport 80;OK
-p sctp --sport 1000:2000 ! --dport 80;-p sctp -m sctp --sport 1000:2000 ! --dport 80;OK
-p sctp -m sctp --chunk-types any INIT;=;OK
-p sctp -m sctp --chunk-types all INIT,SACK;=;OK
-p sctp -m sctp --chunk-types only DATA:Be;=;OK
-p sctp -m sctp ! --chunk-types any ABORT:T,SHUTDOWN_COMPLETE:t;=;OK
-p sctp -m sctp --chunk-types any data;-p sctp -m sctp --chunk-types any DATA;OK
-p sctp -m sctp --chunk-types any FOO;;FAIL
-p sctp -m sctp --chunk-types any INIT,INIT_ACK,COOKIE_ECHO,COOKIE_ACK,HEARTBEAT,HEARTBEAT_ACK,ERROR,ECN_ECNE,ECN_CWR,ASCONF,ASCONF_ACK,FORWARD_TSN,SHUTDOWN,SHUTDOWN_ACK,I_DATA,RE_CONFIG,PAD,I_FORWARD_TSN;-p sctp -m sctp --chunk-types any INIT,INIT_ACK,HEARTBEAT,HEARTBEAT_ACK,SHUTDOWN,SHUTDOWN_ACK,ERROR,COOKIE_ECHO,COOKIE_ACK,ECN_ECNE,ECN_CWR,I_DATA,ASCONF_ACK,RE_CONFIG,PAD,FORWARD_TSN,ASCONF,I_FORWARD_TSN;OK
-p sctp -m sctp --dport 80 --chunk-types any INIT --sport 5;-p sctp -m sctp --sport 5 --dport 80 --chunk-types any INIT;OK
-m sctp --dport 80;;FAIL
-p sctp -m sctp;=;OK
-p dccp --dport 80;-p dccp -m dccp --dport 80;OK
-p dccp -m dccp --sport 1:10 --dport 20;=;OK
-p dccp -m dccp --dccp-types REQUEST,RESPONSE;=;OK
-p dccp -m dccp ! --dccp-types DATA,ACK,DATAACK,CLOSEREQ,CLOSE,RESET,SYNC,SYNCACK,INVALID;=;OK
-p dccp -m dccp --dccp-option 2;=;OK
-p dccp -m dccp ! --dccp-option 255;=;OK
-p dccp -m dccp --dccp-types request;-p dccp -m dccp --dccp-types REQUEST;OK
-p dccp -m dccp --dccp-option 256;;FAIL
-m dccp --dport 80;;FAIL
-p dccp -m dccp;=;OK
-p dccp -m dccp --dccp-types REQUEST --dport 5;-p dccp -m dccp --dport 5 --dccp-types REQUEST;OK
