#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# deb-kverbs.sh SERIES KVER KO: the kernel verbs test module (KO, built
# against the headers of Debian's KVER) between the two NICs, on that kernel
# with ornic-dkms's module (stock/prepare.sh installed it): the kernel CQ
# resize through ib_resize_cq(), which only cores before 7.x offer, with
# the module's other checks.  One result line per check, as
# deb/SERIES/kverbs-<check>.
set -uo pipefail
series=$1 kver=$2 ko=$3
SUITE=deb/$series
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh

if [ "$(uname -r)" != "$kver" ]; then
	fail kverbs-kernel "running $(uname -r), not $kver"
	exit 1
fi
# As udev loads it at boot: the ornic functions' modalias.
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1dea ] && modprobe -q "$(cat "$d/modalias")"
done
if ! wait_for have_devs 2; then
	fail kverbs-setup "no ornic devices: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
setup_ornic_pair || exit 1
if ! wait_gid "$CDEV" "$CIP" || ! wait_gid "$SDEV" "$SIP"; then
	fail kverbs-setup "no RoCE v2 GIDs for $CIP/$SIP"
	exit 1
fi
cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
rc=0
dmesg -c >/dev/null
insmod "$ko" client="$CDEV" server="$SDEV" client_gid="$cg" server_gid="$sg" \
	2>/out/kverbs.log || rc=$?
rmmod ornic_kverbs_test 2>/dev/null
dmesg | grep 'ornic_kverbs:' >>/out/kverbs.log
sed -n "s#.*ornic_kverbs: \(PASS\|FAIL\|SKIP\) \(.*\)#\1: $SUITE/kverbs-\2#p" /out/kverbs.log |
	tee -a "$RESULTS"
if [ "$rc" = 0 ] && grep -q 'PASS resize-cq ' /out/kverbs.log && grep -q 'PASS drain' /out/kverbs.log; then
	pass kverbs "kernel CQ resized by ib_resize_cq() under traffic on $kver; every check passed"
else
	fail kverbs "insmod exit $rc: $(grep -v PASS /out/kverbs.log | tail -n 3 | tr '\n' ' ')"
	exit 1
fi
exit 0
