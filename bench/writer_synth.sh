#!/bin/sh
# Streaming writer benchmark: `pte synth large` writes a SIZE model (default 4 GiB of generated
# constants, never held in memory) while /usr/bin/time -v records its peak RSS; then `cp` copies a
# file of the same size in the same run. Reports RSS and the throughput ratio writer / cp, both
# with the data made durable (writer: fsync at publish; cp: followed by `sync FILE`) and without.
# Usage: bench/writer_synth.sh [BUILD_DIR]   (env: SIZE=4G, DIR=<dir for the files>)
# Targets: peak RSS <= 64 MiB, ratio >= 0.8. Also prints RESULT lines (bench/bench_result.h).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/lib/bench_result.sh"
build=${1:-$root/build}
pte="$build/pte"
size=${SIZE:-4G}
dir=${DIR:-$build/bench-tmp}
[ -x "$pte" ] || { echo "writer_synth: $pte not built"; exit 1; }
if [ ! -x /usr/bin/time ]; then
  echo "writer_synth: /usr/bin/time missing: skipped"
  bench_result writer_synth "$size model" "throughput / peak RSS" "skipped: /usr/bin/time missing (apt-get install time)" - - - - -
  exit 0
fi
mkdir -p "$dir"
bytes=$(numfmt --from=iec "$size")
need=$((bytes * 2 + (1 << 30)))
avail=$(df -P -k "$dir" | awk 'NR==2 {printf "%.0f", $4 * 1024}')
if [ "$(echo "$avail < $need" | bc)" = 1 ]; then
  echo "writer_synth: needs $need bytes free in $dir, have $avail: skipped"
  bench_result writer_synth "$size model" "throughput / peak RSS" "skipped: needs $((need >> 20)) MiB free disk" - - - - -
  exit 0
fi
out="$dir/synth_large.pte"
copy="$dir/synth_copy.pte"
log="$dir/time.log"
trap 'rm -f "$out" "$copy" "$log" "$dir/rss.log"' EXIT INT TERM

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

best_w=""; best_wn=""; best_c=""; best_cn=""
rsslog="$dir/rss.log"; : > "$rsslog"
# The source file cp copies: written once, then kept (and page cached) for every cp.
"$pte" synth large --size "$size" --quiet --no-fsync -o "$out" > /dev/null
sync
writer() { # $1: extra flag; prints wall seconds, records peak RSS
  rm -f "$copy"; sync
  /usr/bin/time -v "$pte" synth large --size "$size" --quiet $1 -o "$copy" > /dev/null 2> "$log"
  awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$log" >> "$rsslog"
  awk '/Elapsed \(wall clock\)/ {n = split($NF, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$log"
}
copier() { # $1: "sync" to flush the copy; prints wall seconds
  rm -f "$copy"; sync
  t0=$(now); cp "$out" "$copy"; [ "$1" = sync ] && sync "$copy"; t1=$(now)
  elapsed "$t0" "$t1"
}
keep_best() { eval best=\$best_$1; if [ -z "$best" ] || [ "$(echo "$2 < $best" | bc -l)" = 1 ]; then eval best_$1=$2; fi; }
rounds=${ROUNDS:-3}
i=0
while [ $i -lt "$rounds" ]; do
  if [ $((i % 2)) = 0 ]; then
    keep_best w "$(writer "")"; keep_best c "$(copier sync)"
    keep_best wn "$(writer --no-fsync)"; keep_best cn "$(copier nosync)"
  else
    keep_best c "$(copier sync)"; keep_best w "$(writer "")"
    keep_best cn "$(copier nosync)"; keep_best wn "$(writer --no-fsync)"
  fi
  i=$((i + 1))
done
rss=$(sort -n "$rsslog" | tail -1)
fsize=$(stat -c %s "$out")
mib=$((fsize >> 20))
printf 'file             %s MiB (pte synth large --size %s)\n' "$mib" "$size"
printf 'peak RSS         %s KiB (target <= 65536)\n' "$rss"
printf 'durable          writer %.2f s (%.0f MiB/s)   cp+sync %.2f s (%.0f MiB/s)   ratio %.2f (target >= 0.8)\n' \
  "$best_w" "$(echo "$mib / $best_w" | bc -l)" "$best_c" "$(echo "$mib / $best_c" | bc -l)" "$(echo "$best_c / $best_w" | bc -l)"
printf 'best of %s rounds each\n' "$rounds"
printf 'page cache only  writer %.2f s (%.0f MiB/s)   cp      %.2f s (%.0f MiB/s)   ratio %.2f\n' \
  "$best_wn" "$(echo "$mib / $best_wn" | bc -l)" "$best_cn" "$(echo "$mib / $best_cn" | bc -l)" "$(echo "$best_cn / $best_wn" | bc -l)"
c="$mib MiB model (pte synth large)"
bench_result writer_synth "$c" "peak RSS" "$(bench_num "$(echo "$rss / 1024" | bc -l)" MiB)" - - - "<= 64 MiB" \
  "$(bench_check "$rss" "<=" 65536)"
bench_result writer_synth "$c" "throughput, durable" "$(bench_num "$(echo "$mib / $best_w" | bc -l)" MiB/s)" \
  "cp + sync FILE" "$(bench_num "$(echo "$mib / $best_c" | bc -l)" MiB/s)" "$(bench_ratio "$(echo "$best_c / $best_w" | bc -l)")" \
  ">= 0.8" "$(bench_check "$(echo "$best_c / $best_w" | bc -l)" ">=" 0.8)"
bench_result writer_synth "$c" "throughput, page cache (--no-fsync)" "$(bench_num "$(echo "$mib / $best_wn" | bc -l)" MiB/s)" \
  "cp" "$(bench_num "$(echo "$mib / $best_cn" | bc -l)" MiB/s)" "$(bench_ratio "$(echo "$best_cn / $best_wn" | bc -l)")" - -
