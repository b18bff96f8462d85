#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# coverage.sh [DIR...]: what the fuzz corpora reach in the device model.  Builds
# every libFuzzer target (or those of device-model/fuzz/DIR...) with clang's
# source-based coverage in build/fuzz-coverage, replays each target's corpus --
# the checked-in seeds plus what `make fuzz` grew in $ORNIC_CACHE/fuzz/corpus --
# once, and from each profile (llvm-profdata, llvm-cov) writes to
# $ORNIC_CACHE/fuzz/coverage/report.txt: line and function coverage of
# device-model/src per target and for all targets together, the per-file table,
# and the functions of the files the targets exercise that no input reaches
# (device-model/fuzz/common/coverage_report.py).
# The report is cached by the sources and corpora it came from: unchanged, a
# second run prints it again without building or replaying.  `make
# fuzz-coverage` runs this in the testbed.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_COVERAGE_BUILD:-$src/build/fuzz-coverage}
cache=${ORNIC_CACHE:-/var/cache/ornic}
grown=$cache/fuzz/corpus
out=$cache/fuzz/coverage
jobs=${JOBS:-$(nproc)}
dirs=("$@")
[ ${#dirs[@]} -gt 0 ] || dirs=("*")

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

targets=()
for pattern in "${dirs[@]}"; do
	# shellcheck disable=SC2206 # the pattern is meant to glob ("*" = every target)
	targets+=("$src"/device-model/fuzz/$pattern/)
done
names=()
for dir in "${targets[@]}"; do
	if [ ! -f "$dir/CMakeLists.txt" ] || [ ! -d "$dir/corpus" ]; then continue; fi
	name=$(sed -n 's/^add_executable(\(fuzz_[a-z0-9_]*\) .*/\1/p' "$dir/CMakeLists.txt" | head -n 1)
	[ -n "$name" ] && names+=("$(basename "$dir"):$name")
done
[ ${#names[@]} -gt 0 ] || { echo "coverage.sh: no fuzz target matches ${dirs[*]}" >&2; exit 2; }

# The key of a report: the model's sources, the fuzz targets and the names of
# every corpus input (libFuzzer names an input by its SHA-1).
key=$({
	printf '%s\n' "${names[@]}"
	cd "$src" && find device-model include -path '*/corpus' -prune -o -type f -print0 |
		sort -z | xargs -0 sha256sum
	for entry in "${names[@]}"; do
		find "$src/device-model/fuzz/${entry%%:*}/corpus" "$grown/${entry#*:}" -type f \
			-printf '%f\n' 2>/dev/null | sort || true
	done
} | sha256sum | cut -d' ' -f1)
report=$out/report.txt
if [ -f "$report" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
	say "sources and corpora unchanged: the cached report $report"
	sed -n '1,/^$/p' "$report"
	exit 0
fi

say "building the fuzz targets with coverage in $build (log: $build.log)"
mkdir -p "$build"
flags="-fprofile-instr-generate -fcoverage-mapping"
if ! { CCACHE_DIR=$cache/ccache cmake -S "$src/device-model" -B "$build" -G Ninja \
	-DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER=clang \
	-DCMAKE_CXX_COMPILER=clang++ -DORNIC_FUZZ=ON -DORNIC_TESTS=OFF -DORNIC_SANITIZE=OFF \
	-DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
	-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate &&
	CCACHE_DIR=$cache/ccache ninja -C "$build" -j "$jobs" "${names[@]#*:}"; } >"$build.log" 2>&1; then
	tail -n 30 "$build.log" >&2
	echo "coverage.sh: build failed, see $build.log" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/profiles" "$out/scratch"
lcovs=()
for entry in "${names[@]}"; do
	dir=$src/device-model/fuzz/${entry%%:*}
	target=${entry#*:}
	binary=$build/fuzz/${entry%%:*}/$target
	mkdir -p "$grown/$target"
	max_len=$(grep -o -- '-max_len=[0-9]*' "$dir/CMakeLists.txt" | head -n 1 || true)
	inputs=$(find "$dir/corpus" "$grown/$target" -type f | wc -l)
	say "replaying $inputs inputs of $target"
	# -runs=0: execute the corpora once, mutate nothing.  A scratch first
	# directory, so nothing is ever written into the corpora themselves.
	if ! LLVM_PROFILE_FILE=$out/profiles/$target.profraw "$binary" -runs=0 -timeout=10 \
		-rss_limit_mb=2048 ${max_len:+"$max_len"} -artifact_prefix="$out/profiles/" "$out/scratch" "$dir/corpus" "$grown/$target" \
		>"$out/profiles/$target.log" 2>&1; then
		tail -n 20 "$out/profiles/$target.log" >&2
		echo "coverage.sh: $target failed replaying its corpus, see $out/profiles/$target.log" >&2
		exit 1
	fi
	# Each target against its own binary: the targets' own functions (one
	# LLVMFuzzerTestOneInput each) would not merge into one profile.
	llvm-profdata merge -sparse "$out/profiles/$target.profraw" -o "$out/profiles/$target.profdata"
	llvm-cov export -format=lcov "$binary" -instr-profile "$out/profiles/$target.profdata" \
		"$src/device-model/src" >"$out/profiles/$target.lcov"
	lcovs+=("$target=$out/profiles/$target.lcov")
done
rmdir "$out/scratch"
{
	echo "Fuzz corpus coverage of device-model/src (llvm-cov; profiles in $out/profiles)"
	python3 "$src/device-model/fuzz/common/coverage_report.py" "$src" "${lcovs[@]}"
} >"$report"
echo "$key" >"$out/key"
sed -n '1,/^$/p' "$report"
say "report: $report ($(grep -c '^ *[0-9]\+  ' "$report" || true) functions no input reaches)"
