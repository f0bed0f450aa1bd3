# SPDX-License-Identifier: ISC
# bench/b-touch.sh: pollguard-touch against touch(1) (sourced by
# bench/run). Writes $T/t.conf and $T/tshm.conf, which bench/b-filter.sh
# and bench/b-callgrind.sh use, and sets R_TOUCH, R_TOUCHSHM.

section touch "pollguard-touch against touch(1)"
cat >"$T/t.conf" <<EOF
[pollguard]
node = bench
state = $T/tstate
[cluster mail]
wait = 10m
EOF
N=$(rounds 100)
F=$DATA/touch.txt
ALT=("$PGB" alt -n "$N" -w 3 touch "$T/touched" ::: "$TOUCH" -c "$T/t.conf" mail)
LABELS=("touch FILE" "pollguard-touch mail")
if [ -n "$SHM" ]; then
	sed "s|^state = .*|state = $SHM/tstate|" "$T/t.conf" >"$T/tshm.conf"
	ALT+=(::: "$TOUCH" -c "$T/tshm.conf" mail ::: touch "$SHM/touched")
	LABELS+=("pollguard-touch mail, state directory on tmpfs" "touch FILE, on tmpfs")
fi
"${ALT[@]}" >"$F"
R_TOUCH=$(get "$F" 1e6 0 1 6)
R_TOUCHSHM=$([ -n "$SHM" ] && get "$F" 1e6 0 2 6)
M_TOUCH=$(get "$F" 1e6 0 1 3)
M_TOUCH1=$(get "$F" 1e6 0 0 3)
md <<EOF
## pollguard-touch against touch(1)

touch(1) sets a file's times (one utimensat). pollguard-touch reads its
config, opens the state directory, reads the record (to keep a claim's
horizon) and replaces it durably: a temporary file, write, fsync, rename,
so that a crash never leaves a torn or empty record. On tmpfs, where
fsync and rename cost next to nothing, the difference to the first
pollguard row is what durability costs on this machine's $FS file system.

    $(show "${ALT[@]}")

$(table "$F" 1e6 ms 0 touch "${LABELS[@]}")

EOF
res="$(printf '%.2f×' "$R_TOUCH") ($(printf '%.2f' "$M_TOUCH") ms vs $(printf '%.2f' "$M_TOUCH1") ms)"
[ -n "$SHM" ] && res="$res; state on tmpfs: $(printf '%.2f×' "$R_TOUCHSHM")"
target "\`pollguard-touch CLUSTER\`" "\`touch(1)\` on a file" "≤ 1.5×" "$res" "$(verdict le "$R_TOUCH" 1.5)"
section_done
