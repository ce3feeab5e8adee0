# paired.sh - sourced by compare.sh and by `make reference`'s check
# before it starts: the cases and timing of the paired process, best's
# send and receive, ref's and gSOAP's, and the floor's parts, in one
# process with their repetitions in random order (compare.sh says why).  Sets
# lab_paired_cases (the names before the slash) and lab_paired_datasets;
# lab_paired_preflight_datasets is the same without quakes-2m, whose
# cases take most of the process's time (gSOAP's alone over a minute):
# the check before the run runs the paired process on those, so that it
# measures the process the run is judged by, in well under a minute.
# lab_paired_flags MIN_TIME prints the process's timing flags, the same
# for both: 9 repetitions of MIN_TIME seconds, in random order.
# Not for: which datasets a run has (compare.sh's CASES, FULL and DATA).
# shellcheck shell=sh disable=SC2034
lab_paired_cases='ref:send|ref:receive|gsoap:send|gsoap:receive|send|receive|floor:sha256|floor:sha256_small|floor:aes256gcm|floor:aes256gcm_decrypt|floor:rsa_sign|floor:rsa_verify|floor:rsa_oaep_wrap|floor:rsa_oaep_unwrap'
lab_paired_datasets='quakes-2k|ints-800|quakes-200k|quakes-2m'
lab_paired_preflight_datasets='quakes-2k|ints-800|quakes-200k'

lab_paired_flags() {
	echo "--benchmark_min_time=$1 --benchmark_repetitions=9" \
		"--benchmark_display_aggregates_only=true" \
		"--benchmark_enable_random_interleaving=true"
}
