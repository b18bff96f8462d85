#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stock.sh SERIES KVER VERSION: ornic on one of Debian's own kernels (the
# stock group; KVER is the release, VERSION linux-image-amd64's), with the
# packages as a user's system has them: ornic-dkms and
# ibverbs-providers-ornic were installed with dpkg -i into this root before
# boot (stock/prepare.sh), so DKMS built the module for this kernel.  The
# module is loaded for the devices' PCI alias as udev does at boot; then
# rdma link and ibv_devinfo see both NICs, and between them (ornic_1's
# netdev in its own network namespace, datapath-lib.sh): ibv_rc_pingpong
# with its data checked, rping -V and NVMe-oF over RDMA.  One result line
# per check, as stock/SERIES/<check>.
set -uo pipefail
series=$1 kver=$2 version=$3
SUITE=stock/$series
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh

tail_of() { tail -n 3 "/out/$1.client.log" "/out/$1.server.log" 2>/dev/null | tr '\n' ' '; }

if [ "$(uname -r)" = "$kver" ]; then
	pass kernel "Debian's $kver (linux-image-amd64 $version), initrd by initramfs-tools"
else
	fail kernel "running $(uname -r), not $kver"
	exit 1
fi

# The packages, as dpkg and DKMS see them (DKMS's "installed" for this
# kernel is its kernel-KVER-ARCH link; `dkms status` would take seconds).
st=$(dpkg-query -W -f='${Package} ${Version} ${db:Status-Status}\n' ornic-dkms ibverbs-providers-ornic 2>&1)
dk=$(readlink "/var/lib/dkms/ornic/kernel-$kver-$(uname -m)" 2>&1)
if [ "$(grep -c ' installed$' <<<"$st")" = 2 ] &&
	[ "$dk" = "$(dpkg-query -W -f='${Version}' ornic-dkms)/$kver/$(uname -m)" ]; then
	pass dpkg "$(tr '\n' ',' <<<"$st" | sed 's/,$//'); DKMS: ornic $dk installed"
else
	fail dpkg "dpkg: $(tr '\n' ' ' <<<"$st") DKMS: $dk"
fi

