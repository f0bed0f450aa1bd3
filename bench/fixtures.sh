# SPDX-License-Identifier: ISC
# bench/fixtures.sh: what the benchmarks share, set up once (sourced by
# bench/run): 64 standalone serves as peers (PEERPORTS, PEERPIDS, P1 the
# first one's port, peer_rss) with the resident memory of the fresh ones
# (PRSS_*), and check configs $T/cN.conf naming the first N of them
# (mkcheck), URL1 the first one's URL.

# The peers: 64 standalone pollguard-serve processes, one per port, each
# with a record of cluster mail older than the wait (so every check goes).
mkdir -p "$T/peerstate"
cat >"$T/peer.conf" <<EOF
[pollguard]
node = peer
state = $T/peerstate
[cluster mail]
wait = 10s
EOF
chmod 600 "$T/peer.conf"
read -r up _ </proc/uptime
AGE=$(awk -v u="$up" 'BEGIN { a = int(u * 500); print (a > 600000 ? 600000 : a) }')
if [ "$AGE" -gt 10000 ]; then
	"$PGSTATE" -c "$T/peer.conf" write mail "$AGE" ||
	    die "pgstate write failed"
fi

launch_peer()
{
	bg "peer$NPEER" "$SERVE" -c "$T/peer.conf" -l "127.0.0.1:$1"
}
PEERPORTS=()
PEERPIDS=()
section setup "starting 64 pollguard-serve peers"
for ((NPEER = 1; NPEER <= 64; NPEER++)); do
	start_on_port "peer$NPEER" launch_peer || die "a peer did not start"
	PEERPORTS+=("$SPORT")
	PEERPIDS+=("$SPID")
done
P1=${PEERPORTS[0]}
# peer_rss FILE: the RSS (CMD 0) and PSS (CMD 1) of the 64 peers, in KiB,
# as runs for stats.awk.
peer_rss()
{
	local p
	for p in "${PEERPIDS[@]}"; do
		rss "$p"
	done | awk '{ print "run " NR - 1 " 0 " $1 " 0"
	    print "run " NR - 1 " 1 " $2 " 0" }' >"$1"
}
# The resident memory of 64 serves that have answered nothing yet.
peer_rss "$DATA/peer-rss-fresh.txt"
read -r _ _ PRSS_MED PRSS_MIN PRSS_MAX _ < <(stats "$DATA/peer-rss-fresh.txt" 1 0 |
    awk '$1 == 0')
section_done

# mkcheck FILE STATE SETTLE PORT...: a check config with these peers.
mkcheck()
{
	local f=$1 state=$2 settle=$3 i=0 p
	shift 3
	{
		printf '[pollguard]\nnode = bench\nstate = %s\nsettle = %s\n' \
		    "$state" "$settle"
		for p in "$@"; do
			i=$((i + 1))
			printf '[peer p%d]\nurl = http://127.0.0.1:%s\n' "$i" "$p"
		done
		printf '[cluster mail]\nwait = 10s\n'
	} >"$f"
	chmod 600 "$f"
}
mkcheck "$T/c1.conf" "$T/state" 0 "$P1"
mkcheck "$T/c1settle.conf" "$T/state" 500ms "$P1"
mkcheck "$T/c4.conf" "$T/state" 0 "${PEERPORTS[@]:0:4}"
mkcheck "$T/c16.conf" "$T/state" 0 "${PEERPORTS[@]:0:16}"
mkcheck "$T/c64.conf" "$T/state" 0 "${PEERPORTS[@]:0:64}"
ONE=()
for ((i = 0; i < 64; i++)); do
	ONE+=("$P1")
done
mkcheck "$T/c64one.conf" "$T/state" 0 "${ONE[@]}"
[ -n "$SHM" ] && mkcheck "$T/c1shm.conf" "$SHM/state" 0 "$P1"
"$CHECK" -c "$T/c64.conf" mail || die "pollguard-check with 64 peers failed"
URL1=http://127.0.0.1:$P1/v1/elapsed/mail
