#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The stock group of `make check`: ornic on Debian's own kernels, installed
# as a user installs it.  For trixie's linux-image-amd64 and the newest in
# trixie-backports, stock/prepare.sh prepares (cached, keyed by the kernel's
# and the packages' versions) a root over the testbed's with the kernel
# packages, their initramfs-tools initrd, and ornic-dkms and
# ibverbs-providers-ornic installed with dpkg -i (DKMS builds the module
# for that kernel there); a guest boots that kernel with two linked models
# of the ornic-model package and runs suites/stock.sh (module loaded by its
# modalias, rdma link, ibv_devinfo, ibv_rc_pingpong, rping, NVMe-oF).  The
# packages are the deb group's of this run ($BUILD/deb), else built here as
# make deb does.  A kernel missing from the archive is a SKIP; one
# "PASS|FAIL|SKIP: stock/<series>/..." line per check into $RESULTS.  Runs
# inside the testbed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-stock.sh runs inside the testbed"
RESULTS=${RESULTS:?}
BUILD=${BUILD:-$ORNIC_SRC/build/check}
RUN_NAME=${ORNIC_CHECK_RUN:-check}
RUNS=$ORNIC_CACHE/runs/$RUN_NAME
out=$BUILD/deb
mkdir -p "$RUNS" "$out"
# shellcheck source=qemu-tests/check-lib.sh
. "$here/check-lib.sh"
# shellcheck source=qemu-tests/models.sh
. "$here/models.sh"

t0=$(date +%s)
version=$(dpkg-parsechangelog -l "$ORNIC_SRC/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
dkms_deb=$out/ornic-dkms_${version}_all.deb
provider_deb=$out/ibverbs-providers-ornic_${version}_$arch.deb
model_deb=$out/ornic-model_${version}_$arch.deb

# The packages: the deb group's of this run (check-deb.sh records the run
# in .check-run), else built now.
if [ "$(cat "$out/.check-run" 2>/dev/null)" = "$RUN_NAME" ]; then
	say "stock: the deb group's packages of this run"
else
	rc=0
	"$here/make-deb.sh" "$out" >"$BUILD/stock-deb.log" 2>&1 || rc=$?
	if [ "$rc" = 1 ]; then
		record FAIL stock/packages "make-deb.sh failed: $(tail -n 3 "$BUILD/stock-deb.log" | tr '\n' ' ')see $out/build.log"
		exit 0
	fi
	say "stock: packages built in $(( $(date +%s) - t0 ))s"
fi
for deb in "$dkms_deb" "$provider_deb" "$model_deb"; do
	if [ ! -f "$deb" ]; then
		record FAIL stock/packages "no $deb"
		exit 0
	fi
done

# The models of the ornic-model package, as in the deb group.
rel=$(mktemp -d)
dpkg-deb -x "$model_deb" "$rel"
MODEL_BIN=$rel/usr/sbin/ornic-model

for suite in trixie trixie-backports; do
	t1=$(date +%s)
	mdir=/tmp/stock-models-$suite
	rm -rf "$mdir"
	# Started first: they are listening by the time the guest boots.
	if ! models_start "$mdir" 2 link; then
		record FAIL "stock/$suite/models-start" "the packaged model did not start; see $mdir"
		models_stop >/dev/null
		continue
	fi
	rc=0
	dir=$("$here/stock/prepare.sh" root "$suite" "$dkms_deb" "$provider_deb" \
		2>"$BUILD/stock-$suite.log") || rc=$?
	if [ "$rc" != 0 ]; then
		models_stop >/dev/null
		if [ "$rc" = 3 ]; then
			record SKIP "stock/$suite" "$dir"
		else
			record FAIL "stock/$suite/prepare" "$(grep -v '^ ' "$BUILD/stock-$suite.log" | tail -n 3 | tr '\n' ' ')see $BUILD/stock-$suite.log"
		fi
		continue
	fi
	kver=$(cat "$dir/kver") v=$(cat "$dir/version")
	series=$(cut -d. -f1,2 <<<"$kver")
	record PASS "stock/$series/prepare" "linux-image-amd64 $v ($suite, $kver), initramfs-tools' initrd, ornic-dkms (built by DKMS) and ibverbs-providers-ornic installed with dpkg -i: $(cat "$dir/prepared"), $(( $(date +%s) - t1 ))s"
	mapfile -t margs < <(models_vm_args)
	name=stock-$series
	rc=0
	"$here/vm.sh" --name "$RUN_NAME/$name" --stock "$dir" --timeout 300 --allow-splat "${margs[@]}" -- \
		/src/qemu-tests/suites/stock.sh "$series" "$kver" "$v" || rc=$?
	guest_results "stock/$series/guest" "$RUNS/$name" "$rc"
	if why=$(models_stop); then
		record PASS "stock/$series/models-survive" "both packaged models alive after the guest, clean exit"
	else
		record FAIL "stock/$series/models-survive" "$why"
	fi
	cp "$mdir"/model*.log "$RUNS/$name/" 2>/dev/null
	say "stock: $kver in $(( $(date +%s) - t1 ))s"
done
rm -rf "$rel"
say "stock group: $(( $(date +%s) - t0 ))s"
exit 0
