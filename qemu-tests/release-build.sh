# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# release_build DIR [TARGET...]: what a guest with ornic NICs needs, built
# for speed rather than for finding bugs, into DIR (inside the testbed): the
# device model without sanitizers (DIR/device-model/ornic-model, and any
# further targets of the model's build, e.g. ornic-bench), the ornic kernel
# module against the base test kernel (DIR/modules) and the rdma-core
# provider (DIR/provider).  Used by `make demo` and `make bench`; `make
# check` builds the sanitized model instead.  Sourced after testbed/lib.sh.
# shellcheck shell=bash

release_build() {
	local B=$1 kdir targets
	shift
	targets="ornic-model $*"
	mkdir -p "$B"
	kdir=$("$ORNIC_SRC/qemu-tests/kernel/kernel-dir.sh" base)
	# The model without sanitizers: these runs show speed, make check shows bugs.
	run_logged "$B/model.log" "building the device model (release)" bash -c "
		CCACHE_DIR=$ORNIC_CACHE/ccache cmake -S $ORNIC_SRC/device-model -B $B/device-model -G Ninja \
			-DCMAKE_BUILD_TYPE=Release -DORNIC_SANITIZE=OFF -DORNIC_TESTS=OFF \
			-DCMAKE_CXX_COMPILER_LAUNCHER=ccache &&
		ninja -C $B/device-model $targets"
	run_logged "$B/modules.log" "building the ornic kernel module" \
		make -C "$kdir" M="$ORNIC_SRC" MO="$B/modules" modules
	run_logged "$B/provider.log" "building the rdma-core provider" \
		"$ORNIC_SRC/userspace-provider/build.sh" "$B/provider"
}
