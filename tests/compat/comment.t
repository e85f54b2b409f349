# comment match: quoting with spaces and quotes, length limit (255 chars).
*filter
:INPUT,FORWARD,OUTPUT
-m comment --comment foo;=;OK
-m comment --comment "foo";-m comment --comment foo;OK
-m comment --comment "foo bar";=;OK
-m comment --comment 'foo bar';;FAIL
-m comment --comment "foo  bar";=;OK
-m comment --comment " leading";=;OK
-m comment --comment "foo \"bar\"";=;OK
-m comment --comment 'say "hi"';;FAIL
-m comment --comment "it's";-m comment --comment "it\'s";OK
-m comment --comment "";=;OK
-m comment --comment "#hash";=;OK
-m comment --comment "back\\slash";=;OK
-m comment --comment "tab\there";-m comment --comment tabthere;OK
-m comment --comment 123;=;OK
-m comment --comment --;=;OK
-m comment --comment "utf8 é";=;OK
-m comment --comment xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;=;OK
-m comment --comment xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;-m comment --comment xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx;OK
-m comment;;FAIL
-m comment --comment;;FAIL
-m comment --comment a -m comment --comment b;=;OK
-m comment --comment a --comment b;;FAIL
-m comment ! --comment a;;FAIL
-p tcp --dport 22 -m comment --comment "ssh in" -j ACCEPT;-p tcp -m tcp --dport 22 -m comment --comment "ssh in" -j ACCEPT;OK
-m comment --comment "first" -p tcp --dport 22;-p tcp -m comment --comment first -m tcp --dport 22;OK
-6
-m comment --comment "v6 rule";=;OK
