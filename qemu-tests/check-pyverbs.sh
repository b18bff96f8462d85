#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# rdma-core's pyverbs suite in `make check`, run inside the testbed by
# check-testbed.sh with RESULTS, FLAVOUR and BUILD.  Uses what the model,
# driver and provider groups built; unpacks the suite python3-pyverbs ships
# (gzipped, under /usr/share/doc/rdma-core/tests), boots one guest with two
# linked ornic models and runs suites/pyverbs.sh on ornic (and with
# ORNIC_PYVERBS_KINDS="ornic rxe", as `make compare` sets it, then on rxe in
# the same guest; rxe's lines are printed next to ornic's, never judged,
# so `make check` leaves them out).  Before pyverbs the guest runs ornic's
# own verbs tests (suites/verbs-*.c, built here).
# ORNIC_PYVERBS_MODULES="qp mr" runs only some modules ("none": none),
# ORNIC_VERBS_TOOLS=none skips the verbs tools.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
[ "${ORNIC_IN_TESTBED:-}" = 1 ] || die "check-pyverbs.sh runs inside the testbed"

# shellcheck source=qemu-tests/check-guest-lib.sh
. "$here/check-guest-lib.sh"
read -r -a kinds <<<"${ORNIC_PYVERBS_KINDS:-ornic}"

# --- the suite ----------------------------------------------------------------------
root=$BUILD/pyverbs
if ! why=$(pyverbs_unpack "$root"); then
	record FAIL pyverbs/suite "$why"
	exit 0
fi
record PASS pyverbs/suite "rdma-core $(dpkg-query -W -f='${Version}' python3-pyverbs) test suite, $(find "$root/tests" -name 'test_*.py' | wc -l) modules"

guest_inputs_built pyverbs || exit 0

# ornic's own verbs tests (suites/verbs-*.c), run before pyverbs in the guest.
tools=$BUILD/tools/verbs
rm -rf "$tools"
mkdir -p "$tools"
for c in "$here"/suites/attrs.c "$here"/suites/verbs-*.c; do
	[ -f "$c" ] || continue
	name=$(basename "$c" .c)
	if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -o "$tools/$name" "$c" \
		"${VERBS_TEST_C[@]}" -libverbs -lrdmacm -lpthread 2>"$tools/$name.log"; then
		record FAIL "verbs/build-$name" "$(head -n 5 "$tools/$name.log" | tr '\n' ' ')"
	fi
done

# --- the guest ----------------------------------------------------------------------
mdir=/tmp/pyverbs-models
rm -rf "$mdir"
# Model 0's port is a bottleneck (a switch port of ORNIC_CC_LINK_MBIT) that
# marks ECN CE past 64 KiB of backlog: verbs-cc's two senders on ornic_0
# share it, with DCQCN off and on (cc/ lines).  Nothing else in this guest
# moves enough data to queue there.
cc_mbit=${ORNIC_CC_LINK_MBIT:-200}
MODEL_SHAPING[0]="--link-rate $cc_mbit --link-queue 1048576 --ecn-threshold 65536"
if ! models_start "$mdir" 2 link; then
	record FAIL pyverbs/models-start "models did not start; see $mdir"
	models_stop >/dev/null
	exit 0
fi
sleep 0.5
mapfile -t margs < <(models_vm_args)
run_vm pyverbs/vm- pyverbs "$FLAVOUR" --timeout 5400 "${margs[@]}" -- \
	env MODDIR="$MO" PROVIDER_DIR="$PDIR" MODULES="${ORNIC_PYVERBS_MODULES:-}" ORNIC_CC_LINK_MBIT="$cc_mbit" \
	TOOLS="${ORNIC_VERBS_TOOLS:-all}" \
	/src/qemu-tests/suites/pyverbs.sh "$root" "$tools" "${kinds[@]}"
if why=$(models_stop); then
	record PASS pyverbs/models-survive "both models alive after the pyverbs suite, clean exit"
else
	record FAIL pyverbs/models-survive "$why"
fi
out=$RUNS/pyverbs
cp "$mdir"/model*.log "$out/" 2>/dev/null

# --- the attributes on ornic's wire: model 0 captured both NICs' frames ------------
if [ -s "$out/attrs-ornic.wire" ]; then
	python3 "$here/tools/attrs-wire.py" attrs "$mdir/model0.pcap" "$out/attrs-ornic.wire" |
		tee -a "$RESULTS" | tee "$out/attrs-ornic-wire.txt" >/dev/null
	grep -q . "$out/attrs-ornic-wire.txt" ||
		record FAIL attrs/wire "attrs-wire.py printed nothing for $mdir/model0.pcap"
	tshark -r "$mdir/model0.pcap" -c 5000 -w "$out/model0-head.pcap" 2>/dev/null
elif [[ " ${kinds[*]} " == *" ornic "* ]] && [ -x "$tools/attrs" ] && [ "${ORNIC_VERBS_TOOLS:-all}" != none ]; then
	record FAIL attrs/wire "the attrs tool wrote no expectations ($out/attrs-ornic.wire)"
fi

# --- ornic next to rxe, module by module (printed, never judged) --------------------
cmp=$(dirname "$RESULTS")/compare.txt
counts() { # counts FILE GROUP: "passed/skipped/failed" of GROUP ("pyverbs/qp"; a prefix)
	awk -v g="$2" '
		index($2, g) != 1 { next }
		$1 == "PASS:" { a++ } $1 == "SKIP:" { s++ } $1 == "FAIL:" { f++ }
		END { printf "%d/%d/%d", a, s, f }' "$1"
}
o=$out/pyverbs-ornic.txt r=$out/pyverbs-rxe.txt
if [ -s "$o" ] && [ -s "$r" ]; then
	{
		echo "INFO: pyverbs/compare passed/skipped/failed: ornic $(counts "$o" pyverbs/), rxe $(counts "$r" pyverbs/)"
		echo "INFO: verbs/compare passed/skipped/failed: ornic $(counts "$o" verbs/), rxe $(counts "$r" verbs/)"
		echo "INFO: attrs/compare passed/skipped/failed: ornic $(counts "$o" attrs/), rxe $(counts "$r" attrs/)"
		awk '{ split($2, p, "/"); print (p[1] == "attrs" ? p[1] : p[1] "/" p[2]) }' "$o" "$r" |
			sort -u | while read -r m; do
			echo "INFO: $m/compare ornic $(counts "$o" "$m/"), rxe $(counts "$r" "$m/")"
		done
	} >>"$cmp"
	# Tests rxe passes and ornic does not, with ornic's reason.
	awk '$1 == "PASS:" { print $2 }' "$r" | sort >"$out/rxe-passed.txt"
	awk '$1 != "PASS:" { print $2 }' "$o" | sort >"$out/ornic-not-passed.txt"
	comm -12 "$out/rxe-passed.txt" "$out/ornic-not-passed.txt" | while read -r t; do
		echo "INFO: pyverbs/rxe-only $t: ornic $(grep -m1 -F " $t " "$o" | cut -c1-200)"
	done >>"$cmp"
	# Where rxe differs from ornic's expectations in the attrs group.
	grep '^FAIL: attrs/' "$r" | sed 's/^FAIL: /INFO: attrs\/rxe-differs /' | cut -c1-240 >>"$cmp"
fi
exit 0
