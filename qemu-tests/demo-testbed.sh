#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The part of `make demo` that runs inside the testbed (see demo.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "demo-testbed.sh runs inside the testbed (use make demo)"

B=$ORNIC_SRC/build/demo
# shellcheck source=qemu-tests/release-build.sh
. "$here/release-build.sh"
release_build "$B"

MODEL_BIN=$B/device-model/ornic-model
# shellcheck source=qemu-tests/models.sh
. "$here/models.sh"
mdir=/tmp/demo-models
rm -rf "$mdir"
# LINK_LAYER=ib (make demo LINK_LAYER=ib): two InfiniBand HCAs under OpenSM.
link_layer=${ORNIC_DEMO_LINK_LAYER:-eth}
suite=demo.sh
case $link_layer in
eth) ;;
ib) MODEL_LINK_LAYER=ib suite=demo-ib.sh ;;
*) die "LINK_LAYER=$link_layer: eth or ib" ;;
esac
models_start "$mdir" 2 link || die "the device models did not start; see $mdir"
sleep 0.5
mapfile -t margs < <(models_vm_args)
name=demo-$(date +%Y%m%d-%H%M%S)
out=$ORNIC_CACHE/runs/$name
mkdir -p "$out"
say "booting a guest with two ornic NICs ($link_layer) (TCG: a minute or two); guest output follows"
: >"$out/guest-output.log"
tail -n +1 -F "$out/guest-output.log" 2>/dev/null &
tailer=$!
rc=0
"$here/vm.sh" --name "$name" --timeout 1800 "${margs[@]}" -- \
	env MODDIR="$B/modules" PROVIDER_DIR="$B/provider" "/src/qemu-tests/suites/$suite" || rc=$?
sleep 1
kill "$tailer" 2>/dev/null
models_stop >/dev/null || true
say "demo finished (status $rc); output in $out"
exit "$rc"
