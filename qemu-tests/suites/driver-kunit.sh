#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# driver-kunit.sh MODDIR: load the ornic KUnit module (ornic_kunit.ko, which
# pulls in ornic.ko for the symbols it tests), parse the KTAP report from the
# kernel log and record one result per test case.
set -uo pipefail
mo=$1
SUITE=driver
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh

if ! install_modules "$mo"; then
	fail kunit/install "cannot install the modules from $mo"
	exit 1
fi
dmesg -C
if ! modprobe ornic_kunit; then
	fail kunit/load "modprobe ornic_kunit failed"
	exit 1
fi
# Suites run synchronously at load; the log holds the whole report now.
dmesg | sed -e 's/^\[[ 0-9.]*\] //' >/out/kunit-ktap.txt
modprobe -r ornic_kunit ornic

n=0
suite=""
while IFS= read -r line; do
	if [[ $line =~ ^[[:space:]]*#\ Subtest:\ ([A-Za-z0-9_]+)$ ]]; then
		suite=${BASH_REMATCH[1]}
	elif [[ $line =~ ^[[:space:]]{4,}(not\ )?ok\ [0-9]+\ ([A-Za-z0-9_]+)(\ #\ SKIP\ ?(.*))?$ ]]; then
		name="kunit/$suite/${BASH_REMATCH[2]}"
		n=$((n + 1))
		if [ -n "${BASH_REMATCH[3]}" ]; then
			skip "$name" "${BASH_REMATCH[4]}"
		elif [ -z "${BASH_REMATCH[1]}" ]; then
			pass "$name"
		else
			fail "$name" "see kunit-ktap.txt"
		fi
	fi
done </out/kunit-ktap.txt
if [ "$n" = 0 ]; then
	fail kunit/report "no KTAP test cases in the kernel log"
	exit 1
fi
grep -q '^FAIL' "$RESULTS" && exit 1
exit 0
