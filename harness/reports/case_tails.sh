# case_tails.sh - sourced by ab.sh and compare.sh: the cases a CASES
# pattern leaves out only by the tail Google Benchmark puts on a
# two-thread case's name.  send_pipelined/quakes-2m is listed and
# filtered as send_pipelined/quakes-2m/process_time/real_time (the wall
# clock, with both threads' CPU time), so a pattern anchored with '$'
# after the dataset skips it without a word.
# lab_cases_left_out RE prints, of the names on its input, each one RE
# does not match that RE matches without that tail.
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
