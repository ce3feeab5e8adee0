# case_tails.sh - sourced by ab.sh and compare.sh: the cases a CASES
# pattern leaves out only by the tail Google Benchmark puts on a
# two-thread case's name.  send_pipelined/quakes-2m is listed and
# filtered as send_pipelined/quakes-2m/process_time/real_time (the wall
# clock, with both threads' CPU time), so a pattern anchored with '$'
# after the dataset skips it without a word.
# lab_cases_left_out RE prints, of the names on its input, each one RE
# does not match that RE matches without that tail; lab_cases_tail_refusal
# RE prints, for the same input, why the pattern is refused (nothing
# when none is left out).
# Not for: other tails (/real_time/threads:N names a throughput case of
# its own, not the same case).
# shellcheck shell=sh

lab_cases_left_out() {
	while IFS= read -r t_name; do
		case $t_name in
		*/process_time/real_time) ;;
		*) continue ;;
		esac
		printf '%s\n' "$t_name" | grep -Eq -- "$1" && continue
		printf '%s\n' "${t_name%/process_time/real_time}" |
			grep -Eq -- "$1" && printf '%s\n' "$t_name"
	done
	return 0
}

lab_cases_tail_refusal() {
	t_out=$(lab_cases_left_out "$1" | paste -sd' ' -)
	[ -z "$t_out" ] ||
		printf '%s\n' "CASES='$1' leaves out $t_out by its name's tail: end the pattern with /process_time/real_time\$ there, or leave that \$ off"
	return 0
}
