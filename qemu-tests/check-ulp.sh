#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The storage protocols over RDMA in `make check` (group ulp), run inside the
# testbed by check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses what the
# model and driver groups built.  Boots one guest with two linked ornic
# models and runs suites/ulp.sh: NFS over RDMA (v3, v4.2), iSER, SRP and SMB
# Direct, each between the two ornic NICs.  With ORNIC_ULP_KINDS="ornic rxe"
# (`make compare`) the same runs follow between rxe0 and rxe1 in the same
# guest: rxe takes twice ornic's time and judges nothing (its failures are
# SKIP lines, "rxe fails: ..."), so `make check` runs ornic only.  A
# comparison line per protocol goes to compare.txt.  ORNIC_ULP_TESTS="nfs
# smb" runs only some protocols.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-ulp.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
read -r -a kinds <<<"${ORNIC_ULP_KINDS:-ornic}"

if [[ " ${kinds[*]} " == *" ornic "* ]]; then
	guest_inputs_built ulp || exit 0
fi

mdir=/tmp/ulp-models
rm -rf "$mdir"
if ! models_start "$mdir" 2 link; then
	record FAIL ulp/models-start "models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
start=$(date +%s)
run_vm ulp/vm- ulp "$FLAVOUR" --timeout 1800 "${margs[@]}" -- \
	env MODDIR="$MO" ULP_TESTS="${ORNIC_ULP_TESTS:-}" \
	TOOL_TIMEOUT=$((180 * ${ORNIC_TIMEOUT_SCALE:-1})) /src/qemu-tests/suites/ulp.sh "${kinds[@]}"
say "ulp guest: $(($(date +%s) - start)) s"
if why=$(models_stop); then
	record PASS ulp/models-survive "both models alive after the storage protocols, clean exit"
else
	record FAIL ulp/models-survive "$why"
fi
out=$RUNS/ulp
cp "$mdir"/model*.log "$out/" 2>/dev/null

# ornic next to rxe, protocol by protocol (printed, never judged).
res=$out/results.txt
if [ -s "$res" ]; then
	for p in nfs iser srp smb; do
		line="INFO: ulp/$p/compare"
		for k in ornic rxe; do
			line+=" $k $(awk -v g="ulp/$p/$k/" '
				index($2, g) != 1 { next }
				$1 == "PASS:" { a++ } $1 == "SKIP:" { s++ } $1 == "FAIL:" { f++ }
				END { printf "%d/%d/%d", a, s, f }' "$res")"
		done
		echo "$line passed/skipped/failed"
	done >>"$(dirname "$RESULTS")/compare.txt"
fi
exit 0
