#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The rdma-core provider's part of `make check`, run inside the testbed by
# check-testbed.sh with RESULTS (results file), KDIR, FLAVOUR and BUILD
# (build directory of the check).  Builds the provider against rdma-core's
# source of the installed version (userspace-provider/build.sh), builds the
# libibverbs test tools, then runs provider-devinfo.sh in a guest with two
# linked device models, using the modules check-driver.sh built.  One
# "PASS|FAIL|SKIP: provider/..." line per test.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-provider.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
mkdir -p "$PDIR"
provider_vm() { run_vm provider/vm- "$1" "$FLAVOUR" "${@:2}"; }

# --- build ---------------------------------------------------------------------
log=$BUILD/provider-build.log
start=$(date +%s)
rm -f "$PDIR/libornic-rdmav34.so" "$PDIR/ornic.driver"
if "$ORNIC_SRC/userspace-provider/build.sh" "$PDIR" >"$log" 2>&1 &&
	[ -f "$PDIR/libornic-rdmav34.so" ] && [ -f "$PDIR/ornic.driver" ]; then
	record PASS provider/build "libornic-rdmav34.so against rdma-core $(dpkg-query -W -f='${Version}' libibverbs-dev), -Werror, $(( $(date +%s) - start ))s"
else
	record FAIL provider/build "$(grep -m5 -E 'error|warning|build.sh' "$log" | tr '\n' ' ')see $log"
	exit 0
fi

mkdir -p "$BUILD/tools"
# build_tool NAME [MORE.c...]: suites/NAME.c (plus suites/MORE.c and the
# test library) -> $BUILD/tools/NAME; prints its path (and nothing when it
# failed: the FAIL line goes to stderr and the results).
build_tool() {
	local name=$1 srcs=() f
	for f in "$@"; do srcs+=("$here/suites/${f%.c}.c"); done
	if gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$BUILD/tools/$name" \
		"${srcs[@]}" "${VERBS_TEST_C[@]}" -libverbs -lpthread 2>"$BUILD/tools/$name.log"; then
		echo "$BUILD/tools/$name"
	else
		record FAIL "provider/build-$name" "$(head -n 5 "$BUILD/tools/$name.log" | tr '\n' ' ')" >&2
	fi
}
tool=$(build_tool provider-verbs provider-data.c)
nosys=$(build_tool provider-nosyscall)

# --- the provider against device models --------------------------------------------
if [ ! -x "$MODEL_BIN" ]; then
	record SKIP provider/devinfo "no device model binary ($MODEL_BIN)"
	exit 0
fi
if [ ! -f "$MO/drivers/infiniband/hw/ornic/ornic.ko" ]; then
	record SKIP provider/devinfo "no ornic.ko in $MO (check-driver.sh builds it)"
	exit 0
fi

mdir=/tmp/provider-models
if models_start "$mdir" 2 link && sleep 0.5; then
	mapfile -t margs < <(models_vm_args)
	provider_vm provider-devinfo --timeout 900 "${margs[@]}" -- \
		/src/qemu-tests/suites/provider-devinfo.sh "$MO" "$PDIR" "$tool" "$nosys"
	if why=$(models_stop); then
		record PASS provider/models-survive "both models alive after the provider suite"
	else
		record FAIL provider/models-survive "$why"
	fi
	cp "$mdir"/model*.log "$mdir"/model*.pcap "$RUNS/provider-devinfo/" 2>/dev/null
else
	record FAIL provider/models-start "models did not start; see $mdir"
	models_stop >/dev/null
fi
exit 0
