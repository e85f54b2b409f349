# string match: --algo bm|kmp (mandatory), --string / --hex-string (one of them, '!'),
# --from, --to, --icase; printing of quotes, backslashes and non-printable bytes. (iptables-restore
# reads an unterminated quote, "a\", to the end of the line, newline included; pkttables' lexer
# refuses it: a lexer matter, not tested here.)
*filter
:INPUT,FORWARD,OUTPUT
-m string --algo bm --string "test";-m string --string "test" --algo bm;OK
-m string --algo kmp --string "test";-m string --string "test" --algo kmp;OK
-m string --algo kmp ! --string "test";-m string ! --string "test" --algo kmp;OK
-m string ! --string "test" --algo kmp;=;OK
-m string --algo bm --string test;-m string --string "test" --algo bm;OK
-m string --string test --algo bm;-m string --string "test" --algo bm;OK
-m string --algo bm --string "two words";-m string --string "two words" --algo bm;OK
-m string --algo bm --string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";-m string --string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" --algo bm;OK
-m string --algo bm --string "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";;FAIL
-m string --algo bm --string "";;FAIL
-m string --algo bm --hex-string "|0a0a0a0a|";-m string --hex-string "|0a0a0a0a|" --algo bm;OK
-m string --algo bm --hex-string "|0a 0a 0a 0a|";-m string --hex-string "|0a0a0a0a|" --algo bm;OK
-m string --algo bm --hex-string "|41424344|";-m string --string "ABCD" --algo bm;OK
-m string --algo bm --hex-string "GET |2f|";-m string --string "GET /" --algo bm;OK
-m string --algo bm --hex-string "a|00|b";-m string --hex-string "|610062|" --algo bm;OK
-m string --algo bm --hex-string "|00|";-m string --hex-string "|00|" --algo bm;OK
-m string --algo bm --hex-string "|0|";;FAIL
-m string --algo bm --hex-string "|0g|";;FAIL
-m string --algo bm --hex-string "|0a";;FAIL
-m string --algo bm --hex-string "";;FAIL
-m string --algo bm --hex-string "|AbCd|";-m string --hex-string "|abcd|" --algo bm;OK
-m string --algo bm --hex-string "a\|b";;FAIL
-m string --algo bm --hex-string "|5c|";-m string --hex-string "|5c|" --algo bm;OK
-m string --algo bm --hex-string "x|5c|";-m string --hex-string "|785c|" --algo bm;OK
-m string --algo bm --hex-string "|22|";-m string --string "\"" --algo bm;OK
-m string --algo bm --hex-string "|7f|";-m string --hex-string "|7f|" --algo bm;OK
-m string --algo bm --hex-string "|20|";-m string --string " " --algo bm;OK
-m string --algo bm --string "a\"b";-m string --string "a\"b" --algo bm;OK
-m string --algo bm --string "a\\b";-m string --string "a\\b" --algo bm;OK
-m string --algo bm --string "it's";-m string --string "it's" --algo bm;OK
-m string --algo bm --string "tab\there";-m string --string "tabthere" --algo bm;OK
-m string --algo bm --string "a\\\\";-m string --hex-string "|615c5c|" --algo bm;OK
-m string --algo bm ! --hex-string "|0a0a|";-m string ! --hex-string "|0a0a|" --algo bm;OK
-m string --algo bm --string test --hex-string "|0a|";;FAIL
-m string --algo bm --string a --string b;;FAIL
-m string --algo bm --from 0 --to 65535 --string "test";-m string --string "test" --algo bm;OK
-m string --algo bm --from 10 --to 100 --string "test";-m string --string "test" --algo bm --from 10 --to 100;OK
-m string --algo bm --from 100 --to 10 --string "test";;FAIL
-m string --algo bm --from 10 --to 10 --string "test";-m string --string "test" --algo bm --from 10 --to 10;OK
-m string --algo bm --from 65535 --string "test";-m string --string "test" --algo bm --from 65535;OK
-m string --algo bm --from 65536 --string "test";;FAIL
-m string --algo bm --to 65536 --string "test";;FAIL
-m string --algo bm --to 0 --string "test";-m string --string "test" --algo bm --to 0;OK
-m string --algo bm --to 1 --string "test";-m string --string "test" --algo bm --to 1;OK
-m string --algo bm --from -1 --string "test";;FAIL
-m string --algo bm --from 0x10 --string "test";-m string --string "test" --algo bm --from 16;OK
-m string --algo bm --from 010 --string "test";-m string --string "test" --algo bm --from 8;OK
-m string --algo bm --from ten --string "test";;FAIL
-m string --algo bm --string "test" --icase;-m string --string "test" --algo bm --icase;OK
-m string --algo kmp --icase --string "Test";-m string --string "Test" --algo kmp --icase;OK
-m string --algo bm ! --icase --string "test";;FAIL
-m string --algo bm --string "test" ! --from 1;;FAIL
-m string --algo bm --string "test" --algo kmp;;FAIL
-m string --algo wrong --string test;;FAIL
-m string --algo BM --string test;;FAIL
-m string --algo fsm --string test;;FAIL
-m string --algo bm;;FAIL
-m string --string test;;FAIL
-m string;;FAIL
-p tcp --dport 80 -m string --algo bm --string "GET /";-p tcp -m tcp --dport 80 -m string --string "GET /" --algo bm;OK
-m string --algo bm --string "test" -m string --algo kmp --string "other";-m string --string "test" --algo bm -m string --string "other" --algo kmp;OK
-m string --algo bm --string "ü";-m string --hex-string "|c3bc|" --algo bm;OK
-m string --algo bm --string "a|b";-m string --string "a|b" --algo bm;OK
-m string --algo bm --string "|0a|";-m string --string "|0a|" --algo bm;OK
-6
-m string --algo bm --string "test";-m string --string "test" --algo bm;OK
-m string --algo kmp --hex-string "|de ad be ef|" --from 40 --to 200 --icase;-m string --hex-string "|deadbeef|" --algo kmp --from 40 --to 200 --icase;OK
*mangle
:PREROUTING,INPUT,FORWARD,OUTPUT,POSTROUTING
-4
-m string --algo bm --string "test";-m string --string "test" --algo bm;OK
*raw
:PREROUTING,OUTPUT
-m string --algo kmp --string "test";-m string --string "test" --algo kmp;OK
