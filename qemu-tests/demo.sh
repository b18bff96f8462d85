#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# `make demo`: build what is needed (testbed, test kernel, device model
# without sanitizers, driver, provider), boot a guest with two linked ornic
# NICs and show ibv_devinfo, rdma link, ib_write_bw and ib_send_lat on ornic
# and on rxe in the same guest (suites/demo.sh).  Runs on the host; the
# work happens inside the testbed (demo-testbed.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=qemu-tests/testbed/lib.sh
. "$here/testbed/lib.sh"
"$here/testbed/mkroot.sh"
"$here/kernel/build.sh" base >/dev/null # prints its build dir
exec "$here/testbed/enter.sh" /src/qemu-tests/demo-testbed.sh
