#!/bin/sh
# cachegeom.sh LEVEL TYPE - one cache of cpu0 as valgrind's --D1/--LL
# take it, "size,associativity,line" in bytes: LEVEL 1, 2 or 3, TYPE Data
# (a Unified cache does too) or Unified.  From /sys (the kernel's
# cacheinfo); where /sys has none, as on some virtual machines, from
# getconf, which glibc answers from CPUID.  Prints nothing when neither
# gives all three as positive numbers: valgrind then guesses, and may
# guess an LL hundreds of MB large, which no profile should be read
# against (profile.sh says so).  CACHEGEOM_SYSFS replaces the /sys
# folder, for tests.
# Not for: which level profile.sh simulates (PROFILE_LL).
set -u
level=${1:?usage: cachegeom.sh LEVEL TYPE}
type=${2:?type}
sysfs=${CACHEGEOM_SYSFS:-/sys/devices/system/cpu/cpu0/cache}

# positive N...: whether each argument is a number above 0.
positive() {
	for n; do
		case $n in '' | *[!0-9]*) return 1 ;; esac
		[ "$n" -gt 0 ] || return 1
	done
}

for d in "$sysfs"/index*; do
	[ "$(cat "$d/level" 2>/dev/null)" = "$level" ] || continue
	case $(cat "$d/type") in "$type" | Unified) ;; *) continue ;; esac
	size=$(sed 's/K$/*1024/; s/M$/*1048576/' "$d/size")
	# $size is an expression ("32*1024"): dash needs it expanded
	# shellcheck disable=SC2004
	size=$(($size))
	ways=$(cat "$d/ways_of_associativity")
	line=$(cat "$d/coherency_line_size")
	positive "$size" "$ways" "$line" && echo "$size,$ways,$line"
	exit 0
done
case $level in
1) key=LEVEL1_DCACHE ;;
*) key=LEVEL${level}_CACHE ;;
esac
size=$(getconf "${key}_SIZE" 2>/dev/null) || size=
ways=$(getconf "${key}_ASSOC" 2>/dev/null) || ways=
line=$(getconf "${key}_LINESIZE" 2>/dev/null) || line=
if positive "$size" "$ways" "$line"; then
	echo "$size,$ways,$line"
fi
exit 0
