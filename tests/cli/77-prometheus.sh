#!/bin/bash
# SPDX-License-Identifier: ISC
# etc/prometheus/pollguard.rules.yml and pollguard-serve's /metrics, with
# Debian's promtool:
#
#	the rules		promtool check rules; promtool test rules with
#				tests/prometheus/pollguard.test.yml (each alert
#				firing and not firing)
#	/metrics		of a real pollguard-serve on loopback, whose
#				records and outcomes come from real
#				pollguard-touch runs (a success, a failure twice,
#				a timeout, a run still going, a cluster never
#				run): promtool check metrics finds nothing, and
#				the values the alerts read are the runs'
#	the names		every metric the rules use is one /metrics emits,
#				so that a renamed metric cannot leave an alert
#				that never fires
#
# Skipped, with the reason, when promtool is not installed.
. "${PG_TOP:-.}/tests/lib.sh"
. "$PG_TOP/tests/http.sh"

NTESTS=18
RULES=$PG_TOP/etc/prometheus/pollguard.rules.yml
RTEST=$PG_TOP/tests/prometheus/pollguard.test.yml
if ! command -v promtool >/dev/null 2>&1; then
	skip "promtool is not installed (Debian's prometheus package; scripts/deps installs it)" "$NTESTS"
	finish
fi
command -v curl >/dev/null 2>&1 || bail "curl is not installed (scripts/deps installs it)"

# --- the rules ---------------------------------------------------------------

exit_is 0 "promtool check rules: the rules file is valid" \
    promtool check rules "$RULES"
[ "$RC" = 0 ] || diag_file "$T/out" "promtool's output"
exit_is 0 "promtool test rules: every alert fires and stays quiet as tested" \
    promtool test rules "$RTEST"
[ "$RC" = 0 ] || { diag_file "$T/out" "stdout"; diag_file "$T/err" "stderr"; }

# --- /metrics of a node whose jobs ran -------------------------------------

mkconf <<EOF
[cluster good]
wait = 10m
peers =
[cluster bad]
wait = 10m
peers =
[cluster slow]
wait = 10m
peers =
max_runtime = 200ms
kill_after = 1s
[cluster busy]
wait = 10m
peers =
[cluster never]
wait = 5m
peers =
EOF
exit_is 0 "a job that succeeds (cluster good)" "$TOUCH" -c "$CONF" good -- true
exit_is 1 "a job that fails (cluster bad)" "$TOUCH" -c "$CONF" bad -- false
exit_is 1 "... and fails again" "$TOUCH" -c "$CONF" bad -- sh -c 'exit 1'
exit_is 124 "a job that outlasts max_runtime (cluster slow): 124" \
    "$TOUCH" -c "$CONF" slow -- sleep 10
bg busy "$TOUCH" -c "$CONF" busy -- sleep 60
BUSY_PID=$BGPID
wait_for 10 lock_held busy || bail "the run of cluster busy did not start"

serve_start n "$CONF" || bail "pollguard-serve did not start"
curl -sS -o "$T/metrics" -w '%{http_code} %{content_type}\n' \
    "http://127.0.0.1:$PORT/metrics" >"$T/code" 2>"$T/curl.err"
is "$(cat "$T/code")" "200 text/plain; version=0.0.4; charset=utf-8" \
    "GET /metrics: 200, Prometheus' text format"
exit_is 0 "promtool check metrics: no problem" \
    promtool check metrics <"$T/metrics"
out_empty "promtool check metrics: no lint message"
err_empty "promtool check metrics: nothing on stderr"

# value METRIC CLUSTER: the sample's value in $T/metrics; "absent" if none.
value()
{
	local v
	v=$(sed -n "s/^$1{cluster=\"$2\"} //p" "$T/metrics")
	echo "${v:-absent}"
}
is "$(value pollguard_last_exit_code good)/$(value pollguard_last_exit_code bad)/$(value pollguard_last_exit_code slow)" \
    0/1/124 "last_exit_code: 0, 1, and 124 for the timeout (as touch exits)"
is "$(value pollguard_failures_in_a_row good)/$(value pollguard_failures_in_a_row bad)/$(value pollguard_failures_in_a_row slow)" \
    0/2/1 "failures_in_a_row: 0, 2 (two failures), 1 (a timeout is a failure)"
is "$(value pollguard_last_success_age_seconds bad)/$(value pollguard_last_success_age_seconds never)" \
    absent/absent "last_success_age_seconds: absent where no run ever succeeded"
num_between "$(value pollguard_last_success_age_seconds good | tr -d .)" 0 60000 \
    "last_success_age_seconds: present, recent, after the success"
is "$(value pollguard_running busy)/$(value pollguard_running good)" 1/0 \
    "running: 1 for the run going on, 0 after one that ended"
stop_pids "$BUSY_PID"

# --- every metric the rules read is one /metrics emits -------------------------

# Names in expressions and in the annotations' queries alike. A sample,
# not only a # TYPE line, must be there.
names=$(grep -o 'pollguard_[a-z_]*' "$RULES" | sort -u)
missing=
for n in $names; do
	grep -q "^$n[{ ]" "$T/metrics" || missing="$missing $n"
done
num_between "$(echo "$names" | wc -w)" 6 100 \
    "the rules use the pollguard metrics ($(echo $names))"
is "${missing# }" "" "every pollguard metric the rules use is in /metrics"
# Any other metric a rule selects must be Prometheus' own up.
is "$(grep -o '[a-z_]*{job="pollguard"' "$RULES" | sed 's/{.*//' |
    grep -v '^pollguard_' | sort -u)" up \
    "the only other metric the rules read is Prometheus' up"

serve_stop "$SERVE_PID" >/dev/null
finish
