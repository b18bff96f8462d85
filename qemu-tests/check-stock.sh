#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The stock group of `make check`: ornic on Debian's own kernels, installed
# as a user installs it.  For trixie's linux-image-amd64 and the newest in
# trixie-backports, stock/prepare.sh prepares (cached, keyed by the kernel's
# and the packages' versions) a root over the testbed's with the kernel
# packages, their initramfs-tools initrd, and ornic-dkms and
# ibverbs-providers-ornic installed with dpkg -i (DKMS builds the module
# for that kernel there); a guest boots that kernel with two linked models
# of the ornic-model package, started as ornic-model@ services by systemd
# in a booted container (systemd-models.sh), and runs suites/stock.sh
# (module loaded by its modalias, rdma link, ibv_devinfo, ibv_rc_pingpong,
# rping, NVMe-oF).  The
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

# The models of the ornic-model package as a user runs them: installed with
# dpkg -i in a container that boots systemd, each an ornic-model@ service
# with its conf file.  Every guest of the group uses them.
# shellcheck source=qemu-tests/systemd-models.sh
. "$here/systemd-models.sh"
sdir=/tmp/stock-models
if sysd_models_start "$sdir" 2 "$model_deb"; then
	how=$(sysd_models_describe)
	if [[ $how == *" active as ornic, Seccomp 2, NoNewPrivs 1" ]]; then
		record PASS stock/systemd-models "ornic-model@m0 and @m1 started by systemd in a booted container (dpkg -i ornic-model): $how"
	else
		record FAIL stock/systemd-models "not confined as the unit says: $how"
	fi
else
	record FAIL stock/systemd-models "$SYSD_WHY; see $sdir"
	sysd_poweroff
	exit 0
fi

first=1
for suite in trixie trixie-backports; do
	t1=$(date +%s)
	# A fresh pair of devices for each guest, started by systemd again.
	if [ $first = 0 ] && ! why=$(sysd_models_start_again); then
		record FAIL "stock/$suite/models-start" "$why"
		continue
	fi
	first=0
	rc=0
	dir=$("$here/stock/prepare.sh" root "$suite" "$dkms_deb" "$provider_deb" \
		2>"$BUILD/stock-$suite.log") || rc=$?
	if [ "$rc" != 0 ]; then
		sysd_models_stop >/dev/null
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
	mapfile -t margs < <(sysd_models_vm_args)
	name=stock-$series
	rc=0
	"$here/vm.sh" --name "$RUN_NAME/$name" --stock "$dir" --timeout 300 --allow-splat "${margs[@]}" -- \
		/src/qemu-tests/suites/stock.sh "$series" "$kver" "$v" || rc=$?
	guest_results "stock/$series/guest" "$RUNS/$name" "$rc"
	if why=$(sysd_models_check) && why=$(sysd_models_stop); then
		record PASS "stock/$series/models-survive" "both ornic-model@ services running after the guest with no restart, clean exit on systemctl stop"
	else
		record FAIL "stock/$series/models-survive" "$why"
	fi
	cp "$sdir"/m*.journal "$RUNS/$name/" 2>/dev/null
	say "stock: $kver in $(( $(date +%s) - t1 ))s"
done
sysd_poweroff
say "stock group: $(( $(date +%s) - t0 ))s"
exit 0
