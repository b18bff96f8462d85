// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A module whose only job is to put a WARN splat in the kernel log when it
 * is loaded, so the VM runner's self-test can prove that a splat fails a
 * guest run.  Never loaded outside that test.
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init ornic_selftest_warn_init(void)
{
	WARN(1, "ornic-selftest: deliberate warning for the runner self-test\n");
	return 0;
}

static void __exit ornic_selftest_warn_exit(void)
{
}

module_init(ornic_selftest_warn_init);
module_exit(ornic_selftest_warn_exit);
MODULE_DESCRIPTION("ornic VM runner self-test: emits one WARN on load");
MODULE_LICENSE("Dual BSD/GPL");
