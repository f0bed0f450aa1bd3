#!/bin/bash
# SPDX-License-Identifier: ISC
# Every source compiles without a warning under gcc and clang at
# -Wall -Wextra; pollguard-touch and pollguard-serve do not link libcurl.
. "$PG_TOP/tests/lib.sh"

srcs=$(cd "$PG_TOP" && ls lib/*.c bin/*.c tests/pgstate.c)
flags="-std=c99 -D_GNU_SOURCE -DLIBBSD_OPENBSD_VIS -Wall -Wextra -Werror -O2
-DPG_VERSION=\"$(cat "$PG_TOP/VERSION")\" -I$PG_TOP/lib $(pkg-config --cflags libbsd-overlay inih libcurl)"
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		skip "$cc not installed"
		continue
	fi
	bad=""
	for f in $srcs; do
		# shellcheck disable=SC2086
		$cc $flags -c -o /dev/null "$PG_TOP/$f" 2>>"$T/$cc.log" || bad="$bad $f"
	done
	[ -n "$bad" ] && sed 's/^/# /' "$T/$cc.log" | head -20
	is "$bad" "" "$cc -Wall -Wextra: no warnings"
done

# Linking libcurl costs every process start milliseconds: only check needs it.
for tool in pollguard-touch pollguard-serve; do
	libs=$(ldd "$PG_BIN/$tool" | awk '{print $1}' | tr '\n' ' ')
	case "$libs" in
	*libcurl*) not_ok "$tool does not link libcurl: $libs" ;;
	*) ok "$tool does not link libcurl" ;;
	esac
done
libs=$(ldd "$PG_BIN/pollguard-check" | awk '{print $1}' | tr '\n' ' ')
case "$libs" in
*libcurl*) ok "pollguard-check links libcurl" ;;
*) not_ok "pollguard-check links libcurl: $libs" ;;
esac
finish
