#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Build the device model twice inside the testbed -- g++ with ASan/UBSan for
# the unit tests, clang with libFuzzer for the fuzz targets -- run both test
# sets with ctest and record one result line per test in $RESULTS.  The
# sanitized build also runs ornic-bench (device-model/bench/) once in a smoke
# mode, so the microbenchmarks keep building and running.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
RESULTS=${RESULTS:?}
BUILD=${BUILD:-$ORNIC_SRC/build/check}
src=$ORNIC_SRC/device-model
jobs=${JOBS:-$(nproc)}

build_and_test() { # build_and_test NAME BUILD_DIR CMAKE_ARGS...
	local name=$1 dir=$2 log
	shift 2
	log=$dir.log
	# ccache in the cache dir: a clean clone rebuilds the model in seconds
	# when its sources did not change.
	if ! { CCACHE_DIR=$ORNIC_CACHE/ccache cmake -S "$src" -B "$dir" -G Ninja \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
		-DCMAKE_C_COMPILER_LAUNCHER=ccache "$@" &&
		CCACHE_DIR=$ORNIC_CACHE/ccache ninja -C "$dir" -j "$jobs"; } >"$log" 2>&1; then
		tail -n 30 "$log"
		echo "FAIL: model/$name-build see $log" | tee -a "$RESULTS"
		return
	fi
	echo "PASS: model/$name-build" | tee -a "$RESULTS"
	ctest --test-dir "$dir" --output-junit "$dir/junit.xml" -j "$jobs" --timeout 300 \
		>"$dir/ctest.log" 2>&1
	python3 "$here/junit-results.py" "model/" "$dir/junit.xml" | tee -a "$RESULTS"
	grep -q -E '^[0-9]+% tests passed' "$dir/ctest.log" ||
		echo "FAIL: model/$name-ctest no ctest summary; see $dir/ctest.log" | tee -a "$RESULTS"
	# The vfio-user latency benchmarks (doorbell write, interrupt round
	# trip) print their numbers into the test output; show them, unjudged.
	grep -o '\[ latency \] [a-z_]*: [0-9.]* us' "$dir/junit.xml" 2>/dev/null |
		sed 's/^\[ latency \] /INFO: model\/latency /' | sort -u
}

# bench_smoke BUILD_DIR: every benchmark of ornic-bench for one iteration
# (under the sanitizers). Fails only when a benchmark reports an error (data
# that did not arrive, an error completion) or the run dies; never on speed.
# The cost-against-count points with thousands of QPs or objects and the
# million-cycle QP churn are left out: under the sanitizers they would take
# the whole time allowed, and their smaller points run the same code.
bench_smoke() {
	local dir=$1 bin=$1/bench/ornic-bench log=$1/bench-smoke.log rc=0 ran
	grep -q '^PASS: model/unit-build' "$RESULTS" 2>/dev/null || return 0
	if [ ! -x "$bin" ]; then
		echo "FAIL: model/bench-smoke ornic-bench was not built (Google Benchmark missing?); see $dir.log" |
			tee -a "$RESULTS"
		return
	fi
	timeout 120 "$bin" --benchmark_min_time=1x --benchmark_filter='-/(qps|objects):(1024|4096|16384)(/|$)|/cycles:1000000' \
		--benchmark_out="$dir/bench-smoke.json" \
		--benchmark_out_format=json >"$log" 2>&1 || rc=$?
	ran=$(grep -c '^BM_' "$log")
	if [ "$rc" = 0 ]; then
		echo "PASS: model/bench-smoke $ran benchmarks, one iteration each, no errors" | tee -a "$RESULTS"
	else
		echo "FAIL: model/bench-smoke exit $rc: $(grep -E 'ERROR OCCURRED|ornic-bench:' "$log" |
			head -n 3 | tr '\n' ' ')see $log" | tee -a "$RESULTS"
	fi
}

say "device model: unit tests (g++, ASan/UBSan)"
build_and_test unit "$BUILD/device-model"
say "device model: ornic-bench smoke run"
bench_smoke "$BUILD/device-model"
say "device model: fuzz targets (clang, libFuzzer)"
build_and_test fuzz "$BUILD/device-model-fuzz" \
	-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DORNIC_FUZZ=ON -DORNIC_TESTS=OFF
