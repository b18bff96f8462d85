#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# fuzz.sh [SECONDS [DIR...]]: build every libFuzzer target (clang, ASan/UBSan,
# the flags qemu-tests/check-model.sh uses) in build/fuzz, or only those of
# device-model/fuzz/DIR..., and run each for SECONDS (default 60) -- or, with
# FUZZ_RUNS=N in the environment, for N executions (`make fuzz FUZZ_LONG=1`:
# 10^7) -- on its corpus: the checked-in seeds plus what earlier runs found,
# kept in $ORNIC_CACHE/fuzz/corpus/TARGET, where this run adds what it finds.
# Prints one line per target -- executions, exec/s, seconds, coverage (cov:
# edges, ft: features), corpus size, and the artifact of any crash, timeout or
# OOM -- and exits non-zero if any target found one or ran below
# FUZZ_MIN_EXEC_S executions per second (default 1000: below that a campaign
# of minutes reaches too few inputs to matter).  `make fuzz FUZZ_SECONDS=N`
# runs this in the testbed.  A crash found becomes a regression input: fix the
# model, then copy the artifact into the target's corpus directory (its short
# ctest run, part of `make check`, replays it from then on).
set -uo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
shift $(($# > 0 ? 1 : 0))
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("*")
build=${FUZZ_BUILD:-$src/build/fuzz}
runs=$build/fuzz-runs
jobs=${JOBS:-$(nproc)}
cache=${ORNIC_CACHE:-/var/cache/ornic}
grown=$cache/fuzz/corpus
runs_limit=${FUZZ_RUNS:-}
case $seconds$runs_limit in
'' | *[!0-9]*) echo "fuzz.sh: SECONDS and FUZZ_RUNS must be numbers, not '$seconds' '$runs_limit'" >&2; exit 2 ;;
esac

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

targets=()
for pattern in "${dirs[@]}"; do
	# shellcheck disable=SC2206 # the pattern is meant to glob ("*" = every target)
	targets+=("$src"/device-model/fuzz/$pattern/)
done
names=() # DIR:TARGET
for dir in "${targets[@]}"; do
	if [ ! -f "$dir/CMakeLists.txt" ] || [ ! -d "$dir/corpus" ]; then continue; fi
	target=$(sed -n 's/^add_executable(\(fuzz_[a-z0-9_]*\) .*/\1/p' "$dir/CMakeLists.txt" | head -n 1)
	[ -n "$target" ] && names+=("$(basename "$dir"):$target")
done
[ ${#names[@]} -gt 0 ] || { echo "fuzz.sh: no fuzz target matches ${dirs[*]}" >&2; exit 2; }

say "building ${names[*]#*:} in $build (log: $build.log)"
mkdir -p "$build"
if ! { CCACHE_DIR=$cache/ccache cmake -S "$src/device-model" -B "$build" -G Ninja \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER=clang \
	-DCMAKE_CXX_COMPILER=clang++ -DORNIC_FUZZ=ON -DORNIC_TESTS=OFF &&
	CCACHE_DIR=$cache/ccache ninja -C "$build" -j "$jobs" "${names[@]#*:}"; } >"$build.log" 2>&1; then
	tail -n 30 "$build.log" >&2
	echo "fuzz.sh: build failed, see $build.log" >&2
	exit 1
fi

# One value of libFuzzer's log: the last "NAME: N" of a status line, or a final stat.
last_field() { # last_field LOG NAME
	grep -o "$2: [0-9]*" "$1" | tail -n 1 | sed 's/.*: //'
}
final_stat() { # final_stat LOG NAME
	sed -n "s/^stat::$2: *//p" "$1" | tail -n 1
}

failed=0
table=$runs/summary.txt
mkdir -p "$runs"
printf '%-16s %12s %8s %7s %7s %7s %7s  %s\n' target executions exec/s seconds cov ft corpus result \
	>"$table"
for entry in "${names[@]}"; do
	dir=$src/device-model/fuzz/${entry%%:*}
	target=${entry#*:}
	binary=$build/fuzz/${entry%%:*}/$target
	work=$runs/$target
	rm -rf "$work"
	mkdir -p "$work" "$grown/$target"
	# The input size limit the target's ctest run uses (its CMakeLists.txt), if any.
	max_len=$(grep -o -- '-max_len=[0-9]*' "$dir/CMakeLists.txt" | head -n 1)
	# The target's dictionary of protocol tokens, if it has one.
	dict=$(find "$dir" -maxdepth 1 -name '*.dict' | head -n 1)
	# libFuzzer stops itself after max_total_time or runs; the outer timeout
	# only guards against a hang outside its control (loading a huge corpus, a
	# stuck exit), at 100 executions per second for a number of runs.
	if [ -n "$runs_limit" ]; then
		limit=(-runs="$runs_limit")
		guard=$((runs_limit / 100 + 300))
		say "fuzzing $target for $runs_limit executions (log: $work/log)"
	else
		limit=(-max_total_time="$seconds")
		guard=$((seconds + 300))
		say "fuzzing $target for ${seconds}s (log: $work/log)"
	fi
	# New inputs go to the first directory, the cached corpus; the checked-in
	# seeds are only read.
	start=$(date +%s)
	timeout --kill-after=30 "$guard" "$binary" "${limit[@]}" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 ${max_len:+"$max_len"} ${dict:+-dict="$dict"} \
		-artifact_prefix="$work/" "$grown/$target" "$dir/corpus" >"$work/log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/log" | head -n 1)
	artifact=${artifact#"$src"/}
	result=ok
	if [ "$rc" -ne 0 ] || [ -n "$artifact" ]; then
		failed=1
		kind=$(grep -o -m 1 -E 'ERROR: libFuzzer: [a-z-]+( [a-z-]+)?|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|runtime error' "$work/log")
		result="FAILED (exit $rc${kind:+, $kind}) ${artifact:-no artifact, see $work/log}"
	fi
	rate=$(final_stat "$work/log" average_exec_per_sec)
	if [ "$result" = ok ] && [ "${rate:-0}" -lt "${FUZZ_MIN_EXEC_S:-1000}" ] 2>/dev/null; then
		failed=1
		result="SLOW (below ${FUZZ_MIN_EXEC_S:-1000} exec/s)"
	fi
	printf '%-16s %12s %8s %7s %7s %7s %7s  %s\n' "$target" \
		"$(final_stat "$work/log" number_of_executed_units)" "$rate" "$took" \
		"$(last_field "$work/log" cov)" "$(last_field "$work/log" ft)" \
		"$(find "$dir/corpus" "$grown/$target" -type f | wc -l)" "$result" >>"$table"
done
cat "$table"
if [ "$failed" -ne 0 ]; then
	echo "fuzz.sh: a target failed or was slow; reproduce a crash with: build/fuzz/fuzz/<dir>/<target> <artifact>" >&2
	exit 1
fi
