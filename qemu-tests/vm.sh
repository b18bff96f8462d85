#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# vm.sh [options] -- CMD...: boot the test kernel under QEMU (TCG) with the
# testbed root read-only, the checkout at /src and an output directory at
# /out, run CMD in the guest and return its exit status.  The run fails on
# any KASAN, lockdep, kmemleak, UBSAN, WARN, BUG, Oops or hung-task report in
# the kernel log.
#
#   --name NAME          run name (output in $ORNIC_CACHE/runs/NAME)
#   --out DIR            output directory (default: from --name)
#   --flavour F          kernel flavour: base (default) or kasan
#   --stock DIR          boot one of Debian's kernels instead, prepared by
#                        stock/prepare.sh: DIR/vmlinuz, DIR/initrd.img (made
#                        by initramfs-tools, boot script "ornic9p") and the
#                        layers listed in DIR/layers, shared read-only over
#                        9p and stacked by that script over the testbed root
#   --timeout SEC        kill the guest after SEC seconds (default 600)
#   --mem SIZE           guest RAM (default 2G), memfd-backed and shared
#   --cpus N             vCPUs (default 2)
#   --vfio-user SOCKET   attach a vfio-user device behind its own PCIe root
#                        port (repeatable; the server must be listening)
#   --virtio-net-dgram LOCAL,PEER[,MAC]
#                        a virtio-net-pci NIC on -netdev dgram between the
#                        unix datagram sockets LOCAL (QEMU's) and PEER (e.g.
#                        a model's --port unix:PEER,LOCAL); repeatable
#   --virtio-net-tap IFNAME[,MAC]
#                        a virtio-net-pci NIC on the existing tap IFNAME (no
#                        vnet header, so frames arrive complete); repeatable
#   --share TAG,DIR      DIR read-write over 9p as mount tag TAG (the guest
#                        mounts it itself); repeatable
#   --netns NS           run QEMU in network namespace NS (where its taps are)
#   --native-hotplug     the root ports' hotplug is PCIe native (pciehp in the
#                        guest) rather than ACPI, which the test kernel lacks:
#                        device_del then completes
#   --allow-splat        report kernel splats but do not fail on them
#   --qemu-recipe FILE   take machine, memory and ornic devices from the
#                        bash array ornic_qemu_args that FILE defines (the
#                        user guide's QEMU recipe); --vfio-user is ignored
#   --libvirt-domain FILE
#                        boot through libvirt: FILE is a domain XML (the
#                        user guide's), started with virsh create after
#                        tools/libvirt-test-domain.py adds the test boot;
#                        a libvirtd must be running; only --name, --out,
#                        --timeout, --share and --allow-splat apply
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || exec "$here/testbed/enter.sh" /src/qemu-tests/vm.sh "$@"

name=vm flavour=base timeout=600 mem=2G cpus=2 out="" allow_splat=0 stock=""
sockets=() vnets=() taps=() shares=() layers=() netns="" recipe="" domain="" native_hotplug=0
while [ $# -gt 0 ]; do
	case $1 in
	--name) name=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--flavour) flavour=$2; shift 2 ;;
	--stock) stock=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--cpus) cpus=$2; shift 2 ;;
	--vfio-user) sockets+=("$2"); shift 2 ;;
	--virtio-net-dgram) vnets+=("$2"); shift 2 ;;
	--virtio-net-tap) taps+=("$2"); shift 2 ;;
	--share) shares+=("$2"); shift 2 ;;
	--netns) netns=$2; shift 2 ;;
	--native-hotplug) native_hotplug=1; shift ;;
	--allow-splat) allow_splat=1; shift ;;
	--qemu-recipe) recipe=$2; shift 2 ;;
	--libvirt-domain) domain=$2; shift 2 ;;
	--) shift; break ;;
	*) die "vm.sh: unknown option '$1'" ;;
	esac
