#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# demo-ib.sh: the guest half of `make demo LINK_LAYER=ib`.  Two ornic
# InfiniBand HCAs linked back to back by their device models: OpenSM on the
# first brings both ports ACTIVE, then ibstat, ibv_devinfo, ibnetdiscover,
# and ib_write_bw and ib_send_lat addressed by LID.  MODDIR and PROVIDER_DIR
# come from the environment.
set -uo pipefail
SUITE=demo
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
. /src/qemu-tests/suites/ib-lib.sh

banner() { printf '\n==== %s ====\n' "$*"; }

ib_setup 2 || exit 1
read -r -a ibs <<<"$(ornic_ibdevs | tr '\n' ' ')"
A0=${ibs[0]} A1=${ibs[1]}
banner "ports before a subnet manager"
ibstatus
banner "opensm on $A0"
start_sm demo "$A0" 10
if ! t=$(wait_secs 90 both_active "$A0" "$A1"); then
	fail opensm "ports not ACTIVE: $(port_file "$A0" state) / $(port_file "$A1" state)"
	exit 1
fi
echo "both ports ACTIVE after $t s"
banner "ibstat $A1"
ibstat "$A1"
banner "ibv_devinfo -d $A1"
ibv_devinfo -d "$A1"
banner "ibnetdiscover"
ibnetdiscover -C "$A0"
for t in "write_bw ib_write_bw -s 65536 -n 500 --report_gbits" "send_lat ib_send_lat -s 2 -n 500"; do
	# shellcheck disable=SC2086 # word splitting of the tool's arguments is wanted
	set -- $t
	banner "${*:2} (by LID: $A0 LID $(lid_of "$A0") -> $A1 LID $(lid_of "$A1"))"
	name=$1 tool=$2
	shift 2
	if ib_pair "$name" "$tool" -d "$A1" "$@" -- -d "$A0" "$@"; then
		cat "/out/$name.client.log"
	else
		tail -n 5 "/out/$name.client.log" "/out/$name.server.log"
		fail "$name" "$tool failed"
	fi
done
stop_sm demo
