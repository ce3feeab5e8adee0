# profiler.sh - sourced by the scripts that sample a case with gperftools
# (profile.sh, profile_diff.sh): where its libprofiler.so is, to preload.
# Not for: running pprof or reading what it prints.
# shellcheck shell=sh

# lab_profiler: prints the first libprofiler.so among /usr/lib's
# multiarch folders, in the glob's (sorted) order; exit 1, printing
# nothing, when there is none.
lab_profiler() {
	for lab_profiler_lib in /usr/lib/*/libprofiler.so; do
		if [ -e "$lab_profiler_lib" ]; then
			echo "$lab_profiler_lib"
			return 0
		fi
	done
	return 1
}
