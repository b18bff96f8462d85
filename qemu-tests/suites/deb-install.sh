#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# deb-install.sh KO PROVIDER_DEB: the packages as a user's system uses them,
# with two models of the ornic-model package attached.  KO is the module
# DKMS built from ornic-dkms for this kernel: it goes where DKMS installs
# it, depmod indexes its PCI alias, and each PCI device's modalias is
# loaded as udev does at boot.  PROVIDER_DEB is installed with dpkg; then
# ibv_devices must list both devices with no file copied by hand, and the
# module, the provider's package and the firmware version agree.
set -uo pipefail
ko=$1
provider_deb=$2
SUITE=deb
. /src/qemu-tests/suites/lib.sh

k=$(uname -r)
mkdir -p "/lib/modules/$k/updates/dkms"
cp "$ko" "/lib/modules/$k/updates/dkms/"
depmod -a
for d in /sys/bus/pci/devices/*; do
	modprobe -q "$(cat "$d/modalias")" 2>/dev/null
done
if lsmod | grep -q '^ornic '; then
	pass guest-modalias "ornic loaded for its PCI alias from $(modinfo -n ornic)"
else
	fail guest-modalias "no PCI device's modalias loaded ornic"
fi
if out=$(dpkg -i "$provider_deb" 2>&1); then
	pass guest-dpkg-provider "$(basename "$provider_deb") installed"
else
	fail guest-dpkg-provider "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
fi
for _ in $(seq 20); do
	[ "$(rdma link show 2>/dev/null | grep -c ornic_)" = 2 ] && break
	sleep 0.5
done
devs=$(ibv_devices 2>&1)
echo "$devs" >/out/ibv_devices.txt
if grep -q ornic_0 <<<"$devs" && grep -q ornic_1 <<<"$devs" &&
	ibv_devinfo -d ornic_0 >/out/ibv_devinfo.txt 2>&1 && grep -q 'vendor_id:.*0x1dea' /out/ibv_devinfo.txt; then
	pass guest-ibv-devices "ibv_devices lists ornic_0 and ornic_1, ibv_devinfo reads ornic_0"
else
	fail guest-ibv-devices "$(echo "$devs" | tr '\n' ' ')"
fi

# One release everywhere a user looks: the module (modinfo), the provider's
# package (dpkg) and the firmware version ibv_devinfo prints, which is the
# FW_VERSION of the ornic-model package's model.
version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' /src/debian/changelog)
fw=$(sed -n 's/^\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' <<<"$version")
mv=$(modinfo -F version ornic 2>/dev/null)
pv=$(dpkg-query -W -f='${Version}' ibverbs-providers-ornic 2>/dev/null)
dv=$(awk '$1 == "fw_ver:" { print $2; exit }' /out/ibv_devinfo.txt)
if [ -n "$fw" ] && [ "$mv" = "$version" ] && [ "$pv" = "$version" ] && [ "$dv" = "$fw" ]; then
	pass guest-versions "modinfo ornic $mv, ibverbs-providers-ornic $pv, ibv_devinfo fw_ver $dv"
else
	fail guest-versions "want $version: modinfo '$mv', provider package '$pv', ibv_devinfo fw_ver '$dv'"
fi
