# SPDX-License-Identifier: ISC
# bench/lib.sh: the helpers of the benchmarks that the tests do not need:
# rounds, progress messages, the reduction of pgbench's runs with
# bench/stats.awk, the markdown of BENCHMARKS.md, and memory readings.
# Processes, ports and the temporary directory are tests/lib.sh's and
# tests/http.sh's, which bench/run sources first.

# Rounds of each comparison (BENCH_QUICK: a tenth, at least 2).
rounds()
{
	if [ "$QUICK" = 1 ]; then
		echo $(($1 / 10 > 2 ? $1 / 10 : 2))
	else
		echo "$1"
	fi
}

say()
{
	printf 'bench: %s\n' "$*" >&2
}

die()
{
	say "$*"
	exit 1
}

# stats FILE SCALE REF: the summary lines of a data file (bench/stats.awk),
# also kept as FILE.REF.stats.
stats()
{
	awk -v scale="$2" -v ref="$3" -f "$STATS" "$1" | tee "$1.$3.stats"
}

# get FILE SCALE REF CMD FIELD: one field (2 n, 3 median, 4 min, 5 max,
# 6 ratio, 7 bad, 8 and 9 the quartiles) of one command's summary.
get()
{
	stats "$1" "$2" "$3" | awk -v c="$4" -v f="$5" '$1 == c { print $f }'
}

# calc EXPR: floating point arithmetic in awk.
calc()
{
	awk "BEGIN { printf \"%.6g\", $1 }"
}

# le A B: A <= B (floating point).
le()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		exit !(a ~ /^[0-9.e+-]+$/ && b ~ /^[0-9.e+-]+$/ && a + 0 <= b + 0) }'
}

# table FILE SCALE UNIT REF REFNAME LABEL...: a markdown table of one
# alternation: a row per command, ratios to command REF.
table()
{
	local f=$1 scale=$2 unit=$3 ref=$4 refname=$5
	shift 5
	local labels=("$@")
	printf '| command | runs | median | min – max | ÷ %s (median of per-round ratios) | failed runs |\n' "$refname"
	printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
	stats "$f" "$scale" "$ref" | while read -r c n med lo hi rat bad _; do
		awk -v l="${labels[$c]}" -v n="$n" -v med="$med" -v lo="$lo" \
		    -v hi="$hi" -v rat="$rat" -v bad="$bad" -v u="$unit" 'BEGIN {
			d = med >= 100 ? 0 : med >= 10 ? 1 : 2
			printf "| %s | %d | %.*f %s | %.*f – %.*f %s | %.2f× | %d |\n",
			    l, n, d, med, u, d, lo, d, hi, u, rat, bad }'
	done
}

# show COMMAND...: a command as it ran, with the temporary and build
# directories shortened.
show()
{
	local a s=""
	for a in "$@"; do
		case $a in
		*[[:space:]]* | *\** | "") a="'$a'" ;;
		esac
		s="$s${s:+ }$a"
	done
	s=${s//$BIN\//}
	s=${s//$BB/build\/bench}
	s=${s//$T/\$T}
	[ -n "$SHM" ] && s=${s//$SHM/\$SHM}
	s=${s//$TOP\//}
	printf '%s\n' "$s"
}

# target MEASUREMENT COMPARED TARGET RESULT MET
target()
{
	printf '| %s | %s | %s | %s | %s |\n' "$@" >>"$TARGETS"
}

verdict()
{
	if "$@"; then echo "**met**"; else echo "**not met**"; fi
}

md()
{
	cat >>"$T/md/$SECTION.md"
}

section()
{
	SECTION=$1
	SECTION_T0=$SECONDS
	say "$2"
}

section_done()
{
	say "  done in $((SECONDS - SECTION_T0)) s"
	echo "$SECTION $((SECONDS - SECTION_T0))" >>"$T/times"
}

# rss PID: VmRSS, the proportional set size (shared pages divided among
# the processes that map them), the peak VmHWM and the anonymous part of
# the RSS, in KiB: "RSS PSS HWM ANON".
rss()
{
	local r h p a
	r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	p=$(awk '/^Pss:/ { print $2 }' "/proc/$1/smaps_rollup" 2>/dev/null)
	a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null)
	echo "${r:-0} ${p:-0} ${h:-0} ${a:-0}"
}

# rss_tree PID: RSS and PSS of a process and its descendants, summed.
rss_tree()
{
	local p r s h tr=0 tp=0
	for p in "$1" $(_pg_descendants "$1"); do
		read -r r s h _ < <(rss "$p")
		tr=$((tr + r))
		tp=$((tp + s))
	done
	echo "$tr $tp"
}

mib()
{
	calc "$1 / 1024"
}
