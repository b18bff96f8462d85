#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# allocation_balance.sh TARGET CORPUS_DIR: fails if an input of the corpus ends with more
# heap allocations than frees once the target is warm.  libFuzzer runs every such input a
# second time, looking for a leak (and, while that second run still allocates more, a
# LeakSanitizer pass), so a harness that leaves state for the next input to free runs at
# half its speed or less.  The corpus is replayed three times.  The first pass is not
# judged: it builds the target's static rig and whatever the model allocates once.  An
# input fails when it ends with more allocations than frees in both later passes: a harness
# that leaves state behind does so every time, while libFuzzer's count covers the whole
# process, and once under heavy load a single execution counted one allocation more than it
# made (which hundreds of replays did not reproduce).
set -euo pipefail
target=$1
corpus=$2
mapfile -t inputs < <(find "$corpus" -maxdepth 1 -type f | sort)
[ ${#inputs[@]} -gt 0 ] || { echo "allocation_balance.sh: no input in $corpus" >&2; exit 2; }
# -trace_malloc=1 brackets each execution with "MallocFreeTracer: START" and
# "MallocFreeTracer: STOP MALLOCS FREES (same|DIFFERENT)"; RunOneTest prints "Running: FILE"
# before each input, and an input that allocated more than it freed runs again (the leak
# check): only the first execution after each "Running:" is judged.
log=$("$target" -trace_malloc=1 -runs=1 "${inputs[@]}" "${inputs[@]}" "${inputs[@]}" 2>&1 |
	grep -a -E '^Running: |^MallocFreeTracer: STOP ' || true)
n=${#inputs[@]}
awk -v n="$n" -v name="$(basename "$target")" -v target="$target" '
	/^Running: / { file = $2; run++; judged = 0 }
	/^MallocFreeTracer: STOP / && !judged {
		judged = 1
		traced++
		if (run > n && $3 > $4) {
			if (file in once)
				bad = bad sprintf("  %s: %s, then %d allocations, %d frees\n", file,
					once[file], $3, $4)
			else
				once[file] = sprintf("%d allocations, %d frees", $3, $4)
		}
	}
	END {
		if (traced != 3 * n) {
			printf "allocation_balance.sh: %d executions should have been traced, %d were" \
				" (is %s built with -fsanitize=address?)\n", 3 * n, traced, target > "/dev/stderr"
			exit 1
		}
		if (bad != "") {
			printf "%s: inputs that end with more allocations than frees:\n%s", name, bad
			exit 1
		}
		printf "%s: all %d inputs free what they allocate\n", name, n
	}
' <<<"$log"
