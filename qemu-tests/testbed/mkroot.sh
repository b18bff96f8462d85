#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Create or update the testbed root: a Debian 13 (trixie + trixie-backports)
# root made with debootstrap under $ORNIC_CACHE, holding QEMU, the toolchain,
# the kernel source and the rdma-core userland.  Idempotent: with nothing
# changed it returns in about a second and touches no network; a changed
# package list installs only what is missing.
set -euo pipefail
# shellcheck source=qemu-tests/testbed/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || die "the testbed needs root (debootstrap, chroot, namespaces)"

PKGLIST=$ORNIC_SRC/qemu-tests/testbed/packages.txt
STAMP_BOOT=$ORNIC_ROOT/.ornic-bootstrapped
STAMP_PKGS=$ORNIC_ROOT/.ornic-packages

wanted_packages() { sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PKGLIST" | sort -u; }

ensure_host_tools() {
	local missing=()
	command -v debootstrap >/dev/null || missing+=(debootstrap)
	command -v unshare >/dev/null || missing+=(util-linux)
	[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
	[ ${#missing[@]} -eq 0 ] && return 0
	run_logged "$ORNIC_LOGDIR/host-apt.log" "installing host tools: ${missing[*]}" \
		bash -c "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}"
}

bootstrap() {
	local mirror security tmp=$ORNIC_ROOT.new
	mirror=$(host_mirror) || die "no Debian mirror found in the host's apt sources"
	security=$(host_mirror security || true)
	say "creating the testbed root in $ORNIC_ROOT from $mirror (first time only, ~1 min)"
	rm -rf "$tmp"
	run_logged "$ORNIC_LOGDIR/debootstrap.log" "debootstrap trixie" \
		debootstrap --variant=minbase --include=ca-certificates trixie "$tmp" "$mirror"
	{
		echo "deb $mirror trixie main"
		echo "deb $mirror trixie-updates main"
		echo "deb $mirror trixie-backports main"
		[ -n "$security" ] && echo "deb $security trixie-security main"
		echo "deb-src $mirror trixie main"
	} >"$tmp/etc/apt/sources.list"
	write_dpkg_filter "$tmp"
	echo 'APT::Install-Recommends "false";' >"$tmp/etc/apt/apt.conf.d/90ornic-norecommends"
	touch "$tmp/.ornic-bootstrapped"
	rm -rf "$ORNIC_ROOT"
	mv "$tmp" "$ORNIC_ROOT"
	rm -f "$STAMP_PKGS"
}

# Guests and builds never need docs or man pages; keep the root small.  One
# exception: rdma-core's own test suite (pyverbs) ships under
# /usr/share/doc/rdma-core/tests.  Rewritten on every run, so a root made
# before an exception was added gets it too.
write_dpkg_filter() {
	local want
	want=$(cat <<'EOT'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/rdma-core
path-include=/usr/share/doc/rdma-core/tests
path-include=/usr/share/doc/rdma-core/tests/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
EOT
)
	[ "$(cat "$1/etc/dpkg/dpkg.cfg.d/ornic-nodoc" 2>/dev/null)" = "$want" ] ||
		echo "$want" >"$1/etc/dpkg/dpkg.cfg.d/ornic-nodoc"
}

# A package installed while its files were filtered out keeps missing them:
# reinstall those that the filter now lets through.
reinstall_unfiltered() {
	[ -f "$STAMP_PKGS" ] && grep -qx python3-pyverbs "$STAMP_PKGS" || return 0
	[ -e "$ORNIC_ROOT/usr/share/doc/rdma-core/tests/run_tests.py.gz" ] ||
		[ -e "$ORNIC_ROOT/usr/share/doc/rdma-core/tests/run_tests.py" ] && return 0
	run_logged "$ORNIC_LOGDIR/apt.log" "reinstalling python3-pyverbs (its test suite)" \
		"$ORNIC_SRC/qemu-tests/testbed/enter.sh" --no-src bash -c \
		"apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --reinstall -t trixie-backports python3-pyverbs && apt-get clean"
}

# The stamp is the last list found complete: a fast path.  Otherwise dpkg
# says what is missing, so checkouts whose lists differ (branches, older
# commits) share one root without reinstalling each other's packages or
# reaching the network when nothing of theirs is missing.
install_packages() {
	local want have missing
	want=$(wanted_packages)
	if [ -f "$STAMP_PKGS" ] && [ "$want" = "$(cat "$STAMP_PKGS")" ]; then
		return 0
	fi
	# What dpkg has installed, not what the stamp says: checkouts with
	# different lists share one root, and a package another list already
	# brought in needs no network.
	have=$(dpkg-query --admindir="$ORNIC_ROOT/var/lib/dpkg" -W \
		-f='${Package} ${db:Status-Status}\n' 2>/dev/null | awk '$2 == "installed" { print $1 }' | sort -u)
	missing=$(comm -23 <(echo "$want") <(echo "$have") | tr '\n' ' ')
	if [ -z "${missing// /}" ]; then
		echo "$want" >"$STAMP_PKGS"
		return 0
	fi
	say "installing into the testbed: $missing"
	cp /etc/resolv.conf "$ORNIC_ROOT/etc/resolv.conf" 2>/dev/null || true
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	run_logged "$ORNIC_LOGDIR/apt.log" "apt-get install (${missing:0:60}...)" \
		"$ORNIC_SRC/qemu-tests/testbed/enter.sh" --no-src bash -c \
		"apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y -t trixie-backports $missing && apt-get clean"
	echo "$want" >"$STAMP_PKGS"
}

mkdir -p "$ORNIC_CACHE" "$ORNIC_LOGDIR"
exec 9>"$ORNIC_CACHE/.testbed.lock"
flock 9
ensure_host_tools
[ -f "$STAMP_BOOT" ] || bootstrap
write_dpkg_filter "$ORNIC_ROOT"
install_packages
reinstall_unfiltered
say "testbed ready: $ORNIC_ROOT"
