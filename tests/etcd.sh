# SPDX-License-Identifier: ISC
# tests/etcd.sh: etcd on loopback for the tests of the etcd backend.
# Source it after tests/lib.sh.
#
# Members are named (a, b, c...); every member has a client and a peer
# URL on 127.0.0.1, ports from free_port (outside the ephemeral range,
# reserved for the test), and its data in $ETCD_DATA/NAME (on tmpfs when
# there is one).
# Several clusters may run side by side: each member remembers its own
# command line, so that it can be stopped and restarted by name; the last
# one started is the current one (ETCD_CUR, its members: set it to
# switch).
#
#	etcd_need COUNT		skip COUNT tests and finish when etcd, etcdctl
#				or openssl is missing
#	etcd_certs		a CA, a server and a client certificate, and
#				another CA with a client certificate
#				($ETCD_TLS/NAME.crt, .key; short validity)
#	etcd_cluster NAME...	start one cluster of these members, wait until
#				it is healthy; it becomes the current cluster
#	etcd_stop NAME		stop one member by PID
#	etcd_restart NAME	start it again on its ports and data
#	etcd_healthy [SECS] [NAME...]	every named member answers a
#				linearizable read (default: the current
#				cluster's, 30 s)
#	etcd_leader		the name of the current cluster's leader
#	etcd_ctl ARG...		etcdctl against the current cluster, with its
#				TLS files and, once auth is on, root's password
#	etcd_auth		root and a user $ETCD_USER with a role allowed
#				the prefix $ETCD_PREFIX, then auth enable
#	etcd_endpoints [NAME...]	the client URLs, comma-separated
#	etcd_key CLUSTER	the key of a cluster's activity
#	etcd_lease CLUSTER, etcd_lease_ttl LEASE	its lease, and TTL
#	etcd_revoke LEASE	revoke a lease (decimal ID) over the gateway
#				with curl: its key goes too
#	etcd_raft_index		the current cluster's raft index (it counts
#				every write: grants, txns, revokes)
#	etcd_section [LINE...]	a config's [etcd] section on the cluster
#				(endpoints: $ETCD_PG_ENDPOINTS when set)
#	etcd_mkconf NODE FILE [LINE...] < CLUSTERS	a pollguard config of
#				node NODE on the current cluster
#
# ETCD_SCHEME=https before etcd_cluster serves clients over TLS with
# etcd_certs' server certificate; ETCD_CLIENT_CERT_AUTH=1 also requires a
# client certificate signed by the CA.

: "${PG_TOP:?source tests/lib.sh first}"

ETCD_PREFIX=${ETCD_PREFIX:-/pollguard-test/}
ETCD_USER=pollguard
ETCD_PASSWORD=pg-secret-$RANDOM$RANDOM
ETCD_ROOT_PASSWORD=root-secret-$RANDOM$RANDOM
ETCD_TLS=$T/etcd-tls
ETCD_SCHEME=${ETCD_SCHEME:-http}
ETCD_CLIENT_CERT_AUTH=${ETCD_CLIENT_CERT_AUTH:-0}
# Seconds etcd_cluster and etcd_restart wait for a healthy cluster.
ETCD_START_SECS=${ETCD_START_SECS:-60}

declare -A ETCD_PID=() ETCD_URL=() ETCD_CMD=() ETCD_AUTH=() ETCD_TLSARGS=()
ETCD_CUR=()
_etcd_n=0

# The members' data: on tmpfs (/dev/shm) when there is one, where etcd's
# fsync of every write costs next to nothing, so that rounds are bounded
# by pollguard's work and not by the disk of a shared machine; removed
# on exit after what tests/lib.sh removes (the EXIT trap is chained).
# A caller that sets ETCD_DATA (make bench, to measure etcd on the
# disk) gets that directory.
if [ -n "${ETCD_DATA:-}" ]; then
	mkdir -p -m 700 "$ETCD_DATA"
elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] &&
    ETCD_DATA=$(mktemp -d /dev/shm/pollguard-etcd.XXXXXX); then
	eval "_etcd_trap=($(trap -p EXIT))"
	trap "${_etcd_trap[2]:-}; rm -rf '$ETCD_DATA'" EXIT
else
	ETCD_DATA=$T/etcd
fi

# etcd_need COUNT: skip the COUNT tests of the script, and finish, when
# what the etcd tests need is not installed.
etcd_need()
{
	local c
	for c in etcd etcdctl openssl; do
		if ! command -v "$c" >/dev/null 2>&1; then
			skip "$c is not installed (scripts/deps installs etcd-server, etcd-client and openssl)" "$1"
			finish
		fi
	done
}

# --- certificates -----------------------------------------------------------

