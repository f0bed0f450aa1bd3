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
	printf 'bench: %s\n' "$*" >&"${BENCH_ERR:-2}"
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

# ir LOG: the total Ir callgrind collected.
ir()
{
	awk '/Collected :/ { v = $NF } END { print v + 0 }' "$1"
}

# perreq VAR NAME LAUNCH PATH [FIELD]: the instructions a server spends
# per request: started by the function LAUNCH PORT under callgrind (its
# log in $T/log/cg-NAME.vg), answering $REQ requests for PATH (with the
# header field FIELD), one connection each (pgbench req), less the same
# server answering none, divided by $REQ. VAR is set to that, 0 when the
# server did not start. (Not in a subshell: the servers must be started
# by this shell.)
perreq()
{
	local var=$1 name=$2 launch=$3 path=$4 a=0 b=0 n h=()
	[ $# -gt 4 ] && h=(-H "$5")
	printf -v "$var" 0
	for n in 0 "$REQ"; do
		start_on_port "cg-$name" "$launch" 60 || return 0
		[ "$n" -gt 0 ] && "$PGB" req -n "$n" -w 0 -p "$path" "${h[@]}" \
		    "127.0.0.1:$SPORT" >"$DATA/cg-$name-req.txt"
		stop_pids "$SPID"
		if [ "$n" = 0 ]; then
			a=$(ir "$T/log/cg-$name.vg")
		else
			b=$(ir "$T/log/cg-$name.vg")
		fi
	done
	printf -v "$var" %s "$(calc "($b - $a) / $REQ")"
}

# commas N: 1234567 as 1,234,567.
commas()
{
	awk -v n="$1" 'BEGIN { s = sprintf("%.0f", n); r = ""
		while (length(s) > 3) {
			r = "," substr(s, length(s) - 2) r
			s = substr(s, 1, length(s) - 3)
		}
		print s r }'
}

# over V LIMIT, under V LIMIT: V was measured (a number) and is above, or
# below, LIMIT; false when the benchmark that sets V did not run.
over()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		exit !(a ~ /^[0-9.e+-]+$/ && a + 0 > b + 0) }'
}
under()
{
	awk -v a="$1" -v b="$2" 'BEGIN {
		exit !(a ~ /^[0-9.e+-]+$/ && a + 0 < b + 0) }'
}

# irrun NAME [-i FILE] COMMAND...: the Ir of one run; the profile is kept
# in $DATA/cg-NAME.out.
irrun()
{
	local name=$1 in=/dev/null
	shift
	if [ "$1" = -i ]; then
		in=$2
		shift 2
	fi
	valgrind --tool=callgrind --callgrind-out-file="$DATA/cg-$name.out" \
	    --log-file="$T/log/cg-$name.log" "$@" <"$in" >/dev/null 2>&1
	ir "$T/log/cg-$name.log"
}
# share NAME FUNCTION: the percentage of a run's Ir spent in FUNCTION and
# what it calls (callgrind_annotate --inclusive).
share()
{
	callgrind_annotate --inclusive=yes --threshold=100 "$DATA/cg-$1.out" 2>/dev/null |
	    awk -v f="$2" 'index($0, ":" f " [") && match($0, /\( *[0-9.]+%\)/) {
		s = substr($0, RSTART, RLENGTH); gsub(/[ (%)]/, "", s)
		print s; exit }'
}

# irratio A B: A / B as "1.23×", "-" without B.
irratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b;
	    else printf "-" }'
}

# wrk_cpu ROUND CMD PID RPSFILE CPUFILE WRK...: run wrk (the command
# WRK...) against the server whose PID is PID; append, as runs for
# stats.awk (STATUS 1 when wrk saw errors), wrk's requests per second to
# RPSFILE and the server's CPU time per request answered (user and
# system, from /proc/PID/stat), in µs, to CPUFILE.
wrk_cpu()
{
	local r=$1 c=$2 pid=$3 f=$4 fc=$5 c0 c1
	shift 5
	c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	"$@" >"$T/wrk.out" 2>&1
	c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	awk -v r="$r" -v c="$c" -v t=$((c1 - c0)) \
	    -v us=$((1000000 / $(getconf CLK_TCK))) -v fc="$fc" '
	    /^Requests\/sec:/ { v = $2 }
	    / requests in / { n = $1 }
	    /Non-2xx|Socket errors/ { bad = 1 }
	    END { printf "run %d %d %s %d\n", r, c, v + 0, bad + 0
		printf "run %d %d %.2f %d\n", r, c,
		    (n > 0 ? t * us / n : 0), bad + 0 >>fc }' \
	    "$T/wrk.out" >>"$f"
}

# bg_cg NAME COMMAND...: COMMAND under callgrind in the background, its
# log (perreq reads the total there) in $T/log/cg-NAME.vg, the profile
# thrown away.
bg_cg()
{
	local name=$1
	shift
	bg "cg-$name" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    --log-file="$T/log/cg-$name.vg" "$@"
}
