# tunables.sh - sourced by the scripts that start measured processes: the
# glibc malloc settings harness/bench/memhooks.c applies with mallopt()
# (LAB_BENCH_TRIM_THRESHOLD and LAB_BENCH_MMAP_THRESHOLD in
# harness/bench/bench.h), here in force from the process's first
# allocation on (Google Benchmark's static set-up), so freed memory stays
# in the heap and no iteration faults its pages in again
# (docs/measuring.md, "Freed memory stays in the process").  Sets
# lab_tunables; the caller exports it as GLIBC_TUNABLES or writes it into
# the command line it records.
# Not for: settings that differ between runs.
# shellcheck shell=sh disable=SC2034
lab_tunables=glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432
