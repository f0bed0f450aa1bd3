# SPDX-License-Identifier: ISC
# tests/http.sh: reading raw HTTP answers, for the serve tests. Source it
# after tests/lib.sh.

CR=$'\r'

# split_answer FILE: split a raw HTTP answer into STATUS (the status line,
# CR removed), CODE, REASON, $T/hdr (header lines, CR removed), $T/body
# (the bytes after the empty line, exactly), BODY (the body without its
# final newline) and HEAD_END (1 when the empty line was found).
split_answer()
{
	local f=$1 n=0 line first=1
	STATUS='' CODE='' REASON='' HEAD_END=0
	: >"$T/hdr"
	while IFS= read -r line; do
		n=$((n + ${#line} + 1))
		line=${line%"$CR"}
		if [ "$first" = 1 ]; then
			STATUS=$line
			first=0
		elif [ -z "$line" ]; then
			HEAD_END=1
			break
		else
			printf '%s\n' "$line" >>"$T/hdr"
		fi
	done <"$f"
	if [[ $STATUS =~ ^HTTP/[0-9.]+\ ([0-9]{3})(\ (.*))?$ ]]; then
		CODE=${BASH_REMATCH[1]}
		REASON=${BASH_REMATCH[3]}
	fi
	if [ "$HEAD_END" -eq 1 ]; then
		tail -c +$((n + 1)) "$f" >"$T/body"
	else
		: >"$T/body"
	fi
	BODY=$(cat "$T/body")
}

# hdr NAME: the value of a header of the last answer (name without case).
hdr()
{
	sed -n "s/^$1:[[:space:]]*//Ip" "$T/hdr" | head -n 1
}

# tcp_ask HOST PORT REQUEST: send REQUEST on a new connection, read the
# answer until the server closes (at most 10 s) and split it.
tcp_ask()
{
	local fd
	: >"$T/ans"
	if exec {fd}<>"/dev/tcp/$1/$2"; then
		(printf '%s' "$3" >&"$fd") 2>/dev/null
		timeout 10 cat <&"$fd" >"$T/ans" 2>/dev/null
		exec {fd}>&-
	fi
	split_answer "$T/ans"
}

# age_ok GOT AGE_MS T0 DESC: GOT is the elapsed time of a record written
# AGE_MS old at T0 (now_ms), give or take the time since.
age_ok()
{
	num_between "$1" $(($2 - 50)) $(($2 + $(now_ms) - $3 + 2000)) "$4"
}

# wait_listen PORT PID [SECONDS]: wait (10 s) until PORT listens while PID
# runs; 1 when PID died or the time ran out.
wait_listen()
{
	local port=$1 pid=$2
	wait_for "${3:-10}" eval 'port_listening $port || ! _pg_alive $pid' &&
	    _pg_alive "$pid" && port_listening "$port"
}

# start_on_port NAME LAUNCH [SECONDS]: call "LAUNCH PORT" (which starts a
# super-server with bg) for a free port (free_port) until one listens
# within SECONDS (10); up to five ports. SPORT and SPID; 1 when none worked
# (its stderr is shown).
start_on_port()
{
	local name=$1 launch=$2 p
	for _ in 1 2 3 4 5; do
		free_port || break
		p=$FREE_PORT
		"$launch" "$p"
		SPID=$BGPID
		if wait_listen "$p" "$SPID" "${3:-10}"; then
			SPORT=$p
			return 0
		fi
		kill -TERM "$SPID" 2>/dev/null
		wait_exit "$SPID" 5 >/dev/null
	done
	diag_file "$T/$name.err" "$name stderr"
	return 1
}
