#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The deb group of `make check`: build the Debian packages as `make deb`
# does (into $BUILD/deb), run lintian, check each package's files, build
# ornic-dkms's module through DKMS against the test kernel ($KDIR), boot a
# guest that loads it by modalias and finds the devices through the
# installed provider package (with DEB_GUEST_IN_STOCK=1 the stock group's
# guests do that on Debian's kernels instead), check that the packages, the
# model and the module carry one version, run the kernel verbs test
# module on Debian's 6.12 kernel (kernel CQ resize through ib_resize_cq()),
# check the systemd unit and the service's configuration parsing.  Runs inside the testbed; one
# "PASS|FAIL: deb/..." line per check into $RESULTS.  The packages stay in
# $BUILD/deb for the stock group, with the run's name in .check-run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-deb.sh runs inside the testbed"
RESULTS=${RESULTS:?}
KDIR=${KDIR:?}
BUILD=${BUILD:-$ORNIC_SRC/build/check}
out=$BUILD/deb
RUN_NAME=${ORNIC_CHECK_RUN:-check}
# shellcheck source=qemu-tests/check-lib.sh
. "$here/check-lib.sh"

version=$(dpkg-parsechangelog -l "$ORNIC_SRC/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
declare -A debs=(
	[ornic-dkms]=ornic-dkms_${version}_all.deb
	[ibverbs-providers-ornic]=ibverbs-providers-ornic_${version}_$arch.deb
	[ornic-model]=ornic-model_${version}_$arch.deb
)
# Files each package must hold (dpkg -c), beyond its docs.
declare -A want=(
	[ornic-dkms]="./usr/src/ornic-$version/dkms.conf ./usr/src/ornic-$version/Kbuild
		./usr/src/ornic-$version/drivers/infiniband/hw/ornic/Kbuild
		./usr/src/ornic-$version/drivers/infiniband/hw/ornic/ornic_main.c
		./usr/src/ornic-$version/include/ornic/ornic_hw.h
		./usr/src/ornic-$version/include/uapi/rdma/ornic-abi.h
		./usr/src/ornic-$version/debian/changelog
		./usr/share/man/man4/ornic.4.gz"
	[ibverbs-providers-ornic]="./usr/lib/$multiarch/libibverbs/libornic-rdmav34.so
		./etc/libibverbs.d/ornic.driver"
	[ornic-model]="./usr/sbin/ornic-model ./usr/share/man/man8/ornic-model.8.gz
		./usr/lib/systemd/system/ornic-model@.service
		./usr/libexec/ornic-model/ornic-model-service
		./usr/lib/sysusers.d/ornic-model.conf ./etc/ornic/"
)

t0=$(date +%s)
rc=0
rm -f "$out/.check-run"
"$here/make-deb.sh" "$out" >"$BUILD/deb.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || echo "$RUN_NAME" >"$out/.check-run"
for pkg in ornic-dkms ibverbs-providers-ornic ornic-model; do
	deb=$out/${debs[$pkg]}
	if [ "$rc" != 1 ] && [ -f "$deb" ]; then
		record PASS "deb/build-$pkg" "${debs[$pkg]}, $(du -k "$deb" | cut -f1) KiB"
	else
		record FAIL "deb/build-$pkg" "no ${debs[$pkg]}; see $out/build.log"
		continue
	fi
	files=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	missing=()
	for f in ${want[$pkg]}; do
		grep -qxF "$f" <<<"$files" || missing+=("$f")
	done
	if [ ${#missing[@]} = 0 ]; then
		record PASS "deb/contents-$pkg" "$(wc -l <<<"$files") entries, all expected files there"
	else
		record FAIL "deb/contents-$pkg" "missing: ${missing[*]}"
	fi
done
case $rc in
0) record PASS deb/lintian "no errors or warnings ($(grep -c '^[IP]: ' "$out/lintian.log") info tags)" ;;
2) record FAIL deb/lintian "$(grep -E '^[EW]: ' "$out/lintian.log" | head -n 5 | tr '\n' ' ')see $out/lintian.log" ;;
*) record FAIL deb/lintian "not run: the build failed" ;;
esac
say "deb: packages built and linted in $(( $(date +%s) - t0 ))s"

