#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make lint`: checkpatch --strict on the kernel C code (from the testbed's
# kernel source), clang-format on the model's C++, shellcheck on scripts;
# the documentation built by Sphinx with no warning (make docs), the
# README's commands and links, the man pages rendered by man --warnings,
# and the release notes naming debian/changelog's version.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || exec "$here/testbed/enter.sh" /src/qemu-tests/lint.sh "$@"
cd "$ORNIC_SRC" || exit 1
ksrc=$("$here/kernel/source.sh") || exit 1
bad=0
# A developer's `make lint` also checks files not yet added to git; `make
# check` (LINT_TRACKED=1) checks what is committed.
lint_files=(-co --exclude-standard)
[ "${LINT_TRACKED:-}" = 1 ] && lint_files=()
# One "PASS|FAIL: lint/<tool>" line per tool (collected by `make check`).
verdict() { # verdict TOOL STATUS DETAILS
	if [ "$2" = 0 ]; then echo "PASS: lint/$1 $3"; else echo "FAIL: lint/$1 $3"; bad=1; fi
}

mapfile -t kfiles < <(git ls-files "${lint_files[@]}" -- 'drivers/*.[ch]' \
	'qemu-tests/selftest/*.[ch]' 'qemu-tests/kverbs/*.[ch]' 'include/*.h')
if [ ${#kfiles[@]} -gt 0 ]; then
	rc=0
	"$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f "${kfiles[@]}" || rc=$?
	verdict checkpatch $rc "checkpatch --strict, ${#kfiles[@]} files"
fi

# The driver's layering: ornic_main.c is the top (probe and remove) and no
# other file calls a function it defines (lower layers report upward through
# handlers it registers); the liveness layer at the bottom includes no
# driver header but its own.
drv=drivers/infiniband/hw/ornic
layering_bad=()
mapfile -t main_funcs < <(grep -v '^static' "$drv/ornic_main.c" |
	sed -n -E 's/^[a-z][a-z0-9_ ]*[ *](ornic_[a-z0-9_]+)\(.*/\1/p' | sort -u)
for f in "$drv"/*.[ch]; do
	[ "$f" = "$drv/ornic_main.c" ] && continue
	for fn in "${main_funcs[@]}"; do
		grep -q -w -- "$fn" "$f" && layering_bad+=("$(basename "$f") names $fn of ornic_main.c")
	done
done
while IFS= read -r inc; do
	case $inc in
	'"ornic_liveness.h"' | '"ornic/ornic_hw.h"') ;;
	*) layering_bad+=("ornic_liveness.c includes $inc") ;;
	esac
done < <(sed -n -E 's/^#include ("[^"]+").*/\1/p' "$drv/ornic_liveness.c")
if [ ${#layering_bad[@]} = 0 ]; then
	verdict driver-layering 0 "no driver file calls into ornic_main.c (${#main_funcs[@]} non-static functions there); ornic_liveness.c stands alone"
else
	verdict driver-layering 1 "$(printf '%s; ' "${layering_bad[@]}")"
fi

mapfile -t cxx < <(git ls-files "${lint_files[@]}" -- 'device-model/*.cpp' 'device-model/*.hpp' \
	'device-model/*.cc' 'device-model/*.h')
if [ ${#cxx[@]} -gt 0 ]; then
	rc=0
	clang-format --dry-run -Werror --style=file "${cxx[@]}" || rc=$?
	verdict clang-format $rc "${#cxx[@]} files"
fi

mapfile -t sh < <(git ls-files "${lint_files[@]}" -- '*.sh' '.ci/run' 'qemu-tests/guest/initramfs-init' \
	'debian/model/ornic-model-service')
rc=0
shellcheck -x -P SCRIPTDIR -e SC1091 "${sh[@]}" || rc=$?
verdict shellcheck $rc "${#sh[@]} files"

# The documentation, as `make docs` builds it (into build/check/docs when
# `make check` runs): a warning or an unresolved reference fails.
docs_out=${DOCS_OUT:-$ORNIC_SRC/build/docs}
mkdir -p "$(dirname "$docs_out")"
rc=0
"$here/docs.sh" "$docs_out" >"$docs_out.log" 2>&1 || rc=$?
if [ $rc = 0 ]; then
	verdict docs 0 "Sphinx -W -n: $(find "$docs_out/html" -name '*.html' | wc -l) pages, no warning, every reference resolved"
else
	cat "$docs_out.log"
	verdict docs 1 "$(grep -c -E 'WARNING|ERROR' "$docs_out.log") warnings: $(grep -m 3 -E 'WARNING|ERROR' "$docs_out.log" | tr '\n' ' ')"
fi

# The README: its commands are Makefile targets `make help` lists, its
# links resolve, no dated runs or commit hashes, at most 250 lines.
rc=0
out=$(python3 "$here/tools/readme-check.py" "$ORNIC_SRC" 2>&1) || rc=$?
echo "$out"
verdict readme $rc "$(echo "$out" | tail -n 1)"

# The man pages, as lintian renders them: any warning of man/groff fails.
mapfile -t man < <(git ls-files "${lint_files[@]}" -- 'Documentation/man/*.[1-9]')
rc=0
warned=""
for page in "${man[@]}"; do
	w=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
	[ -z "$w" ] || { echo "$page: $w"; warned+="$page: $(echo "$w" | head -n 1) "; rc=1; }
done
[ ${#man[@]} -gt 0 ] || { warned="no man pages in Documentation/man"; rc=1; }
verdict man $rc "${warned:-man --warnings: ${man[*]##*/} render without a warning}"

# One version: debian/changelog's (the model, the module, the packages and
# the documentation read it there) heads the release notes.
version=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
notes=$(awk 'prev ~ /^[0-9]/ && /^=+$/ { print prev; exit } { prev = $0 }' Documentation/changelog.rst)
if [ -n "$version" ] && [ "$notes" = "$version" ]; then
	verdict version 0 "debian/changelog $version = newest release in Documentation/changelog.rst"
else
	verdict version 1 "debian/changelog '$version', newest release notes '$notes'"
fi
exit $bad
