# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# shellcheck shell=sh
# Boot script "ornic9p" of ornic's stock-kernel test guests (installed as
# /etc/initramfs-tools/scripts/ornic9p by qemu-tests/stock/prepare.sh,
# chosen by boot=ornic9p on the kernel command line; initramfs-tools' init
# sources it and calls mountroot).  The root is the one vm.sh's own
# initramfs builds for the test kernel (guest/initramfs-init): the testbed
# root (9p tag "root", read-only) with the layers prepared for this kernel
# (tags layer1..layerN, ornic9p.layers=N, layerN on top: the kernel packages,
# then ornic's packages) and a tmpfs on top, so the guest writes anywhere
# and the cache stays untouched; the checkout at /src, the run's output
# directory at /out.  initramfs-tools' init then moves /dev, /run, /sys
# and /proc into it and runs init= (guest/stage2.sh).

ornic9p_fail() {
	echo "ornic9p: $*"
	echo "ORNIC-GUEST-EXIT=125"
	panic "ornic9p: $*"
}

mount_top() { :; }
mount_premount() { :; }
mount_bottom() { :; }

mountroot() {
	p9=trans=virtio,version=9p2000.L,msize=512000
	layers=0
	read -r cmdline </proc/cmdline
	for x in $cmdline; do
		case $x in
		ornic9p.layers=*) layers=${x#ornic9p.layers=} ;;
		esac
	done
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		modprobe -q "$m" || ornic9p_fail "cannot load $m"
	done
	mkdir -p /ornic/l0 /ornic/rw
	mount -t 9p -o "$p9,ro,cache=loose" root /ornic/l0 ||
		ornic9p_fail "cannot mount the testbed root"
	lower=/ornic/l0
	i=1
	while [ "$i" -le "$layers" ]; do
		mkdir -p "/ornic/l$i"
		mount -t 9p -o "$p9,ro,cache=loose" "layer$i" "/ornic/l$i" ||
			ornic9p_fail "cannot mount layer$i"
		lower=/ornic/l$i:$lower
		i=$((i + 1))
	done
	mount -t tmpfs -o mode=0755 tmpfs /ornic/rw
	mkdir -p /ornic/rw/upper /ornic/rw/work
	mount -t overlay -o "lowerdir=$lower,upperdir=/ornic/rw/upper,workdir=/ornic/rw/work" \
		overlay "${rootmnt:?}" || ornic9p_fail "cannot mount the overlay root ($lower)"
	mkdir -p "$rootmnt/src" "$rootmnt/out"
	mount -t 9p -o "$p9,ro" src "$rootmnt/src" || ornic9p_fail "cannot mount the checkout"
	mount -t 9p -o "$p9" out "$rootmnt/out" || ornic9p_fail "cannot mount the output directory"
}
