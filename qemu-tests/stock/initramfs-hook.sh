#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# initramfs-tools hook of ornic's stock-kernel test guests (installed as
# /etc/initramfs-tools/hooks/ornic by qemu-tests/stock/prepare.sh): the
# modules the boot script "ornic9p" (initramfs-boot.sh) needs to reach the
# testbed root over virtio-9p and stack the guest's layers on it.  With
# MODULES=list (conf.d/ornic) these are the only drivers in the image.
PREREQ=""
prereqs() { echo "$PREREQ"; }
case $1 in
prereqs)
	prereqs
	exit 0
	;;
esac
. /usr/share/initramfs-tools/hook-functions
manual_add_modules virtio_pci 9pnet_virtio 9p overlay
