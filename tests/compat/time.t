# time match: --datestart --datestop --timestart --timestop --weekdays --monthdays --kerneltz
# --utc --contiguous, '!'.
*filter
:INPUT,FORWARD,OUTPUT
-m time --timestart 09:00 --timestop 17:00;-m time --timestart 09:00:00 --timestop 17:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --timestart 09:00:30 --timestop 17:00:59;-m time --timestart 09:00:30 --timestop 17:00:59 --datestop 2038-01-19T03:14:07;OK
-m time --timestart 22:00 --timestop 06:00;-m time --timestart 22:00:00 --timestop 06:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --timestart 22:00 --timestop 06:00 --contiguous;-m time --timestart 22:00:00 --timestop 06:00:00 --datestop 2038-01-19T03:14:07 --contiguous;OK
-m time --timestart 9:00;-m time --timestart 09:00:00 --timestop 23:59:59 --datestop 2038-01-19T03:14:07;OK
-m time --timestop 17:00;-m time --timestart 00:00:00 --timestop 17:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --weekdays Mon,Tue,Wed;-m time --weekdays Mon,Tue,Wed --datestop 2038-01-19T03:14:07;OK
-m time --weekdays 1,2,7;-m time --weekdays Mon,Tue,Sun --datestop 2038-01-19T03:14:07;OK
-m time --weekdays Sun,Sat;-m time --weekdays Sat,Sun --datestop 2038-01-19T03:14:07;OK
-m time ! --weekdays Sat,Sun;-m time --weekdays Mon,Tue,Wed,Thu,Fri --datestop 2038-01-19T03:14:07;OK
-m time --weekdays Monday;-m time --weekdays Mon --datestop 2038-01-19T03:14:07;OK
-m time --weekdays mon;;FAIL
-m time --monthdays 1,15,31;-m time --monthdays 1,15,31 --datestop 2038-01-19T03:14:07;OK
-m time ! --monthdays 1;-m time --monthdays 2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31 --datestop 2038-01-19T03:14:07;OK
-m time --monthdays 32;;FAIL
-m time --datestart 2024-01-01;-m time --datestart 2024-01-01T00:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --datestart 2024-01-01T10:00:00;-m time --datestart 2024-01-01T10:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --datestop 2038-01-19T03:14:07;=;OK
-m time --datestop 2040-01-01;;FAIL
-m time --datestart 2024-01-01 --datestop 2024-12-31T23:59:59;-m time --datestart 2024-01-01T00:00:00 --datestop 2024-12-31T23:59:59;OK
-m time --datestart 1969-12-31;;FAIL
-m time --datestart 2024-13-01;;FAIL
-m time --timestart 09:00 --kerneltz;-m time --timestart 09:00:00 --timestop 23:59:59 --datestop 2038-01-19T03:14:07 --kerneltz;OK
-m time --timestart 09:00 --utc;-m time --timestart 09:00:00 --timestop 23:59:59 --datestop 2038-01-19T03:14:07;OK
-m time --utc;-m time --datestop 2038-01-19T03:14:07;OK
-m time --kerneltz;-m time --datestop 2038-01-19T03:14:07 --kerneltz;OK
-m time;-m time --datestop 2038-01-19T03:14:07;OK
-m time --timestart 25:00;;FAIL
-m time --timestart 09:60;;FAIL
-m time --timestart 23:59:59;-m time --timestart 23:59:59 --timestop 23:59:59 --datestop 2038-01-19T03:14:07;OK
-m time --timestart 00:00 --timestop 23:59:59;-m time --datestop 2038-01-19T03:14:07;OK
-m time --contiguous;;FAIL
-m time --timestart 09:00 --timestop 09:00;-m time --timestart 09:00:00 --timestop 09:00:00 --datestop 2038-01-19T03:14:07;OK
-m time --weekdays Mon --monthdays 1;-m time --monthdays 1 --weekdays Mon --datestop 2038-01-19T03:14:07;OK
-m time --weekdays Mon,Mon;-m time --weekdays Mon --datestop 2038-01-19T03:14:07;OK
-m time --timestart 09:00 --timestop 17:00 --weekdays Mon,Tue,Wed,Thu,Fri --kerneltz;-m time --timestart 09:00:00 --timestop 17:00:00 --weekdays Mon,Tue,Wed,Thu,Fri --datestop 2038-01-19T03:14:07 --kerneltz;OK
