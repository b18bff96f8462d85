#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# stock/prepare.sh: guest roots for Debian's own kernels (the stock group of
# `make check`).  Runs inside the testbed.
#
#   prepare.sh root SUITE DEB...
#       The boot directory for vm.sh --stock, printed on stdout: its
#       vmlinuz, initrd.img, kver (the kernel release), version (the
#       package's) and layers (one directory per line, bottom first).
#       SUITE: "trixie" (linux-image-amd64's candidate there, security
#       updates included) or "trixie-backports" (the newest there),
#       VERSION below, from the testbed's apt lists (refreshed once when
#       the archive no longer has what they name).  Two layers over the testbed
#       root, each the upper directory of an overlayfs on which the step
#       ran in a chroot, as on a user's machine:
#         $ORNIC_CACHE/stock/kernel-VERSION-KEY: apt-get install
#           linux-image-amd64 and linux-headers-amd64 of VERSION;
#           initramfs-tools makes the initrd with ornic's configuration,
#           hook and boot script (initramfs.conf, initramfs-hook.sh,
#           initramfs-boot.sh) already in /etc/initramfs-tools.  KEY: the
#           version, the testbed's package database and the recipe.
#         $ORNIC_CACHE/stock/root-VERSION-KEY: dpkg -i DEB... (ornic-dkms,
#           whose postinst has DKMS build and install the module for that
#           kernel, and the provider package).  KEY: the kernel layer's
#           key, the packages' contents and the recipe.
#       Both are built once (under a lock, in a temporary directory then
#       renamed) and reused while their key holds; layers unused for a day
#       (root) or a week (kernel) are removed.  Exit 3 with the reason on
#       stdout when the archive has no such kernel package, 1 on any other
#       failure (the logs are named on stderr).
#   prepare.sh kernels
#       The kernel layers of both suites only (no packages needed yet).
#   prepare.sh available
#       Status 0 when the apt lists name a kernel for either suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/../testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "stock/prepare.sh runs inside the testbed"
STOCK=$ORNIC_CACHE/stock
mkdir -p "$STOCK"

# version SUITE: the version of linux-image-amd64 to boot for SUITE; the
# reason on stdout and exit 3 when there is none.
version() {
	local suite=$1 v
	case $suite in
	trixie)
		v=$(apt-cache policy linux-image-amd64 | awk '$1 == "Candidate:" { print $2 }')
		[ "$v" != "(none)" ] || v=""
		;;
	trixie-backports)
		v=$(apt-cache madison linux-image-amd64 |
			awk -F' [|] ' '$3 ~ / trixie-backports\// { print $2; exit }')
		;;
	*) die "unknown suite '$suite' (trixie or trixie-backports)" ;;
	esac
	v=${v// /}
	if [ -z "$v" ]; then
		echo "linux-image-amd64 is not in $suite (apt lists of the testbed)"
		exit 3
	fi
	echo "$v"
}

# in_layer DIR LOWERS CMD...: run CMD in a chroot whose root is an overlayfs
# with upper directory DIR/upper over LOWERS (colon-separated, top first),
# in a private mount namespace (nothing stays mounted).  The checkout (/src)
# and the cache (/cache) are bound in at the same paths.  Plain layers (no
# redirects, metacopy or index): vm.sh shares them over 9p as lower layers.
in_layer() {
	local dir=$1 lowers=$2
	shift 2
	mkdir -p "$dir/upper" "$dir/work"
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation private bash -c '
		set -e
		dir=$1 lowers=$2
		shift 2
		m=$(mktemp -d)
		mount -t overlay overlay -o "lowerdir=$lowers,upperdir=$dir/upper,workdir=$dir/work,redirect_dir=off,metacopy=off,index=off,xino=off" "$m"
		mount -t proc proc "$m/proc"
		mount --rbind /dev "$m/dev"
		mount -t sysfs sysfs "$m/sys"
		mount -t tmpfs -o mode=1777 tmpfs "$m/tmp"
		mount -t tmpfs tmpfs "$m/run"
		mount --bind /src "$m/src"
		mount --bind /cache "$m/cache"
		exec chroot "$m" /usr/bin/env -i \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		in_layer "$dir" "$lowers" "$@"
}

