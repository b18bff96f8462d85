#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# demo.sh: the guest half of `make demo`.  Two ornic NICs (linked by their
# device models) and, for comparison, two rxe devices on a veth pair, in the
# same guest: ibv_devinfo, rdma link, then ib_write_bw and ib_send_lat on
# both, side by side.  MODDIR and PROVIDER_DIR come from the environment.
set -uo pipefail
SUITE=demo
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/datapath-lib.sh

banner() { printf '\n==== %s ====\n' "$*"; }

setup_ornic || exit 1
banner "ibv_devinfo -d $CDEV"
ibv_devinfo -d "$CDEV"
ORNIC=("$CDEV" "$SDEV" "$CIP" "$SIP" "$NS")
setup_rxe || exit 1
banner "rdma link"
rdma link show

declare -A row
run_kind() { # run_kind KIND
	local k=$1 r
	if ! wait_gid "$CDEV" "$CIP" || ! wait_gid "$SDEV" "$SIP"; then
		fail "$k/gids" "no RoCE v2 GIDs"
		return
	fi
	for t in "write_bw_64k ib_write_bw -s 65536 -n 500 --report_gbits" \
		"write_bw_1m ib_write_bw -s 1048576 -n 50 --report_gbits" \
		"send_lat_2b ib_send_lat -s 2 -n 500"; do
		# shellcheck disable=SC2086 # word splitting of the tool's arguments is wanted
		set -- $t
		banner "$k: ${*:2}"
		if r=$(perf_row "$k" "$@"); then
			cat "/out/$k-$1.client.log"
			row[$k/$1]=$r
		else
			tail -n 5 "/out/$k-$1.client.log"
			row[$k/$1]="failed"
		fi
	done
}
CDEV=${ORNIC[0]} SDEV=${ORNIC[1]} CIP=${ORNIC[2]} SIP=${ORNIC[3]} NS=${ORNIC[4]}
run_kind ornic
CDEV=rxe0 SDEV=rxe1 CIP=10.0.1.1 SIP=10.0.1.2 NS=rxe
run_kind rxe

banner "ornic next to rxe (same guest, same tools; TCG: compare ratios, not absolutes)"
printf '%-14s %-22s %-22s %s\n' test ornic rxe ornic/rxe
for t in write_bw_64k write_bw_1m send_lat_2b; do
	o=${row[ornic/$t]:-failed} r=${row[rxe/$t]:-failed}
	case $t in
	*_bw*) col=4 unit="Gb/s" ;;
	*) col=5 unit="us typ" ;;
	esac
	ov=$(awk -v c=$col '{ print $c }' <<<"$o") rv=$(awk -v c=$col '{ print $c }' <<<"$r")
	printf '%-14s %-22s %-22s %s\n' "$t" "$ov $unit" "$rv $unit" \
		"$(awk -v a="$ov" -v b="$rv" 'BEGIN { if (b + 0 > 0 && a + 0 > 0) printf "%.2f", a / b; else print "-" }')"
done | tee /out/demo-table.txt
