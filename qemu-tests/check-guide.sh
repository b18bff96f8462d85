#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The guide group of `make check`: the recipes of Documentation/user-guide.rst
# as written, "two VMs on one host".  The two models come from the guide's
# configuration files through the service's ExecStart helper; VM A is the
# guide's libvirt domain started by a libvirtd of this testbed, VM B the
# guide's QEMU options; both run the guide's guest recipes
# (suites/guide.sh).  Paths under /run/ornic become this run's directory.
# Runs inside the testbed with RESULTS, FLAVOUR and BUILD; result lines
# guide/...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-guide.sh runs inside the testbed"
# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
P=guide
guest_inputs_built $P || exit 0

guide=$ORNIC_SRC/Documentation/user-guide.rst
dir=/tmp/guide
run=$dir/run
rm -rf "$dir"
mkdir -p "$dir/etc" "$dir/share" "$run/nic-a" "$run/nic-b" "$dir/libvirt"
recipe() { # recipe NAME FILE: the guide's recipe NAME, this run's paths, in FILE
	"$here/tools/guide-recipe.py" "$guide" "$1" "/run/ornic=$run" >"$2" 2>"$dir/recipe.err" && return 0
	record FAIL "$P/recipe-$1" "$(cat "$dir/recipe.err")"
	return 1
}

model_pids=() libvirtd_pid=""
# shellcheck disable=SC2329 # the EXIT trap calls it
cleanup() {
	[ -z "$libvirtd_pid" ] || kill "$libvirtd_pid" 2>/dev/null
	[ ${#model_pids[@]} = 0 ] || kill "${model_pids[@]}" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT

# --- the models, as ornic-model@nic-a and @nic-b would start them ----------------
for n in nic-a nic-b; do
	recipe "$n.conf" "$dir/etc/$n.conf" || exit 0
	ORNIC_CONF_DIR=$dir/etc ORNIC_MODEL=$MODEL_BIN \
		"$ORNIC_SRC/debian/model/ornic-model-service" "$n" >"$dir/$n.log" 2>&1 &
	model_pids+=($!)
done
up=0
for _ in $(seq 100); do
	[ -S "$run/nic-a/vfio-user.sock" ] && [ -S "$run/nic-b/vfio-user.sock" ] && { up=1; break; }
	sleep 0.2
done
if [ $up = 0 ]; then
	record FAIL $P/models "the guide's nic-a.conf and nic-b.conf did not start two models: $(tail -n 2 "$dir"/nic-*.log | tr '\n' ' ')"
	exit 0
fi
record PASS $P/models "nic-a.conf and nic-b.conf started two linked models through ornic-model-service"

# --- libvirtd: root's system instance, nothing kept in the testbed root ----------
# QEMU runs as root without cgroups, namespaces or a security driver (the
# testbed is one root user in a chroot); libvirt's state lives in tmpfs.
cat >"$dir/libvirt/qemu.conf" <<'CONF'
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
cgroup_controllers = [ ]
namespaces = [ ]
security_driver = "none"
stdio_handler = "file"
CONF
# shellcheck disable=SC2016 # expanded by the inner shell
unshare --mount bash -c '
	mount --bind "$1/qemu.conf" /etc/libvirt/qemu.conf &&
	for d in /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do
		mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || exit 1
	done
	exec libvirtd' libvirtd "$dir/libvirt" >"$dir/libvirt/libvirtd.log" 2>&1 &
libvirtd_pid=$!
up=0
for _ in $(seq 120); do
	virsh -q -c qemu:///system version >/dev/null 2>&1 && { up=1; break; }
	kill -0 "$libvirtd_pid" 2>/dev/null || break
	sleep 0.5
done
if [ $up = 0 ]; then
	record FAIL $P/libvirtd "libvirtd did not answer: $(tail -n 3 "$dir/libvirt/libvirtd.log" | tr '\n' ' ')"
	exit 0
fi

# --- the two VMs --------------------------------------------------------------------
recipe libvirt-domain "$dir/vm-a.xml" || exit 0
recipe qemu-args "$dir/qemu-args.sh" || exit 0
genv=(env MODDIR="$MO" PROVIDER_DIR="$PDIR" TOOL_TIMEOUT=$((120 * ${ORNIC_TIMEOUT_SCALE:-1})))
start=$(date +%s)
"$here/vm.sh" --name "$RUN_NAME/guide-b" --flavour "$FLAVOUR" --allow-splat --timeout 600 \
	--qemu-recipe "$dir/qemu-args.sh" --share "share,$dir/share" -- "${genv[@]}" /src/qemu-tests/suites/guide.sh b &
bpid=$!
arc=0
"$here/vm.sh" --name "$RUN_NAME/guide-a" --flavour "$FLAVOUR" --allow-splat --timeout 600 \
	--libvirt-domain "$dir/vm-a.xml" --share "share,$dir/share" -- "${genv[@]}" /src/qemu-tests/suites/guide.sh a || arc=$?
touch "$dir/share/a-failed"
brc=0
wait "$bpid" || brc=$?
say "guide: two VMs in $(($(date +%s) - start)) s"
guest_results $P/vm-a-libvirt "$RUNS/guide-a" "$arc"
guest_results $P/vm-b-qemu "$RUNS/guide-b" "$brc"
# Both models served a whole VM's life; they must end cleanly on SIGTERM, as
# systemctl stop would end them.
kill -TERM "${model_pids[@]}" 2>/dev/null
bad=""
for i in 0 1; do
	rc=0
	wait "${model_pids[$i]}" || rc=$?
	[ "$rc" = 0 ] || bad+=" model $i exit $rc;"
done
model_pids=()
if [ -z "$bad" ]; then
	record PASS $P/models-stop "both models alive after the VMs ended, clean exit on SIGTERM"
else
	record FAIL $P/models-stop "$bad see $dir/nic-*.log"
fi
cp "$dir"/nic-*.log "$dir/libvirt/libvirtd.log" "$RUNS/guide-a/" 2>/dev/null
exit 0
