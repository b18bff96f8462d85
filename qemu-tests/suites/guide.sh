#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# guide.sh a|b: one of the two VMs of the user guide's "two VMs on one host"
# (check-guide.sh boots a through libvirt, b with the QEMU recipe).  Each
# runs the guide's guest recipes as written: guest-setup, then a serves
# (guest-server) and b, once a's servers listen, runs guest-client.  The
# guests meet in /share: a-ready (a's servers listen), a-failed.  MODDIR,
# PROVIDER_DIR and TOOL_TIMEOUT come from the host.
set -uo pipefail
ROLE=${1:?usage: guide.sh a|b}
SUITE=guide
. /src/qemu-tests/suites/lib.sh
. /src/qemu-tests/suites/driver-lib.sh
T=${TOOL_TIMEOUT:-240}
GUIDE=/src/Documentation/user-guide.rst
LIBDIR=/usr/lib/x86_64-linux-gnu/libibverbs

# recipe NAME: the guide's recipe NAME as a script in /out.
recipe() {
	/src/qemu-tests/tools/guide-recipe.py "$GUIDE" "$1" >"/out/recipe-$1.sh" && echo "/out/recipe-$1.sh"
}

give_up() { # give_up TEST WHY: a FAIL line, and tell the other guest
	fail "$ROLE/$1" "$2"
	[ "$ROLE" = a ] && touch /share/a-failed
	exit 0
}

mkdir -p /share
mount -t 9p -o trans=virtio,version=9p2000.L,cache=none share /share || {
	fail "$ROLE/setup" "cannot mount the shared directory"
	exit 0
}

# The module and the provider as the build made them (the packages are the
# deb and stock groups' business).
install_modules "${MODDIR:?}" || give_up setup "cannot install the module"
if ! cp "${PROVIDER_DIR:?}/libornic-rdmav34.so" "$LIBDIR/" || ! cp "$PROVIDER_DIR/ornic.driver" /etc/libibverbs.d/; then
	give_up setup "cannot install the provider"
fi
if ! modprobe ornic || ! wait_for have_devs 1; then
	give_up setup "no ornic NIC: $(dmesg | grep -i ornic | tail -n 3 | tr '\n' ' ')"
fi

case $ROLE in
a) ADDR=192.168.80.1 ;;
b) ADDR=192.168.80.2 ;;
*) give_up setup "role $ROLE" ;;
esac
setup=$(recipe guest-setup) || give_up setup "no guest-setup recipe"
GID=""
# shellcheck disable=SC1090 # the guide's recipe: sets nd and GID
. "$setup" >/out/guest-setup.log 2>&1
[ -n "$GID" ] || give_up setup "no GID for $ADDR: $(tail -n 3 /out/guest-setup.log | tr '\n' ' ')"
if ! grep -q 'state ACTIVE' /out/guest-setup.log || ! grep -q PORT_ACTIVE /out/guest-setup.log; then
	give_up setup "port not active: $(grep -E 'state' /out/guest-setup.log | head -n 3 | tr '\n' ' ')"
fi
pass "$ROLE/setup" "ornic_0 on ${nd:-?}, $ADDR, GID index $GID, port ACTIVE (rdma link, ibv_devinfo)"

# cm_listens PORT: an rdma_cm id listens on PORT (rping's default is 7174).
cm_listens() {
	local ids
	ids=$(rdma resource show cm_id 2>/dev/null)
	[[ $ids == *"state LISTEN"*":$1 "* ]]
}

if [ "$ROLE" = a ]; then
	server=$(recipe guest-server) || give_up server "no guest-server recipe"
	GID=$GID timeout "$T" bash -e "$server" >/out/guest-server.log 2>&1 &
	spid=$!
	for _ in $(seq $((T * 2))); do
		ss -Hltn 'sport = :18515' | grep -q . && cm_listens 7174 && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.5
	done
	touch /share/a-ready
	rc=0
	wait "$spid" || rc=$?
	[ "$rc" = 0 ] || give_up server "exit $rc: $(tail -n 4 /out/guest-server.log | tr '\n' ' ')"
	pass a/server "ibv_rc_pingpong -c and rping -V served VM B: $(grep -m1 'Mbit/sec' /out/guest-server.log)"
else
	for _ in $(seq $((T * 2))); do
		[ -e /share/a-ready ] && break
		[ -e /share/a-failed ] && give_up client "VM A failed first"
		sleep 0.5
	done
	[ -e /share/a-ready ] || give_up client "VM A's servers did not listen in ${T}s"
	client=$(recipe guest-client) || give_up client "no guest-client recipe"
	rc=0
	GID=$GID timeout "$T" bash -e "$client" >/out/guest-client.log 2>&1 || rc=$?
	[ "$rc" = 0 ] || give_up client "exit $rc: $(tail -n 4 /out/guest-client.log | tr '\n' ' ')"
	pass b/client "ibv_rc_pingpong -c and rping -V against VM A: $(grep -m1 'Mbit/sec' /out/guest-client.log)"
fi
