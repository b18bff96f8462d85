# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Helpers shared by the check scripts that run inside the testbed
# (check-testbed.sh and, through check-guest-lib.sh, the groups' scripts).
# Sourced.
# Needs: RESULTS, RUNS and RUN_NAME.
# shellcheck shell=bash

# kmake ARGS...: make for the out-of-tree kernel module builds, with the
# compilers behind ccache and its cache under $ORNIC_CACHE: a clean clone
# whose module sources did not change compiles nothing again.  ccache hides
# behind the compilers' own names, so Kbuild sees the kernel's compiler.
KMAKE_ENV=(PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$ORNIC_CACHE/ccache")
kmake() { env "${KMAKE_ENV[@]}" make "$@"; }

# The C test tools' library (suites/): TEST_REPORT_C, their result lines
# (libc only, for the raw uverbs tools), and VERBS_TEST_C, those with the
# libibverbs devices and fixtures and the QPs and QP pairs.
# shellcheck disable=SC2034 # used by the scripts that source this one
TEST_REPORT_C=$(dirname "${BASH_SOURCE[0]}")/suites/test-report.c
# shellcheck disable=SC2034
VERBS_TEST_C=("$TEST_REPORT_C" "$(dirname "${BASH_SOURCE[0]}")/suites/test-fixture.c"
	"$(dirname "${BASH_SOURCE[0]}")/suites/qp-pair.c")

record() { # record STATUS NAME DETAILS...
	local s=$1 n=$2
	shift 2
	echo "$s: $n${*:+ $*}" | tee -a "$RESULTS"
}

# Collect a guest run's own result lines, then judge the run itself: a kernel
# splat (the runner's scan of console and dmesg) or a non-zero status fails.
guest_results() { # guest_results RECORD_NAME OUT_DIR VM_STATUS
	local name=$1 out=$2 rc=$3 splats
	[ -f "$out/results.txt" ] && cat "$out/results.txt" >>"$RESULTS" && cat "$out/results.txt"
	splats=$(cat "$out/splats.txt" 2>/dev/null)
	if [ -n "$splats" ]; then
		record FAIL "$name" "kernel splat: $(echo "$splats" | head -n 3 | tr '\n' ' ')see $out"
	elif [ "$rc" = 0 ]; then
		record PASS "$name" "clean kernel log (no WARN/lockdep/KASAN/kmemleak/UBSAN)"
	else
		record FAIL "$name" "status $(cat "$out/status" 2>/dev/null || echo ?), exit $rc; see $out"
	fi
}

# run_vm PREFIX NAME FLAVOUR [vm.sh options] -- CMD...: boot a guest as
# $RUN_NAME/NAME and record it as PREFIX NAME.  Splats are judged by
# guest_results, so the runner only reports them.
run_vm() {
	local prefix=$1 name=$2 flavour=$3 rc=0
	shift 3
	"$(dirname "${BASH_SOURCE[0]}")/vm.sh" --name "$RUN_NAME/$name" --flavour "$flavour" --allow-splat "$@" || rc=$?
	guest_results "$prefix$name" "$RUNS/$name" "$rc"
	guest_times "$name" "$RUNS/$name"
}

# Where a guest run's time went (reported, not judged): the guest stamps each
# result with its uptime (suites/lib.sh); a step is the time since the one
# before it, the first one includes the boot.
guest_times() { # guest_times NAME OUT_DIR
	[ -s "$2/timing.txt" ] || return 0
	sort -n "$2/timing.txt" | awk -v run="$1" '
		{ d[NR] = $1 - prev; n[NR] = $2; prev = $1 }
		END {
			line = sprintf("TIME: guest/%s %.0f s to its last result; slowest:", run, prev)
			for (k = 0; k < 5 && k < NR; k++) {
				m = 0
				for (i = 1; i <= NR; i++) if (!(i in used) && (m == 0 || d[i] > d[m])) m = i
				used[m] = 1
				line = line sprintf(" %s %.0f s,", n[m], d[m])
			}
			sub(/,$/, "", line)
			print line
		}' >>"$(dirname "$RESULTS")/times.txt"
}

# group_time NAME START_EPOCH: a group's wall time, into the run's times.txt.
group_time() {
	echo "TIME: group/$1 $(($(date +%s) - $2)) s" >>"$(dirname "$RESULTS")/times.txt"
}

# pyverbs_unpack ROOT: rdma-core's pyverbs test suite (python3-pyverbs ships
# it gzipped under /usr/share/doc/rdma-core/tests) unpacked as ROOT/tests;
# prints why not on failure.
pyverbs_unpack() {
	local suite=/usr/share/doc/rdma-core/tests
	if [ ! -e "$suite/run_tests.py" ] && [ ! -e "$suite/run_tests.py.gz" ]; then
		echo "no pyverbs test suite in $suite (python3-pyverbs, testbed/packages.txt)"
		return 1
	fi
	rm -rf "$1"
	mkdir -p "$1"
	cp -r "$suite" "$1/tests"
	find "$1/tests" -name '*.gz' -exec gunzip -f {} +
}
