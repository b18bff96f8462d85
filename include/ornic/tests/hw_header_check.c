// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Compile check of the shared hardware header as userspace C
 * (gcc -std=gnu11 -Wall -Wextra -Werror).  The header's own static asserts
 * do the checking; this file only adds the layouts that the C side relies on
 * through arithmetic rather than struct access.
 */
#include <ornic/ornic_hw.h>

ORNIC_HW_STATIC_ASSERT(ORNIC_BAR_DOORBELL_SIZE == 1024 * 1024,
		       "doorbell BAR is 1 MiB");
ORNIC_HW_STATIC_ASSERT(ORNIC_MSIX_VECTORS * 16 <= ORNIC_MSIX_PBA_OFFSET,
		       "MSI-X table fits before the PBA");
ORNIC_HW_STATIC_ASSERT(ORNIC_CNT_COUNT <= ORNIC_DEVICE_COUNTERS_MAX,
		       "device counters fit in the response");
ORNIC_HW_STATIC_ASSERT(ORNIC_MR_KEY(1, 0x2a) == 0x12a, "MR key layout");
ORNIC_HW_STATIC_ASSERT(ORNIC_SPEC_VERSION == 0x00010000U, "VERSION layout");

/* Used by the C++ test to prove this translation unit was linked in. */
int ornic_hw_header_check_c(void)
{
	/* The WQE geometry helpers compile as C too (they are 0 here). */
	return (int)sizeof(struct ornic_send_wqe) + (int)sizeof(struct ornic_cqe) +
	       (int)(ornic_recv_wqe_blocks(ORNIC_RECV_SGES_BLOCK0) - 1) +
	       (int)(ornic_send_wqe_blocks(0, 0) - 1);
}
