#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The soak group of `make check` (a few cycles) and of `make soak` (many):
# suites/soak.sh in one guest with two linked models and a third whose
# model offers few objects (--max), run inside the testbed by
# check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses the driver and
# provider the driver and provider groups built.  SOAK_SCALE_QPS sets the
# live QPs per device of the scale check (default 4096).
# SOAK_RELOADS and SOAK_KILLS set the cycles (default 3 and 6: each takes
# 10-25 s under TCG; `make soak` runs 100 and 50), SOAK_QP_CYCLES the QP
# create/destroy cycles (default 2000; `make soak` a million; the guest's
# timeout allows 10 cycles a second, where TCG gives 50 to 180 beside a
# ping-pong and 300 without one), shared by SOAK_CHURNERS processes
# (default 2), beside a ping-pong unless SOAK_CHURN_TRAFFIC=0.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-soak.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
mkdir -p "$BUILD/tools"

guest_inputs_built soak || exit 0
# The object holder of the driver group's tests (raw uverbs, no provider).
verbs=$BUILD/tools/soak-driver-verbs
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$verbs" "$here/suites/driver-verbs.c" "$TEST_REPORT_C" \
	2>"$BUILD/tools/soak-driver-verbs.log"; then
	record FAIL soak/build-verbs "$(head -n 5 "$BUILD/tools/soak-driver-verbs.log" | tr '\n' ' ')"
	exit 0
fi

# The QP churn of suites/soak.sh (provider and libibverbs, in the guest).
churn=$BUILD/tools/qp-churn
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$churn" "$here/suites/qp-churn.c" -libverbs \
	2>"$BUILD/tools/qp-churn.log"; then
	record FAIL soak/build-qp-churn "$(head -n 5 "$BUILD/tools/qp-churn.log" | tr '\n' ' ')"
	exit 0
fi

# The scale checks of suites/soak.sh: many live QPs, and a third NIC whose
# model offers few objects, filled to each limit.
for t in scale-qps scale-limits; do
	if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$BUILD/tools/$t" "$here/suites/$t.c" \
		"${VERBS_TEST_C[@]}" -libverbs 2>"$BUILD/tools/$t.log"; then
		record FAIL "soak/build-$t" "$(head -n 5 "$BUILD/tools/$t.log" | tr '\n' ' ')"
		exit 0
	fi
done

mdir=/tmp/soak-models
rm -rf "$mdir"
MODEL_MAX=([2]='qp=40,cq=40,mr=40,pd=40,srq=40,ah=40,mcast-grp=8')
if ! models_start "$mdir" 2 link || ! model_add "$mdir" 2 none 02:00:00:00:00:03 || ! models_wait; then
	record FAIL soak/models-start "the models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
reloads=${SOAK_RELOADS:-3} kills=${SOAK_KILLS:-6} qp_cycles=${SOAK_QP_CYCLES:-2000}
# The guest asks for the models' RSS (rss-NAME.req in its /out): answered
# with both models' VmRSS in kB.
out=$RUNS/soak
rm -f "$out"/rss-*
(
	while sleep 0.05; do
		for req in "$out"/rss-*.req; do
			[ -e "$req" ] || continue
			kb=""
			for pid in "${MODEL_PIDS[@]}"; do
				kb+="$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status" 2>/dev/null || echo '?') "
			done
			rm -f "$req"
			echo "$kb" >"${req%.req}.kb"
		done
	done
) &
watcher=$!
scale_qps=${SOAK_SCALE_QPS:-4096}
run_vm soak/vm- soak "$FLAVOUR" --timeout $((900 + 30 * (reloads + kills) + qp_cycles / 10 + scale_qps / 10)) \
	"${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" VERBS_TOOL="$verbs" RELOADS="$reloads" KILLS="$kills" \
	CHURN_TOOL="$churn" QP_CYCLES="$qp_cycles" CHURNERS="${SOAK_CHURNERS:-2}" \
	CHURN_TRAFFIC="${SOAK_CHURN_TRAFFIC:-1}" NDEVS=3 SCALE_QPS="$scale_qps" \
	SCALE_QPS_TOOL="$BUILD/tools/scale-qps" SCALE_LIMITS_TOOL="$BUILD/tools/scale-limits" \
	/src/qemu-tests/suites/soak.sh
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
if why=$(models_stop); then
	record PASS soak/models-survive "all three models alive after $reloads reloads, $kills kills and the scale checks, clean exit"
else
	record FAIL soak/models-survive "$why"
fi
cp "$mdir"/model*.log "$RUNS/soak/" 2>/dev/null
exit 0