# kernel_recipe SUITE VERSION: inside the kernel layer's chroot.
kernel_recipe() {
	local v=$2
	install -D -m755 /src/qemu-tests/stock/initramfs-hook.sh /etc/initramfs-tools/hooks/ornic
	install -D -m644 /src/qemu-tests/stock/initramfs-boot.sh /etc/initramfs-tools/scripts/ornic9p
	install -D -m644 /src/qemu-tests/stock/initramfs.conf /etc/initramfs-tools/conf.d/ornic
	# The testbed's packages come from trixie-backports where it has them
	# (mkroot.sh): so do the kernel's dependencies, else they would
	# clash with it (libdw1t64 needs its own libelf1t64).
	# initramfs-tools named: linux-image-7.x would otherwise bring dracut.
	apt-get install -y -t trixie-backports initramfs-tools "linux-image-amd64=$v" "linux-headers-amd64=$v"
	apt-get clean
}

# root_recipe DEB...: inside the package layer's chroot.
root_recipe() {
	dpkg -i "$@"
	dkms status
}

# deb_sum DEB: a checksum of the package's control files and contents,
# without the files' times (make deb's copy of the tree gives them new ones
# each run, so the .deb itself differs while nothing in it changed).
deb_sum() {
	local t
	t=$(mktemp -d)
	dpkg-deb -R "$1" "$t/x"
	(cd "$t/x" && find . -printf '%y %m %p %l\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum
	rm -rf "$t"
}

# key WORDS...: a short hash of WORDS.
key() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

kernel_release() { # kernel_release LAYER: the one kernel release in it
	local f
	for f in "$1"/upper/boot/vmlinuz-*; do
		[ -f "$f" ] && echo "${f##*/vmlinuz-}" && return 0
	done
	return 1
}

# build_layer NAME DESCRIPTION LOWERS CMD...: $STOCK/NAME, built once;
# LAYER_STATE says whether it was cached or how long it took.
build_layer() {
	local name=$1 desc=$2 lowers=$3 dir=$STOCK/$1 rc=0 t0
	LAYER_STATE=failed
	shift 3
	exec 8>"$STOCK/.lock-$name"
	flock 8
	if [ -f "$dir/.ready" ]; then
		touch "$dir/.used"
		exec 8>&-
		LAYER_STATE=cached
		return 0
	fi
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	t0=$(date +%s)
	say "stock: $desc (log: $dir.tmp/build.log)"
	in_layer "$dir.tmp" "$lowers" nice "$@" >"$dir.tmp/build.log" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		tail -n 20 "$dir.tmp/build.log" >&2
		rm -rf "$dir.fail"
		mv "$dir.tmp" "$dir.fail"
		say "stock: $desc failed (exit $rc); see $dir.fail/build.log"
		exec 8>&-
		return 1
	fi
	rm -rf "$dir.tmp/work"
	touch "$dir.tmp/.ready" "$dir.tmp/.used"
	mv "$dir.tmp" "$dir"
	LAYER_STATE="built in $(( $(date +%s) - t0 ))s"
	say "stock: $desc: done in $(( $(date +%s) - t0 ))s"
	exec 8>&-
}

# prune: layers unused for a day (package layers) or a week (kernels).
prune() {
	local used
	while read -r used; do
		rm -rf "$(dirname "$used")"
	done < <(find "$STOCK" -mindepth 2 -maxdepth 2 -name .used \
		\( -path "$STOCK/root-*" -mmin +1440 -o -path "$STOCK/kernel-*" -mmin +10080 \) 2>/dev/null)
	# Failed or interrupted builds, and the locks of layers that are gone
	# (build_layer's open truncates its lock: a day-old one is unused).
	find "$STOCK" -mindepth 1 -maxdepth 1 \( -name '*.fail' -o -name '*.tmp' -o -name '.lock-*' \) \
		-mmin +1440 -print0 2>/dev/null | while IFS= read -r -d '' f; do
		case ${f##*/} in
		.lock-*) [ -e "$STOCK/${f##*/.lock-}" ] || rm -f "$f" ;;
		*) rm -rf "$f" ;;
		esac
	done
}

# refresh_lists: apt-get update in the testbed (as mkroot.sh, under its lock).
refresh_lists() {
	say "stock: refreshing the testbed's apt lists"
	(
		flock 9
		apt-get update
	) 9>"$ORNIC_CACHE/.testbed.lock" >"$STOCK/apt-update.log" 2>&1
}