# The provider: no run path into a build tree, and rdma-core's private ABI
# 34, which is what the file name promises libibverbs.
so=$(mktemp -d)
if dpkg-deb -x "$out/${debs[ibverbs-providers-ornic]}" "$so" 2>/dev/null; then
	lib=$so/usr/lib/$multiarch/libibverbs/libornic-rdmav34.so
	if readelf -d "$lib" | grep -qE 'RPATH|RUNPATH'; then
		record FAIL deb/provider-runpath "$(readelf -d "$lib" | grep -E 'RPATH|RUNPATH')"
	elif ! readelf -V "$lib" | grep -q 'Name: IBVERBS_PRIVATE_34'; then
		record FAIL deb/provider-runpath "no IBVERBS_PRIVATE_34 version needed"
	else
		record PASS deb/provider-runpath "no run path; needs libibverbs IBVERBS_PRIVATE_34"
	fi
fi
rm -rf "$so"

# DKMS: the packaged source builds for the test kernel, in a private DKMS
# tree (the testbed's own stays untouched), and the module carries the
# PCI alias that loads it when the device is present.
d=$(mktemp -d)
mkdir -p "$d/tree"
rm -f "$out/guest/ornic.ko"	# this run's module or none
kver=$(make -s -C "$KDIR" kernelrelease 2>/dev/null)
if [ -f "$out/${debs[ornic-dkms]}" ] && dpkg-deb -x "$out/${debs[ornic-dkms]}" "$d/root"; then
	t1=$(date +%s)
	if nice dkms build -m ornic -v "$version" -k "$kver" --kernelsourcedir "$KDIR" \
		--sourcetree "$d/root/usr/src" --dkmstree "$d/tree" >"$BUILD/dkms.log" 2>&1; then
		ko=$(find "$d/tree" -name 'ornic.ko*' | head -n 1)
		record PASS deb/dkms-build "ornic $version built by DKMS for $kver in $(( $(date +%s) - t1 ))s"
		alias=$(modinfo -F alias "$ko" 2>/dev/null | head -n 1)
		if [[ $alias == pci:v00001DEAd00000001* ]]; then
			record PASS deb/dkms-modalias "$alias"
		else
			record FAIL deb/dkms-modalias "no PCI alias in $ko: '$alias'"
		fi
		mkdir -p "$out/guest"
		cp "$ko" "$out/guest/"
	else
		record FAIL deb/dkms-build "$(tail -n 5 "$BUILD/dkms.log" | tr '\n' ' ')"
		[ -f "$d/tree/ornic/$version/build/make.log" ] && cp "$d/tree/ornic/$version/build/make.log" "$BUILD/dkms-make.log"
	fi
else
	record FAIL deb/dkms-build "no ornic-dkms package"
fi
rm -rf "$d"

# One version, debian/changelog's, in each package's control data, in the
# packaged model (--version) and in the module DKMS built (MODULE_VERSION).
# The firmware version the driver reports is checked in the guests
# (deb/guest-versions here, stock/<series>/versions on Debian's kernels).
got=""
for pkg in ornic-dkms ibverbs-providers-ornic ornic-model; do
	got+="$pkg $(dpkg-deb -f "$out/${debs[$pkg]}" Version 2>/dev/null), "
done
v=$(mktemp -d)
dpkg-deb -x "$out/${debs[ornic-model]}" "$v" 2>/dev/null
got+="ornic-model --version '$("$v/usr/sbin/ornic-model" --version 2>&1)', "
rm -rf "$v"
got+="modinfo ornic $(modinfo -F version "$out/guest/ornic.ko" 2>/dev/null)"
expect="ornic-dkms $version, ibverbs-providers-ornic $version, ornic-model $version, "
expect+="ornic-model --version 'ornic-model $version', modinfo ornic $version"
if [ "$got" = "$expect" ]; then
	record PASS deb/version "$version in the three packages, ornic-model --version and modinfo ornic"
else
	record FAIL deb/version "want $version everywhere: $got"
fi

# In a guest (test kernel): the DKMS-built module loaded by its modalias,
# the provider package installed with dpkg, ibv_devices over two models of
# the ornic-model package.
if [ "${DEB_GUEST_IN_STOCK:-0}" = 1 ] && "$here/stock/prepare.sh" available >/dev/null; then
	say "deb: the guest checks run in the stock group's guests (Debian's kernels)"
