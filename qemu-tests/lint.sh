#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make lint`: checkpatch --strict on the kernel C code (from the testbed's
# kernel source), clang-format on the model's C++, shellcheck on scripts.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || exec "$here/testbed/enter.sh" /src/qemu-tests/lint.sh "$@"
cd "$ORNIC_SRC" || exit 1
ksrc=$("$here/kernel/source.sh") || exit 1
bad=0

mapfile -t kfiles < <(git ls-files -co --exclude-standard -- 'drivers/*.[ch]' 'kunit/*.[ch]' \
	'qemu-tests/selftest/*.[ch]' 'include/*.h')
if [ ${#kfiles[@]} -gt 0 ]; then
	if ! "$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "${kfiles[@]}"; then
		bad=1
	fi
	echo "checkpatch: ${#kfiles[@]} files"
fi

mapfile -t cxx < <(git ls-files -co --exclude-standard -- 'device-model/*.cpp' 'device-model/*.hpp' \
	'device-model/*.cc' 'device-model/*.h')
if [ ${#cxx[@]} -gt 0 ]; then
	clang-format --dry-run -Werror --style=file "${cxx[@]}" || bad=1
	echo "clang-format: ${#cxx[@]} files"
fi

mapfile -t sh < <(git ls-files -co --exclude-standard -- '*.sh' '.ci/run' 'qemu-tests/guest/initramfs-init')
shellcheck -x -P SCRIPTDIR -e SC1091 "${sh[@]}" || bad=1
echo "shellcheck: ${#sh[@]} files"

[ $bad = 0 ] && echo "lint: clean"
exit $bad