done
[ $# -gt 0 ] || die "vm.sh: no guest command given"
timeout=$(( timeout * ${ORNIC_TIMEOUT_SCALE:-1} ))

if [ -z "$stock" ]; then
	kdir=$("$here/kernel/kernel-dir.sh" "$flavour")
	[ -f "$kdir/.ornic-built" ] || die "no $flavour test kernel in $kdir: run 'make kernel'"
else
	for f in vmlinuz initrd.img layers; do
		[ -e "$stock/$f" ] || die "no $stock/$f: prepare it with stock/prepare.sh"
	done
	mapfile -t layers <"$stock/layers"
	flavour="Debian $(cat "$stock/kver" 2>/dev/null)"
fi
out=${out:-$ORNIC_CACHE/runs/$name}
rm -rf "$out"
mkdir -p "$out"
console=$out/console.log

# The guest command, run by stage2.sh as /out/guest-cmd.sh.
{
	echo '#!/bin/bash'
	printf 'cd /src && exec'
	printf ' %q' "$@"
	echo
} >"$out/guest-cmd.sh"

# Both kernels get the same command line, but for the root: the test
# kernel's initramfs (static busybox and the first-stage init, rebuilt per
# run, ms) mounts it itself; a Debian kernel's, made by initramfs-tools,
# runs its boot script ornic9p (stock/initramfs-boot.sh) and then stage2.sh
# as init.
append="console=ttyS0 loglevel=${ORNIC_GUEST_LOGLEVEL:-5} panic=-1 oops=panic_off watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 sysrq_always_enabled"
if [ -z "$stock" ]; then
	initrd=$out/initrd.cpio
	ird=$(mktemp -d)
	mkdir -p "$ird/bin" "$ird/proc" "$ird/sys" "$ird/dev"
	cp /usr/bin/busybox "$ird/bin/busybox"
	cp "$here/guest/initramfs-init" "$ird/init"
	(cd "$ird" && find . | cpio -o -H newc --quiet >"$initrd")
	rm -rf "$ird"
	# The test kernel's modules travel in the initramfs too, an archive
	# appended to it (made once per kernel build): copying them from a 9p
	# share and indexing them again cost 7 s of every boot under TCG.
	modcpio=$kdir/modroot.cpio
	if [ ! -s "$modcpio" ]; then
		tmpc=$(mktemp "$modcpio.XXXXXX")
		if ! (cd "$kdir/modroot" && find lib | cpio -o -H newc --quiet) >"$tmpc" ||
			! mv "$tmpc" "$modcpio"; then
			rm -f "$tmpc"
			die "vm.sh: cannot archive $kdir/modroot"
		fi
	fi
	cat "$modcpio" >>"$initrd"
	bzimage=$kdir/arch/x86/boot/bzImage
	append+=" kmemleak=on"
else
	initrd=$stock/initrd.img bzimage=$stock/vmlinuz
	append+=" boot=ornic9p ornic9p.layers=${#layers[@]} init=/src/qemu-tests/guest/stage2.sh"
fi

fs() { # fs TAG PATH [readonly]
	echo "-fsdev local,id=fs_$1,path=$2,security_model=none${3:+,readonly=on}"
	echo "-device virtio-9p-pci,fsdev=fs_$1,mount_tag=$1"
}
# 9p shares as TAG,DIR[,ro]: the root, a Debian kernel's layers, the
# checkout, the output.
fss=("root,/,ro")
i=1
for l in "${layers[@]}"; do
	fss+=("layer$i,$l,ro")
	i=$((i + 1))
done
fss+=("src,$ORNIC_SRC,ro" "out,$out")
for s in "${shares[@]}"; do
	fss+=("$s")
done
if [ -n "$recipe" ]; then
	# shellcheck disable=SC1090 # the guide's recipe, chosen by the caller
	. "$recipe" || die "vm.sh: cannot read the QEMU recipe $recipe"
	# shellcheck disable=SC2154 # the recipe assigns it
	declare -p ornic_qemu_args >/dev/null 2>&1 || die "vm.sh: $recipe defines no ornic_qemu_args"
	machine_args=("${ornic_qemu_args[@]}")
	sockets=()
else
	machine_args=(-machine "q35,memory-backend=mem" -object "memory-backend-memfd,id=mem,size=$mem,share=on" -m "$mem")
fi
args=(-accel tcg "${machine_args[@]}"
	-smp "$cpus" -cpu max -display none -monitor "unix:$out/monitor.sock,server=on,wait=off" -no-reboot
	-serial "file:$console"
	-kernel "$bzimage" -initrd "$initrd" -append "$append"
	-nic none)
[ $native_hotplug = 0 ] || args+=(-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off)
for s in "${fss[@]}"; do
	IFS=, read -r ftag fdir fro <<<"$s"
	# shellcheck disable=SC2207 # fs() prints one QEMU argument per line
	args+=($(fs "$ftag" "$fdir" "$fro"))
done
i=0
for s in "${sockets[@]}"; do
	args+=(-device "pcie-root-port,id=rp$i,chassis=$((i + 1)),slot=$((i + 1))"
		-device "{\"driver\":\"vfio-user-pci\",\"id\":\"ornic$i\",\"bus\":\"rp$i\",\"socket\":{\"path\":\"$s\",\"type\":\"unix\"}}")
	i=$((i + 1))
done
# One Ethernet frame per datagram, no vnet header: the model's port framing.
i=0
for v in "${vnets[@]}"; do
	IFS=, read -r vlocal vpeer vmac <<<"$v"
	args+=(-netdev "dgram,id=vn$i,local.type=unix,local.path=$vlocal,remote.type=unix,remote.path=$vpeer"
		-device "virtio-net-pci,netdev=vn$i${vmac:+,mac=$vmac}")
	i=$((i + 1))
done
for t in "${taps[@]}"; do
	IFS=, read -r tif tmac <<<"$t"
	args+=(-netdev "tap,id=vn$i,ifname=$tif,script=no,downscript=no,vnet_hdr=off"
		-device "virtio-net-pci,netdev=vn$i${tmac:+,mac=$tmac}")
	i=$((i + 1))
done
qemu=(qemu-system-x86_64)
# ORNIC_QEMU_TRACE: a QEMU trace pattern whose events go to qemu-trace.log.
[ -z "${ORNIC_QEMU_TRACE:-}" ] || args+=(-trace "$ORNIC_QEMU_TRACE" -D "$out/qemu-trace.log")
[ -z "$netns" ] || qemu=(ip netns exec "$netns" qemu-system-x86_64)

say "vm $name: booting ($flavour kernel${domain:+ through libvirt}, timeout ${timeout}s, console: $console)"
start=$(date +%s)
if [ -n "$domain" ]; then
	# libvirt starts QEMU; a watcher stands in for its PID: it ends when
	# the domain is gone (the guest powered off) and is what times out.
	dname=ornic-$(basename "$out")-$$
	fsopts=()
	for s in "${fss[@]}"; do
		fsopts+=(--share "$s")
	done
	virsh=(virsh -q -c qemu:///system)
	"$here/tools/libvirt-test-domain.py" "$domain" --name "$dname" \
		--kernel "$bzimage" --initrd "$initrd" --cmdline "$append" \
		--console "$console" "${fsopts[@]}" >"$out/domain.xml" ||
		die "vm.sh: cannot make a test domain of $domain"
	"${virsh[@]}" create "$out/domain.xml" >"$out/qemu.log" 2>&1 ||
		{ cat "$out/qemu.log" >&2; die "vm.sh: virsh create failed (see $out/domain.xml)"; }
	(while "${virsh[@]}" domstate "$dname" >/dev/null 2>&1; do sleep 1; done) &
	qpid=$!
	qemu=("${virsh[@]}" destroy "$dname")
else
	"${qemu[@]}" "${args[@]}" >"$out/qemu.log" 2>&1 &
	qpid=$!
	# A guest whose console stays empty for minutes never reached the
	# kernel (the kernel's first warnings, or the guest's init, print
	# within a minute even on a loaded host): once in a great while a
	# TCG guest stalls in the firmware for good.  Such a boot is tried
	# once more (ORNIC_BOOT_WAIT seconds, 300), and the run says so.
	boot_wait=${ORNIC_BOOT_WAIT:-300}
	for ((i = 0; i < boot_wait; i++)); do
		[ -s "$console" ] && break
		kill -0 "$qpid" 2>/dev/null || break
		sleep 1
	done
	if [ ! -s "$console" ] && kill -0 "$qpid" 2>/dev/null; then
		say "vm $name: no console output in ${boot_wait}s: QEMU never reached the kernel; booting once more"
		kill -TERM "$qpid" 2>/dev/null || true
		wait_timeout "$qpid" 5 || kill -KILL "$qpid" 2>/dev/null || true
		wait "$qpid" 2>/dev/null || true
		mv "$out/qemu.log" "$out/qemu-stalled-boot.log"
		echo "boot stalled before the kernel after ${boot_wait}s; booted again" >"$out/boot-retry"
		"${qemu[@]}" "${args[@]}" >"$out/qemu.log" 2>&1 &
		qpid=$!
	fi
	qemu=()
fi
timed_out=0
if ! wait_timeout "$qpid" "$timeout"; then
	timed_out=1
	# Before killing a hung guest, have it print what it is doing: blocked
	# tasks, every CPU's backtrace, all tasks (SysRq through the emulated
	# keyboard; the output goes to the console log).
	for k in w l t; do
		printf 'sendkey alt-sysrq-%s\n' "$k"
		sleep 3
	done | timeout 20 nc -U -q 2 "$out/monitor.sock" >/dev/null 2>&1 || true
	sleep 2
	[ ${#qemu[@]} = 0 ] || "${qemu[@]}" >/dev/null 2>&1 || true
	kill -TERM "$qpid" 2>/dev/null || true
	wait_timeout "$qpid" 5 || kill -KILL "$qpid" 2>/dev/null || true
fi
qrc=0
wait "$qpid" 2>/dev/null || qrc=$?
# The initramfs holds the kernel's modules (17 MB): not worth keeping.
[ -n "$stock" ] || rm -f "$initrd"
elapsed=$(( $(date +%s) - start ))

rc=$(sed -n 's/^ORNIC-GUEST-EXIT=\([0-9]*\).*/\1/p' "$console" | tail -n1)
echo "$qrc" >"$out/qemu-exit"
status=ok
if [ $timed_out = 1 ]; then
	say "vm $name: timed out after ${timeout}s"
	status=timeout rc=124
elif [ -z "$rc" ]; then
	say "vm $name: the guest ended without reporting a status (qemu exit $qrc; see $out/qemu.log, $console)"
	tail -n 5 "$out/qemu.log" >&2 || true
	status=crashed rc=125
elif [ "$qrc" != 0 ]; then
	# The guest finished, but QEMU died on the way out (an assertion while
	# tearing down a device whose vfio-user server is gone, say).
	say "vm $name: the guest reported exit $rc, but QEMU exited $qrc (see $out/qemu.log)"
	tail -n 5 "$out/qemu.log" >&2 || true
	status=qemu-crashed rc=125
fi

# Kernel splats: scan the console and the guest's full dmesg.
splats=$out/splats.txt
cat "$console" "$out/dmesg.txt" 2>/dev/null | tr -d '\r' | grep -E \
	-e 'BUG: |WARNING: |UBSAN: |KASAN: |kernel BUG at' \
	-e 'unreferenced object 0x|kmemleak: [0-9]+ new suspected' \
	-e 'INFO: task .* blocked for more than|INFO: possible|INFO: trying to register' \
	-e 'Oops|general protection fault|Kernel panic|soft lockup|hard LOCKUP' \
	-e 'list_(add|del) corruption|refcount_t: |detected stall' \
	| sort -u >"$splats" || true
if [ -s "$splats" ]; then
	say "vm $name: kernel log has $(wc -l <"$splats") splat line(s):"
	sed 's/^/    /' "$splats" | head -n 20 >&2
	if [ $allow_splat = 0 ] && [ "$rc" = 0 ]; then
		status=splat rc=126
	fi
fi
echo "$status" >"$out/status"
say "vm $name: $status, guest exit $rc, ${elapsed}s"
exit "$rc"