elif [ -f "$out/guest/ornic.ko" ] && [ -f "$out/${debs[ibverbs-providers-ornic]}" ] &&
	[ -f "$out/${debs[ornic-model]}" ]; then
	RUNS=$ORNIC_CACHE/runs/$RUN_NAME
	rel=$(mktemp -d)
	dpkg-deb -x "$out/${debs[ornic-model]}" "$rel"
	# shellcheck source=qemu-tests/models.sh
	. "$here/models.sh"
	MODEL_BIN=$rel/usr/sbin/ornic-model
	mdir=/tmp/models-deb
	if models_start "$mdir" 2 link; then
		mapfile -t margs < <(models_vm_args)
		run_vm deb/ guest-install "${FLAVOUR:-base}" --timeout 600 "${margs[@]}" -- \
			/src/qemu-tests/suites/deb-install.sh "$out/guest/ornic.ko" "$out/${debs[ibverbs-providers-ornic]}"
		models_stop >/dev/null
	else
		record FAIL deb/guest-models "the packaged model did not start; see $mdir"
		models_stop >/dev/null
	fi
	rm -rf "$rel"
else
	record FAIL deb/guest-install "no module or packages to install"
fi

# Kernel verbs on Debian's 6.12 kernel, whose RDMA core still has
# ib_resize_cq() (7.x dropped it): the kverbs test module, built against
# that kernel's packaged headers as DKMS builds ornic there, in a guest
# booting it from stock/prepare.sh's trixie root (ornic-dkms and the
# provider installed with dpkg -i), with two models of the ornic-model
# package.
kverbs_on_stock() {
	local dir rc=0 kver series layer hdr="" tmp log rel mdir
	dir=$("$here/stock/prepare.sh" root trixie "$out/${debs[ornic-dkms]}" \
		"$out/${debs[ibverbs-providers-ornic]}" 2>"$BUILD/deb-stock.log") || rc=$?
	if [ "$rc" = 3 ]; then
		record SKIP deb/kverbs-stock "$dir"
		return
	elif [ "$rc" != 0 ]; then
		record FAIL deb/kverbs-stock "stock/prepare.sh: $(grep -v '^ ' "$BUILD/deb-stock.log" | tail -n 3 | tr '\n' ' ')"
		return
	fi
	kver=$(cat "$dir/kver")
	series=$(cut -d. -f1,2 <<<"$kver")
	while read -r layer; do
		[ -d "$layer/usr/src/linux-headers-$kver" ] && hdr=$layer/usr/src/linux-headers-$kver
	done <"$dir/layers"
	tmp=$out/kverbs-$kver
	log=$BUILD/deb-kverbs-$series.log
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$here/kverbs/Kbuild" "$here/kverbs/ornic_kverbs_test.c" "$tmp/"
	# The packaged Makefile includes its -common tree by absolute path:
	# a private /usr/src holds links to the layer's.
	# shellcheck disable=SC2016 # expanded by the inner shell
	if [ -n "$hdr" ] && unshare --mount --propagation unchanged bash -c 'mount -t tmpfs tmpfs /usr/src &&
		ln -s "$1"/* /usr/src/ && shift && exec "$@"' link "$(dirname "$hdr")" \
		env "${KMAKE_ENV[@]}" make -C "/usr/src/linux-headers-$kver" M="$tmp" W=1 \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules >"$log" 2>&1 &&
		[ -f "$tmp/ornic_kverbs_test.ko" ] && ! grep -q -E 'warning:|error:' "$log"; then
		record PASS "deb/$series/build-kverbs" "against $(basename "$hdr"), W=1, no warnings"
	else
		record FAIL "deb/$series/build-kverbs" "headers '$hdr': $(grep -m3 -E 'warning:|error' "$log" | tr '\n' ' ')see $log"
		return
	fi
	rel=$(mktemp -d)
	dpkg-deb -x "$out/${debs[ornic-model]}" "$rel"
	# shellcheck source=qemu-tests/models.sh
	. "$here/models.sh"
	MODEL_BIN=$rel/usr/sbin/ornic-model
	mdir=/tmp/models-deb-kverbs
	if models_start "$mdir" 2 link; then
		mapfile -t margs < <(models_vm_args)
		rc=0
		"$here/vm.sh" --name "$RUN_NAME/deb-kverbs-$series" --stock "$dir" --timeout 300 \
			--allow-splat "${margs[@]}" -- \
			/src/qemu-tests/suites/deb-kverbs.sh "$series" "$kver" "$tmp/ornic_kverbs_test.ko" || rc=$?
		guest_results "deb/$series/kverbs-guest" "$RUNS/deb-kverbs-$series" "$rc"
	else
		record FAIL "deb/$series/kverbs-models" "the packaged model did not start; see $mdir"
	fi
	models_stop >/dev/null
	rm -rf "$rel"
}
RUNS=$ORNIC_CACHE/runs/$RUN_NAME
if [ -f "$out/${debs[ornic-dkms]}" ] && [ -f "$out/${debs[ornic-model]}" ] &&
	"$here/stock/prepare.sh" available >/dev/null; then
	kverbs_on_stock
else
	record SKIP deb/kverbs-stock "no packages, or no Debian kernel in the apt lists"
fi

# The systemd unit (as an instance, with the system's own units around it)
# and the configuration file the service reads.
u=$(mktemp -d)
if dpkg-deb -x "$out/${debs[ornic-model]}" "$u" 2>/dev/null; then
	cp -an /usr/lib/systemd/system/. "$u/usr/lib/systemd/system/"
	mkdir -p "$u/etc/ornic"
	echo PORT=loopback >"$u/etc/ornic/m0.conf"
	if v=$(systemd-analyze verify --man=no --root="$u" ornic-model@m0.service 2>&1); then
		record PASS deb/unit-verify "systemd-analyze verify ornic-model@m0.service"
	else
		record FAIL deb/unit-verify "$(echo "$v" | head -n 3 | tr '\n' ' ')"
	fi
	# systemd's rating of the unit's confinement (0 is fully confined, 10
	# not at all); below 2 it calls a service "OK" (operations.rst gives
	# what stays exposed and why).  A lost hardening line shows here.
	exposure=$(systemd-analyze security --offline=yes --root="$u" ornic-model@m0.service 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p')
	if awk -v e="${exposure%% *}" 'BEGIN { exit !(e ~ /^[0-9.]+$/ && e < 2) }'; then
		record PASS deb/unit-exposure "systemd-analyze security: $exposure"
	else
		record FAIL deb/unit-exposure "systemd-analyze security: ${exposure:-no rating}, 2.0 or more"
	fi
	# The real model through the service's wrapper: a conf file in, the
	# model listening on its socket, stopped by SIGTERM.
	svc=$u/usr/libexec/ornic-model/ornic-model-service
	printf 'SOCKET=%s\nPORT=loopback\nMAC="02:00:00:00:00:07"\nCAPTURE=%s\n' \
		"$u/m0.sock" "$u/m0.pcap" >"$u/etc/ornic/m0.conf"
	ORNIC_CONF_DIR=$u/etc/ornic ORNIC_MODEL=$u/usr/sbin/ornic-model "$svc" m0 >"$u/m0.log" 2>&1 &
	pid=$!
	for _ in $(seq 50); do
		[ -S "$u/m0.sock" ] && break
		sleep 0.1
	done
	if [ -S "$u/m0.sock" ] && grep -q 'mac 02:00:00:00:00:07' "$u/m0.log" && kill "$pid" && wait "$pid" &&
		[ ! -e "$u/m0.sock" ] && [ -s "$u/m0.pcap" ]; then
		record PASS deb/service-config "conf file -> model on its socket with its MAC and capture, clean SIGTERM"
	else
		kill "$pid" 2>/dev/null
		record FAIL deb/service-config "$(tr '\n' ' ' <"$u/m0.log")"
	fi
	echo 'SOCKT=/x' >"$u/etc/ornic/bad.conf"
	if ! e=$(ORNIC_CONF_DIR=$u/etc/ornic ORNIC_MODEL=/bin/true "$svc" bad 2>&1) &&
		[[ $e == *"line 1: unknown key 'SOCKT'"* ]]; then
		record PASS deb/service-config-bad "refused: $e"
	else
		record FAIL deb/service-config-bad "a misspelt key was not refused: $e"
	fi
fi
rm -rf "$u"
say "deb group: $(( $(date +%s) - t0 ))s"
exit 0