# The ornic functions' modalias, as udev loads it at boot (only theirs:
# loading every emulated device's driver from the compressed modules of a
# full distribution kernel takes a minute under TCG).
for d in /sys/bus/pci/devices/*; do
	[ "$(cat "$d/vendor")" = 0x1dea ] && modprobe -q "$(cat "$d/modalias")"
done
ko=$(modinfo -n ornic 2>/dev/null)
vermagic=$(modinfo -F vermagic ornic 2>/dev/null)
if lsmod | grep -q '^ornic ' && [[ $ko == /lib/modules/$kver/updates/dkms/ornic.ko* ]] &&
	[[ $vermagic == "$kver "* ]]; then
	pass modalias "ornic loaded for its PCI alias from $ko (vermagic $vermagic)"
else
	fail modalias "loaded: $(lsmod | grep -c '^ornic ') module: '$ko' vermagic '$vermagic': $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
	exit 1
fi

if wait_for have_devs 2 &&
	links=$(rdma link show 2>&1) && [[ $links == *"link ornic_0/1 "* ]] && [[ $links == *"link ornic_1/1 "* ]]; then
	pass rdma-link "$(grep -c '^link ornic_' <<<"$links") links: $(grep '^link ornic_' <<<"$links" | awk '{ print $2, "netdev", $NF }' | tr '\n' ' ')"
else
	fail rdma-link "$(rdma link show 2>&1 | tr '\n' ' ')"
	exit 1
fi

# The provider from the package: ibv_devices lists both, ibv_devinfo reads
# each through it (ornic_0's with -v, for the ODP capabilities below).
devs=$(ibv_devices 2>&1)
ok=1
for d in ornic_0 ornic_1; do
	v=()
	[ "$d" = ornic_0 ] && v=(-v)
	ibv_devinfo "${v[@]}" -d "$d" >"/out/ibv_devinfo-$d.txt" 2>&1 || ok=0
	grep -q 'vendor_id:.*0x1dea' "/out/ibv_devinfo-$d.txt" || ok=0
	grep -q 'link_layer:.*Ethernet' "/out/ibv_devinfo-$d.txt" || ok=0
	grep -qw "$d" <<<"$devs" || ok=0
done
if [ $ok = 1 ]; then
	pass ibv_devinfo "ibv_devices lists ornic_0 and ornic_1; ibv_devinfo reads both (vendor 0x1dea, Ethernet) through $(dpkg -S libornic-rdmav34.so | cut -d: -f1)"
else
	fail ibv_devinfo "$(tr '\n' ' ' <<<"$devs") $(head -n 5 /out/ibv_devinfo-ornic_0.txt | tr '\n' ' ')"
fi

# One release everywhere a user looks: both packages as dpkg has them, the
# module DKMS built, the firmware version ibv_devinfo prints (the packaged
# model's FW_VERSION).
rel=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' /src/debian/changelog)
fw=$(sed -n 's/^\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' <<<"$rel")
got="dkms $(dpkg-query -W -f='${Version}' ornic-dkms 2>/dev/null)"
got+=" provider $(dpkg-query -W -f='${Version}' ibverbs-providers-ornic 2>/dev/null)"
got+=" module $(modinfo -F version ornic 2>/dev/null)"
got+=" fw_ver $(awk '$1 == "fw_ver:" { print $2; exit }' /out/ibv_devinfo-ornic_0.txt)"
if [ -n "$fw" ] && [ "$got" = "dkms $rel provider $rel module $rel fw_ver $fw" ]; then
	pass versions "$got"
else
	fail versions "want $rel everywhere (fw_ver $fw): $got"
fi

# ornic_compat.h offers on-demand paging only with the 7.x umem_odp (whose
# header <linux/hmm-dma.h> the driver needs): what the device advertises
# must follow the kernel DKMS built the module for.
odp=no
grep -qE '^[[:space:]]+ODP_SUPPORT$' /out/ibv_devinfo-ornic_0.txt && odp=yes
want=no
[ -f "/lib/modules/$kver/source/include/linux/hmm-dma.h" ] && want=yes
if [ "$odp" = "$want" ]; then
	pass odp-caps "ODP advertised: $odp, as this kernel's headers $([ "$want" = yes ] && echo have || echo lack) <linux/hmm-dma.h>"
else
	fail odp-caps "ODP advertised: $odp, expected $want (ornic_compat.h ORNIC_HAVE_ODP)"
fi

setup_ornic_pair || exit 1
if ! wait_gid "$CDEV" "$CIP" || ! wait_gid "$SDEV" "$SIP"; then
	fail ornic/setup "no RoCE v2 GIDs for $CIP/$SIP"
	exit 1
fi
cg=$(gid_index "$CDEV" "$CIP") sg=$(gid_index "$SDEV" "$SIP")
if pair ornic rc_pingpong ibv_rc_pingpong -d "$SDEV" -g "$sg" -c -n 100 -s 4096 -- \
	-d "$CDEV" -g "$cg" -c -n 100 -s 4096; then
	pass ornic/rc_pingpong "$CDEV -> $SDEV (netns $NS), 100 x 4096 B, data checked: $(grep -m1 'Mbit/sec' /out/ornic-rc_pingpong.client.log)"
else
	fail ornic/rc_pingpong "$(tail_of ornic-rc_pingpong)"
fi
if CM_PAIR_TIMEOUT=120 cm_pair ornic rping 7471 rping -s -a "$SIP" -p 7471 -V -C 20 -S 4096 -- \
	-c -a "$SIP" -p 7471 -V -C 20 -S 4096; then
	pass ornic/cm_rping "20 pings of 4096 B over an rdma_cm connection, every byte verified"
else
	fail ornic/cm_rping "$(tail_of ornic-rping)"
fi
nvmeof ornic
grep -q '^FAIL' "$RESULTS" 2>/dev/null && exit 1
exit 0
