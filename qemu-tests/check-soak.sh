#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The soak group of `make check` (a few cycles) and of `make soak` (many):
# suites/soak.sh in one guest with two linked models, run inside the
# testbed by check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses the
# driver and provider the driver and provider groups built.
# SOAK_RELOADS and SOAK_KILLS set the cycles (default 3 and 6: each takes
# 10-25 s under TCG; `make soak` runs 100 and 50).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-soak.sh runs inside the testbed"

RESULTS=${RESULTS:?}
FLAVOUR=${FLAVOUR:-base}
BUILD=${BUILD:-$ORNIC_SRC/build/check}
RUN_NAME=${ORNIC_CHECK_RUN:-check}
RUNS=$ORNIC_CACHE/runs/$RUN_NAME
if [ "$FLAVOUR" = base ]; then
	MO=$ORNIC_SRC/build/modules
else
	MO=$ORNIC_SRC/build/modules-$FLAVOUR
fi
PDIR=$BUILD/provider
mkdir -p "$RUNS" "$BUILD/tools"

# shellcheck source=qemu-tests/check-lib.sh
. "$here/check-lib.sh"
# shellcheck source=qemu-tests/models.sh
. "$here/models.sh"
[ -x "$MODEL_BIN" ] || MODEL_BIN=$BUILD/device-model/ornic-model

missing=""
[ -x "$MODEL_BIN" ] || missing+=" ornic-model"
[ -f "$MO/drivers/infiniband/hw/ornic/ornic.ko" ] || missing+=" ornic.ko"
[ -f "$PDIR/libornic-rdmav34.so" ] || missing+=" libornic-rdmav34.so"
if [ -n "$missing" ]; then
	record FAIL soak/inputs "not built:$missing (the model, driver and provider groups build them)"
	exit 0
fi
# The object holder of the driver group's tests (raw uverbs, no provider).
verbs=$BUILD/tools/soak-driver-verbs
if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$verbs" "$here/suites/driver-verbs.c" \
	2>"$BUILD/tools/soak-driver-verbs.log"; then
	record FAIL soak/build-verbs "$(head -n 5 "$BUILD/tools/soak-driver-verbs.log" | tr '\n' ' ')"
	exit 0
fi

mdir=/tmp/soak-models
rm -rf "$mdir"
if ! models_start "$mdir" 2 link; then
	record FAIL soak/models-start "the models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
reloads=${SOAK_RELOADS:-3} kills=${SOAK_KILLS:-6}
run_vm soak/vm- soak "$FLAVOUR" --timeout $((600 + 30 * (reloads + kills))) "${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" VERBS_TOOL="$verbs" RELOADS="$reloads" KILLS="$kills" \
	/src/qemu-tests/suites/soak.sh
if why=$(models_stop); then
	record PASS soak/models-survive "both models alive after $reloads reloads and $kills kills, clean exit"
else
	record FAIL soak/models-survive "$why"
fi
cp "$mdir"/model*.log "$RUNS/soak/" 2>/dev/null
exit 0
