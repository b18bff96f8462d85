# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The common start of the check scripts of the groups that boot guests
# (check-driver.sh, check-provider.sh, check-datapath.sh, check-pyverbs.sh,
# check-interop.sh, check-ulp.sh, check-twoguests.sh, check-soak.sh,
# check-guide.sh, check-ib.sh).  Sourced inside the testbed after testbed/lib.sh, with
# RESULTS, FLAVOUR and BUILD from check-testbed.sh.  Sets RUN_NAME, RUNS
# (this check run's guest output), MO (the modules the driver group
# builds), PDIR (the provider the provider group builds) and MODEL_BIN,
# and sources check-lib.sh and models.sh.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables above are the interface

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
mkdir -p "$RUNS"

# shellcheck source=qemu-tests/check-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/check-lib.sh"
# shellcheck source=qemu-tests/models.sh
. "$(dirname "${BASH_SOURCE[0]}")/models.sh"
[ -x "$MODEL_BIN" ] || MODEL_BIN=$BUILD/device-model/ornic-model

# guest_inputs_built PREFIX: the model, ornic.ko and the provider exist;
# otherwise a FAIL line PREFIX/inputs names what is missing (status 1).
guest_inputs_built() {
	local missing=""
	[ -x "$MODEL_BIN" ] || missing+=" ornic-model"
	[ -f "$MO/drivers/infiniband/hw/ornic/ornic.ko" ] || missing+=" ornic.ko"
	[ -f "$PDIR/libornic-rdmav34.so" ] || missing+=" libornic-rdmav34.so"
	[ -z "$missing" ] && return 0
	record FAIL "$1/inputs" "not built:$missing (the model, driver and provider groups build them)"
	return 1
}