# _etcd_cert NAME CN CA EXT...: an EC key $ETCD_TLS/NAME.key and a
# certificate NAME.crt for CN, valid two days, signed by CA (self-signed
# when CA is "-"), with the given extension lines.
_etcd_cert()
{
	local n=$1 cn=$2 ca=$3 d=$ETCD_TLS
	shift 3
	printf '%s\n' "$@" >"$d/$n.ext"
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -subj "/CN=$cn" -keyout "$d/$n.key" -out "$d/$n.csr" \
	    >>"$d/openssl.log" 2>&1 || return 1
	chmod 600 "$d/$n.key"
	if [ "$ca" = - ]; then
		openssl x509 -req -in "$d/$n.csr" -signkey "$d/$n.key" \
		    -days 2 -extfile "$d/$n.ext" -out "$d/$n.crt"
	else
		openssl x509 -req -in "$d/$n.csr" -CA "$d/$ca.crt" \
		    -CAkey "$d/$ca.key" -CAcreateserial -days 2 \
		    -extfile "$d/$n.ext" -out "$d/$n.crt"
	fi >>"$d/openssl.log" 2>&1
}

# etcd_certs: ca (the CA), server (IP:127.0.0.1 and localhost, for
# server and client use: etcd's own gateway dials the server with it),
# client (CN $ETCD_USER: with auth on, etcd takes the CN as the user
# name), otherca and otherclient (a client certificate of the other CA).
# 1, with openssl's output shown, when one fails.
etcd_certs()
{
	local ca='basicConstraints = critical, CA:TRUE'
	mkdir -p "$ETCD_TLS"
	if _etcd_cert ca "pollguard test CA" - "$ca" \
	    'keyUsage = critical, keyCertSign, cRLSign' &&
	    _etcd_cert otherca "pollguard other CA" - "$ca" \
	    'keyUsage = critical, keyCertSign, cRLSign' &&
	    _etcd_cert server 127.0.0.1 ca 'basicConstraints = CA:FALSE' \
	    'subjectAltName = IP:127.0.0.1, DNS:localhost' \
	    'extendedKeyUsage = serverAuth, clientAuth' &&
	    _etcd_cert client "$ETCD_USER" ca 'basicConstraints = CA:FALSE' \
	    'extendedKeyUsage = clientAuth' &&
	    _etcd_cert otherclient "$ETCD_USER" otherca \
	    'basicConstraints = CA:FALSE' 'extendedKeyUsage = clientAuth'; then
		return 0
	fi
	diag_file "$ETCD_TLS/openssl.log" openssl
	return 1
}

# --- members ----------------------------------------------------------------