# kernel_layer SUITE: build or find the kernel layer; sets V, KKEY, KDIR and
# KSTATE.  Status 4: the archive no longer has the version the lists name.
kernel_layer() {
	local suite=$1 rc=0
	V=$(version "$suite") || { echo "$V"; exit 3; }
	KKEY=$(key "$suite" "$V" "$(sha256sum </var/lib/dpkg/status)" \
		"$(cat "$here"/initramfs-hook.sh "$here"/initramfs-boot.sh "$here"/initramfs.conf)" \
		"$(declare -f in_layer kernel_recipe)")
	KDIR=$STOCK/kernel-$V-$KKEY
	build_layer "${KDIR##*/}" "linux-image-amd64 $V from $suite, its initramfs" / \
		bash -ec "$(declare -f kernel_recipe); kernel_recipe $suite $V" || rc=$?
	KSTATE=$LAYER_STATE
	[ "$rc" = 0 ] && return 0
	grep -qE '404 +Not Found|Unable to locate package|has no installation candidate' \
		"$KDIR.fail/build.log" 2>/dev/null && return 4
	exit 1
}

# kernel_for SUITE: kernel_layer, once more with fresh apt lists when the
# archive no longer has the version they name; exit 3 when it still has not.
kernel_for() {
	local suite=$1 rc=0
	kernel_layer "$suite" || rc=$?
	[ "$rc" = 4 ] || return 0
	refresh_lists || die "apt-get update failed; see $STOCK/apt-update.log"
	rc=0
	kernel_layer "$suite" || rc=$?
	if [ "$rc" = 4 ]; then
		echo "linux-image-amd64=$V ($suite) is not in the archive: $(grep -m1 -E '404|Unable to locate|candidate' "$KDIR.fail/build.log")"
		exit 3
	fi
}

root() {
	local suite=$1 rkey rdir kver deb debs sums=()
	shift
	[ $# -gt 0 ] || die "prepare.sh root: no packages given"
	# Absolute paths: the chroot sees /src and /cache where they are.
	for deb in "$@"; do
		[ -f "$deb" ] || die "no package $deb"
	done
	mapfile -t debs < <(realpath -e "$@")
	set -- "${debs[@]}"
	kernel_for "$suite"
	kver=$(kernel_release "$KDIR") || die "no vmlinuz in $KDIR/upper/boot"
	[ -f "$KDIR/upper/boot/initrd.img-$kver" ] || die "initramfs-tools made no initrd.img-$kver"
	for deb in "$@"; do
		sums+=("$(deb_sum "$deb")")
	done
	rkey=$(key "$KKEY" "${sums[@]}" "$(declare -f in_layer root_recipe)")
	rdir=$STOCK/root-$V-$rkey
	build_layer "${rdir##*/}" "dpkg -i ${*##*/} for $kver" "$KDIR/upper:/" \
		bash -ec "$(declare -f root_recipe); root_recipe $*" || exit 1
	if ! compgen -G "$rdir/upper/usr/lib/modules/$kver/updates/dkms/ornic.ko*" >/dev/null; then
		say "stock: DKMS installed no ornic module for $kver; see $rdir/build.log"
		exit 1
	fi
	# The boot directory: the kernel layer's kernel and initrd (the
	# package layer's initrd if a package made one).
	printf '%s\n' "$KDIR/upper" "$rdir/upper" >"$rdir/layers"
	echo "$kver" >"$rdir/kver"
	echo "$V" >"$rdir/version"
	ln -sfn "$KDIR/upper/boot/vmlinuz-$kver" "$rdir/vmlinuz"
	if [ -f "$rdir/upper/boot/initrd.img-$kver" ]; then
		ln -sfn "$rdir/upper/boot/initrd.img-$kver" "$rdir/initrd.img"
	else
		ln -sfn "$KDIR/upper/boot/initrd.img-$kver" "$rdir/initrd.img"
	fi
	echo "kernel layer $KSTATE, package layer $LAYER_STATE" >"$rdir/prepared"
	prune
	echo "$rdir"
}

case ${1:-} in
root) shift; root "$@" ;;
# kernels: the kernel layers of both suites, as root would build them (make
# check builds them while the test kernel compiles: they wait on the
# network more than on the CPU).
kernels)
	for suite in trixie trixie-backports; do
		(kernel_for "$suite") || true
	done
	;;
# available: status 0 when the lists name a kernel for either suite.
available) (version trixie) || (version trixie-backports) ;;
*) die "usage: prepare.sh root SUITE DEB... | kernels | available" ;;
esac
