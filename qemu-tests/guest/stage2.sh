#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Second stage of an ornic test guest (PID 1 in the overlay root): set up the
# usual mounts, run /out/guest-cmd.sh, check kmemleak, report the status on
# the console and power off.  The host runner parses the console.  Run by
# the test kernel's initramfs-init or, on a Debian kernel, as init= by
# initramfs-tools' init (boot=ornic9p), which has moved /proc, /sys and
# /run here already.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mount -t tmpfs -o mode=1777 tmpfs /tmp
mountpoint -q /run || mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t configfs configfs /sys/kernel/config
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
hostname ornic-guest
ip link set lo up
# The test kernel's modules were indexed by its modules_install, a Debian
# kernel's by its package and DKMS: no depmod here (2 s of every boot under
# TCG).  Suites that install a module run depmod themselves.
# Boot-time allocations are not the test's business: report only what leaks
# from here on.
[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
echo 'ornic-guest: stage2 up'

rc=0
bash /out/guest-cmd.sh </dev/null >/out/guest-output.log 2>&1 || rc=$?
# Show the script's output on the console too (the host keeps both).
cat /out/guest-output.log

# kmemleak reports an unreferenced object only when it is older than 5 s
# (MSECS_MIN_AGE) at the start of a scan, and (min_unref_scans is 1 without
# DEBUG_KMEMLEAK_VERBOSE) after one such scan: wait out the age of what the
# command's last seconds allocated, then scan once.  A scan takes seconds
# under TCG; every boot of make check pays for it.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 5.2
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak >/out/kmemleak.txt
	if [ -s /out/kmemleak.txt ]; then
		echo "kmemleak: $(grep -c 'unreferenced object' /out/kmemleak.txt) unreferenced objects"
		head -n 60 /out/kmemleak.txt
	fi
fi
dmesg >/out/dmesg.txt
sync
echo "ORNIC-GUEST-EXIT=$rc"
# reboot(2) powers off synchronously; PID 1 must never return (a dying init
# is a kernel panic), and after the power-off starts no file can be run.
busybox poweroff -f
while :; do :; done