# etcd_endpoints [NAME...]: the client URLs of these members (default:
# the current cluster's), comma-separated.
etcd_endpoints()
{
	local n s=
	[ $# -gt 0 ] || set -- "${ETCD_CUR[@]}"
	for n; do
		s="$s${s:+,}${ETCD_URL[$n]}"
	done
	printf '%s\n' "$s"
}

# _etcd_launch NAME: start the member with its command line.
_etcd_launch()
{
	local n=$1
	# shellcheck disable=SC2086 # a command line of words without blanks
	bg "etcd-$n" ${ETCD_CMD[$n]}
	ETCD_PID[$n]=$BGPID
}

# _etcd_ctl NAME ARG...: etcdctl for the member's cluster, on the member's
# URL (or, with NAME "-", every member of the current cluster).
_etcd_ctl()
{
	local n=$1 ep a
	shift
	if [ "$n" = - ]; then
		ep=$(etcd_endpoints)
		n=${ETCD_CUR[0]}
	else
		ep=${ETCD_URL[$n]}
	fi
	a=(--endpoints="$ep" --dial-timeout=2s --command-timeout=5s)
	# shellcheck disable=SC2206 # file names without blanks
	a+=(${ETCD_TLSARGS[$n]})
	[ -z "${ETCD_AUTH[$n]}" ] || a+=(--user="root:$ETCD_ROOT_PASSWORD")
	ETCDCTL_API=3 timeout -k 2 20 etcdctl "${a[@]}" "$@"
}

etcd_ctl()
{
	_etcd_ctl - "$@"
}

# etcd_healthy [SECS] [NAME...]: wait (SECS, default 30) until every named
# member (default: the current cluster's) serves a linearizable read,
# which needs a leader and a quorum; 1 when the time runs out.
etcd_healthy()
{
	local secs=30 n
	[[ ${1:-} =~ ^[0-9]+$ ]] && { secs=$1; shift; }
	[ $# -gt 0 ] || set -- "${ETCD_CUR[@]}"
	for n; do
		wait_for "$secs" eval '_etcd_ctl "$n" endpoint health \
		    >"$T/etcd-health.out" 2>&1 || ! _pg_alive "${ETCD_PID[$n]}"' \
		    && _pg_alive "${ETCD_PID[$n]}" || {
			if _pg_alive "${ETCD_PID[$n]}"; then
				diag "etcd member $n is not healthy after ${secs}s"
			else
				diag "etcd member $n exited"
			fi
			diag_file "$T/etcd-health.out" "etcdctl endpoint health"
			diag_file "$T/etcd-$n.err" "etcd $n stderr"
			return 1
		}
	done
}

# etcd_cluster NAME...: start a cluster of these members and wait until
# it is healthy (ETCD_START_SECS); ETCD_CUR names them. Ports are picked
# anew, up to three times, when a member does not come up (another
# process may take a port between free_port and etcd's bind). 1 when it
# never did.
etcd_cluster()
{
	local try n init tls= try_ok
	case $ETCD_SCHEME in
	http) ;;
	https)
		[ -f "$ETCD_TLS/server.crt" ] || etcd_certs || return 1
		tls="--cert-file $ETCD_TLS/server.crt"
		tls="$tls --key-file $ETCD_TLS/server.key"
		if [ "$ETCD_CLIENT_CERT_AUTH" = 1 ]; then
			tls="$tls --trusted-ca-file $ETCD_TLS/ca.crt"
			tls="$tls --client-cert-auth"
		fi
		;;
	*) bail "ETCD_SCHEME must be http or https" ;;
	esac
	ETCD_CUR=("$@")
	for try in 1 2 3; do
		_etcd_n=$((_etcd_n + 1))
		init=
		declare -A pport=()
		for n; do
			free_port && pport[$n]=$FREE_PORT || return 1
			free_port || return 1
			ETCD_URL[$n]=$ETCD_SCHEME://127.0.0.1:$FREE_PORT
			init="$init${init:+,}$n=http://127.0.0.1:${pport[$n]}"
		done
		for n; do
			rm -rf "${ETCD_DATA:?}/$n"
			mkdir -p -m 700 "$ETCD_DATA/$n"
			ETCD_AUTH[$n]=
			ETCD_TLSARGS[$n]=
			if [ "$ETCD_SCHEME" = https ]; then
				ETCD_TLSARGS[$n]="--cacert $ETCD_TLS/ca.crt"
				[ "$ETCD_CLIENT_CERT_AUTH" = 1 ] &&
				    ETCD_TLSARGS[$n]="${ETCD_TLSARGS[$n]} --cert $ETCD_TLS/client.crt --key $ETCD_TLS/client.key"
			fi
			ETCD_CMD[$n]="etcd --name $n --data-dir $ETCD_DATA/$n/data
			    --listen-client-urls ${ETCD_URL[$n]}
			    --advertise-client-urls ${ETCD_URL[$n]}
			    --listen-peer-urls http://127.0.0.1:${pport[$n]}
			    --initial-advertise-peer-urls http://127.0.0.1:${pport[$n]}
			    --initial-cluster $init
			    --initial-cluster-token pollguard-test-$$-$_etcd_n
			    --initial-cluster-state new
			    --logger zap --log-outputs stderr --log-level warn $tls"
			_etcd_launch "$n"
		done
		try_ok=1
		for n; do
			etcd_healthy "$ETCD_START_SECS" "$n" || { try_ok=0; break; }
		done
		[ "$try_ok" = 1 ] && return 0
		for n; do
			stop_pids "${ETCD_PID[$n]}"
		done
		diag "etcd cluster $* did not come up (try $try)"
	done
	return 1
}

# etcd_stop NAME: stop the member by its PID (SIGTERM, then SIGKILL).
etcd_stop()
{
	stop_pids "${ETCD_PID[$1]}"
}

# etcd_kill NAME: SIGKILL the member at once, as a crash would.
etcd_kill()
{
	kill -KILL "${ETCD_PID[$1]}" 2>/dev/null
	wait_exit "${ETCD_PID[$1]}" 5 >/dev/null
}

# etcd_restart NAME: start a stopped member again, on its ports and its
# data (the initial-cluster flags are ignored once a member has data).
# It does not wait: etcd_healthy does.
etcd_restart()
{
	_pg_alive "${ETCD_PID[$1]}" && return 0
	_etcd_launch "$1"
}

# etcd_leader: the name of the current cluster's leader as the running
# members see it (endpoint status, "simple": the fifth field says
# whether the answering member leads); empty when none does.
etcd_leader()
{
	local n
	for n in "${ETCD_CUR[@]}"; do
		_pg_alive "${ETCD_PID[$n]}" || continue
		if _etcd_ctl "$n" endpoint status -w simple 2>/dev/null |
		    awk -F', ' '$5 == "true" { f = 1 } END { exit !f }'; then
			echo "$n"
			return 0
		fi
	done
	return 1
}

