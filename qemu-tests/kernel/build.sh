#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# build.sh [FLAVOUR]: build the guest test kernel inside the testbed from
# Debian's linux-source-7.3 and the fragments in this directory.  FLAVOUR is
# "base" (default) or "kasan".  The result is cached under
# $ORNIC_CACHE/kernel/<flavour>-<hash>, keyed by source version and config
# fragments; a cached build returns at once.  Prints the build directory.
set -euo pipefail
# shellcheck source=qemu-tests/testbed/lib.sh
. "$(dirname "$0")/../testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || exec "$ORNIC_SRC/qemu-tests/testbed/enter.sh" /src/qemu-tests/kernel/build.sh "$@"

flavour=${1:-base}
kdir=$ORNIC_SRC/qemu-tests/kernel
case $flavour in
base) frags=("$kdir/base.config") ;;
kasan) frags=("$kdir/base.config" "$kdir/kasan.config") ;;
*) die "unknown kernel flavour '$flavour' (base, kasan)" ;;
esac

out=$("$kdir/kernel-dir.sh" "$flavour")
[ -f "$out/.ornic-built" ] && { echo "$out"; exit 0; }

srcver=$(dpkg-query -W -f='${Version}' linux-source-7.3)
src=$("$kdir/source.sh")

rm -rf "$out"
mkdir -p "$out"
log=$ORNIC_LOGDIR/kernel-$flavour.log
jobs=${JOBS:-$(( $(nproc) + 1 ))}
estimate_file=$ORNIC_CACHE/kernel/objects-$flavour
cc_progress() {
	local n total
	n=$(grep -c -E '^ +CC ' "$1" || true)
	total=$(cat "$estimate_file" 2>/dev/null || echo 2600)
	echo "$n of ~$total objects compiled ($(( n * 100 / total ))%)"
}
config() {
	make -C "$src" O="$out" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}"
	make -C "$src" O="$out" olddefconfig
}
run_logged "$ORNIC_LOGDIR/kernel-$flavour-config.log" "configuring the $flavour test kernel" config

# Every option a fragment asks for must survive olddefconfig: a silently
# dropped option (a missing dependency) would make tests meaningless.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=n) opt=${line%%=*}; grep -q "^$opt=" "$out/.config" && { say "config: $opt is set, wanted off"; bad=1; } ;;
	CONFIG_*) grep -qx "$line" "$out/.config" || { say "config: wanted $line, got: $(grep "^${line%%=*}=" "$out/.config" || echo unset)"; bad=1; } ;;
	esac
done < <(cat "${frags[@]}" | sed -e 's/#.*//' -e '/^$/d')
[ $bad = 0 ] || die "kernel config fragments were not applied as written (see above)"

PROGRESS_HINT=cc_progress run_logged "$log" "building the $flavour test kernel ($srcver, make -j$jobs; ~10 min the first time)" \
	make -C "$src" O="$out" -j"$jobs" bzImage modules
run_logged "$ORNIC_LOGDIR/kernel-$flavour-install.log" "installing modules" \
	make -C "$src" O="$out" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install
grep -c -E '^ +CC ' "$log" >"$estimate_file" || true
make -s -C "$src" O="$out" kernelrelease >"$out/.ornic-release"
touch "$out/.ornic-built"
echo "$out"
