# rpfilter match: --loose --validmark --accept-local --invert; raw/mangle PREROUTING.
*raw
:PREROUTING
-m rpfilter;=;OK
-m rpfilter --loose;=;OK
-m rpfilter --validmark;=;OK
-m rpfilter --accept-local;=;OK
-m rpfilter --invert;=;OK
-m rpfilter --invert --accept-local --validmark --loose;-m rpfilter --loose --validmark --accept-local --invert;OK
-m rpfilter --loose --loose;;FAIL
-m rpfilter ! --loose;;FAIL
-m rpfilter --invert -j DROP;=;OK
-6
-m rpfilter --invert -j DROP;=;OK
-m rpfilter --loose;=;OK
*mangle
:PREROUTING
-m rpfilter;=;OK
:INPUT
-m rpfilter;;FAIL
*filter
:INPUT
-m rpfilter;;FAIL
