#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# model-pci.sh N PROBE: with N device-model instances attached and no driver, the
# guest sees N PCIe functions with the spec's identity, BAR sizes and MSI-X
# vector count (lspci), and BAR0's MAGIC/VERSION registers read through sysfs
# have the spec's values.
set -uo pipefail
n=$1
probe=$2 # ornic-pci-probe built from qemu-tests/tools
SUITE=model-pci
. /src/qemu-tests/suites/lib.sh
eval "$("$probe" --spec)"
# shellcheck disable=SC2154 # assigned by the eval above
id="$vendor:$device"

lspci -nn -vv -d "$id" >/out/lspci.txt 2>&1
count=$(lspci -n -d "$id" | wc -l)
if [ "$count" = "$n" ]; then
	pass lspci-count "$count functions with ID $id"
else
	fail lspci-count "$count functions with ID $id, expected $n"
fi
human() { # bytes -> lspci's size notation
	local b=$1
	if [ $((b % 1048576)) = 0 ]; then echo "$((b / 1048576))M"; else echo "$((b / 1024))K"; fi
}
for bdf in $(lspci -n -d "$id" | cut -d' ' -f1); do
	lspci -vv -s "$bdf" >"/out/lspci-$bdf.txt"
	f=/out/lspci-$bdf.txt
	ok=1
	grep -q "Ethernet controller" "$f" || ok=0
	# shellcheck disable=SC2154
	for bar in "$bar_regs:$bar_regs_size" "$bar_db:$bar_db_size" "$bar_msix:$bar_msix_size"; do
		grep -q "Region ${bar%%:*}: Memory at .*64-bit.*\[size=$(human "${bar#*:}")\]" "$f" || ok=0
	done
	# shellcheck disable=SC2154
	grep -q "MSI-X: Enable. Count=$msix_vectors " "$f" || ok=0
	grep -q "Express (v2) Endpoint" "$f" || ok=0
	if [ $ok = 1 ]; then
		pass "lspci-$bdf" "class, 3 BARs, MSI-X Count=$msix_vectors, PCIe endpoint as specified"
	else
		fail "lspci-$bdf" "$(grep -E 'Ethernet|Region|MSI-X|Express' "$f" | tr -s ' ' | tr '\n' ';')"
	fi
	setpci -s "$bdf" COMMAND=0x0002:0x0002
done
"$probe" "$n" | tee -a "$RESULTS"
grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
