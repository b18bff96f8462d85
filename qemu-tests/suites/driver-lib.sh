# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Guest-side helpers of the ornic driver suites (driver-*.sh).  Sourced after
# lib.sh, never executed.
# shellcheck shell=bash

# install_modules MODDIR: put the built modules where modprobe finds them.
install_modules() {
	local mo=$1 extra
	extra=/lib/modules/$(uname -r)/extra
	mkdir -p "$extra"
	cp "$mo/drivers/infiniband/hw/ornic/ornic.ko" "$extra/" || return 1
	# Built with CONFIG_ORNIC_KUNIT_TEST=m only (check-driver.sh).
	[ -f "$mo/drivers/infiniband/hw/ornic/ornic_kunit.ko" ] &&
		cp "$mo/drivers/infiniband/hw/ornic/ornic_kunit.ko" "$extra/"
	depmod -a
}

# ornic_netdevs: the net_devices bound to ornic PCI functions, in PCI order.
ornic_netdevs() {
	local d
	for d in /sys/bus/pci/drivers/ornic/0000:*/net/*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}

# ornic_ibdevs: the ib_devices of the ornic driver.
ornic_ibdevs() {
	local d
	for d in /sys/bus/pci/drivers/ornic/0000:*/infiniband/*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
}

# wait_for CMD...: up to 20 s for CMD to succeed.
wait_for() {
	local _
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# have_devs N: N ornic ib_devices and N netdevs are there (for wait_for).
have_devs() {
	[ "$(ornic_ibdevs | wc -l)" = "$1" ] && [ "$(ornic_netdevs | wc -l)" = "$1" ]
}

# have_ibdevs N: N ornic ib_devices are there (for wait_for).
have_ibdevs() {
	[ "$(ornic_ibdevs | wc -l)" = "$1" ]
}

# port_active IBDEV: port 1 is ACTIVE (for wait_for).  Not piped into grep -q:
# under pipefail rdma's SIGPIPE would turn a match into a failure.
port_active() { [[ $(rdma link show "$1/1" 2>/dev/null) == *"state ACTIVE"* ]]; }

# uverbs_of IBDEV: its /dev/infiniband/uverbsN.
uverbs_of() {
	local f
	for f in /sys/class/infiniband/"$1"/device/infiniband_verbs/*; do
		[ -e "$f" ] && echo "/dev/infiniband/${f##*/}"
	done
}
