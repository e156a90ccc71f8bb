# bench/lib/bench_result.sh — sourced by the shell benchmarks (not run by bench/run.sh: it lives
# below bench/lib/). Prints the machine-readable RESULT line described in bench/bench_result.h:
#   RESULT<TAB>bench<TAB>case<TAB>metric<TAB>pte<TAB>baseline_name<TAB>baseline<TAB>ratio<TAB>goal<TAB>status
# ratio > 1 means pte is better; "-" for an empty field; status PASS, FAIL or "-".

# bench_result BENCH CASE METRIC PTE BASELINE_NAME BASELINE RATIO GOAL STATUS
bench_result() {
  _br_line=RESULT
  for _br_f in "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9"; do
    [ -n "$_br_f" ] || _br_f=-
    _br_f=$(printf '%s' "$_br_f" | tr '\t\n|' '  /')
    _br_line=$(printf '%s\t%s' "$_br_line" "$_br_f")
  done
  printf '%s\n' "$_br_line"
}

# bench_num VALUE [UNIT]: VALUE with 3 significant digits or more, then " UNIT".
bench_num() {
  awk -v v="$1" -v u="${2:-}" 'BEGIN {
    if (v == "" || v < 0) { print "-"; exit }
    f = v >= 100 || v == int(v) ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3f"
    s = sprintf(f, v); if (u != "") s = s " " u; print s }'
}

# bench_ratio VALUE: a ratio as printed in the table (2 decimals below 10).
bench_ratio() {
  awk -v v="$1" 'BEGIN { if (v == "" || v <= 0) print "-"; else printf(v >= 100 ? "%.0f\n" : v >= 10 ? "%.1f\n" : "%.2f\n", v) }'
}

# bench_check VALUE OP LIMIT: prints PASS when "VALUE OP LIMIT" holds (OP: >=, <=, >, <), else FAIL.
bench_check() {
  awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
    ok = op == ">=" ? v + 0 >= l + 0 : op == "<=" ? v + 0 <= l + 0 : op == ">" ? v + 0 > l + 0 : v + 0 < l + 0
    print (v == "" ? "FAIL" : ok ? "PASS" : "FAIL") }'
}
