#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# allocation_balance_test.sh: allocation_balance.sh judged against stand-in targets that
# print libFuzzer's -trace_malloc lines for a corpus of three inputs.  An input that ends
# unbalanced in both judged passes fails the target; one unbalanced once, or only in the
# unjudged first pass, does not; a target whose executions were not all traced fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/ornic-balance-XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/corpus"
touch "$dir/corpus/a" "$dir/corpus/b" "$dir/corpus/c"

# stand_in NAME UNBALANCED: a target that prints, for its Kth execution (1-based, over
# every pass), 3 allocations and 1 free when K is in the list UNBALANCED, and 1 and 1
# otherwise; an unbalanced execution is followed by libFuzzer's leak-check rerun.
stand_in() {
	cat >"$dir/$1" <<SCRIPT
#!/bin/bash
k=0
for f in "\$@"; do
	case \$f in -*) continue ;; esac
	k=\$((k + 1))
	echo "Running: \$f"
	if [[ " $2 " == *" \$k "* ]]; then
		echo "MallocFreeTracer: STOP 3 1 (DIFFERENT)"
		echo "MallocFreeTracer: STOP 1 1 (same)"
	else
		echo "MallocFreeTracer: STOP 1 1 (same)"
	fi
done
SCRIPT
	chmod +x "$dir/$1"
}

failed=0
# expect STATUS NAME UNBALANCED WHAT
expect() {
	local rc=0 out
	stand_in "$2" "$3"
	out=$(bash "$here/allocation_balance.sh" "$dir/$2" "$dir/corpus" 2>&1) || rc=$?
	if { [ "$1" = pass ] && [ $rc != 0 ]; } || { [ "$1" = fail ] && [ $rc = 0 ]; }; then
		echo "FAIL: $4: exit $rc: $out"
		failed=1
	else
		echo "ok: $4: $out"
	fi
}
expect pass balanced "" "every input balanced"
expect pass first-pass "1 2 3" "unbalanced only in the first, unjudged pass"
expect pass once "5" "b unbalanced in one judged pass"
expect pass two-inputs "5 9" "b unbalanced in the second pass, c in the third"
expect fail every-pass "2 5 8" "b unbalanced in every pass"
expect fail judged "5 8" "b unbalanced in both judged passes"
cat >"$dir/short" <<'SCRIPT'
#!/bin/bash
echo "Running: a"
echo "MallocFreeTracer: STOP 1 1 (same)"
SCRIPT
chmod +x "$dir/short"
rc=0
bash "$here/allocation_balance.sh" "$dir/short" "$dir/corpus" >/dev/null 2>&1 || rc=$?
if [ $rc = 0 ]; then
	echo "FAIL: a target that traced one execution of nine passed"
	failed=1
else
	echo "ok: a target that traced one execution of nine fails"
fi
exit $failed