# etcd_auth: a root user, a user $ETCD_USER ($ETCD_PASSWORD) with a role
# of its name allowed to read and write keys under $ETCD_PREFIX, and auth
# enabled on the current cluster; from then on etcd_ctl is root.
etcd_auth()
{
	local n
	{
		etcd_ctl user add root --new-user-password="$ETCD_ROOT_PASSWORD" &&
		    etcd_ctl role add "$ETCD_USER" &&
		    etcd_ctl role grant-permission "$ETCD_USER" --prefix=true \
		    readwrite "$ETCD_PREFIX" &&
		    etcd_ctl user add "$ETCD_USER" \
		    --new-user-password="$ETCD_PASSWORD" &&
		    etcd_ctl user grant-role "$ETCD_USER" "$ETCD_USER" &&
		    etcd_ctl auth enable
	} >"$T/etcd-auth.out" 2>&1 || {
		diag_file "$T/etcd-auth.out" "etcdctl (auth)"
		return 1
	}
	for n in "${ETCD_CUR[@]}"; do
		ETCD_AUTH[$n]=1
	done
}

# etcd_key CLUSTER: the key of a cluster's activity.
etcd_key()
{
	printf '%s%s\n' "$ETCD_PREFIX" "$1"
}

# etcd_lease CLUSTER: the ID (decimal) of the lease the cluster's key is
# attached to; empty, and 1, when the key does not exist.
etcd_lease()
{
	etcd_ctl get "$(etcd_key "$1")" -w fields 2>/dev/null |
	    awk -F' : ' '$1 == "\"Lease\"" { print $2; f = 1 } END { exit !f }'
}

# etcd_lease_ttl LEASE: the remaining TTL in seconds of a lease (decimal
# ID); -1 when it has expired or was revoked.
etcd_lease_ttl()
{
	etcd_ctl lease timetolive "$(printf '%x' "$1")" -w fields 2>/dev/null |
	    awk -F' : ' '$1 == "\"TTL\"" { print $2 }'
}

# etcd_revoke LEASE: revoke a lease (decimal ID) at the first member of
# the current cluster (http, no auth), with curl and not etcdctl, whose
# start costs ten times more: a race of a thousand rounds revokes a
# thousand. 1, with the answer shown, when etcd did not take it.
etcd_revoke()
{
	local u=${ETCD_URL[${ETCD_CUR[0]}]}/v3/lease/revoke a
	a=$(curl -sS -m 5 --noproxy '*' -d "{\"ID\":\"$1\"}" "$u" 2>&1)
	[[ $a == *'"header"'* && $a != *'"error"'* ]] || {
		diag "revoke of lease $1: $a"
		return 1
	}
}

# etcd_raft_index: the raft index of the first member of the current
# cluster (the same on every member once applied); empty when it cannot
# be read.
etcd_raft_index()
{
	_etcd_ctl "${ETCD_CUR[0]}" endpoint status -w fields 2>/dev/null |
	    awk -F' : ' '$1 == "\"RaftIndex\"" { print $2 }'
}

# etcd_section [LINE...]: an [etcd] section on the current cluster:
# its endpoints (or $ETCD_PG_ENDPOINTS, comma-separated: a node that
# reaches the members through proxies), prefix $ETCD_PREFIX, timeout
# $ETCD_PG_TIMEOUT (default 3s), the CA as cafile when the cluster
# serves https, and the LINEs.
etcd_section()
{
	local ep=${ETCD_PG_ENDPOINTS:-$(etcd_endpoints)}
	printf '[etcd]\nendpoints = %s\nprefix = %s\ntimeout = %s\n' \
	    "${ep//,/, }" "$ETCD_PREFIX" \
	    "${ETCD_PG_TIMEOUT:-3s}"
	case ${ETCD_URL[${ETCD_CUR[0]}]} in
	https:*) printf 'cafile = %s\n' "$ETCD_TLS/ca.crt" ;;
	esac
	[ $# -eq 0 ] || printf '%s\n' "$@"
}

# etcd_mkconf NODE FILE [LINE...] < CLUSTERS: a config for node NODE:
# state $T/NODE.state, etcd_section with the LINEs, then the cluster
# sections from stdin. Mode 600.
etcd_mkconf()
{
	local node=$1 f=$2
	shift 2
	mkdir -p -m 700 "$T/$node.state"
	{
		printf '[pollguard]\nnode = %s\nstate = %s\n' "$node" \
		    "$T/$node.state"
		etcd_section "$@"
		cat
	} >"$f"
	chmod 600 "$f"
}
