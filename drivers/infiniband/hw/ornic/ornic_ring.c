// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: ring arithmetic (see ornic_ring.h).  What the KUnit suite calls
 * is exported to it with EXPORT_SYMBOL_IF_KUNIT() (only with KUnit).
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "ornic_ring.h"

unsigned int ornic_log2_depth(u32 entries)
{
	if (entries < 2)
		return 1;
	return order_base_2(entries);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_log2_depth);

void ornic_mem_desc_contig(struct ornic_mem_desc *desc, u64 dma_addr,
			   size_t size, unsigned int page_shift)
{
	memset(desc, 0, sizeof(*desc));
	/* Driver rings come from dma_alloc_coherent(): page aligned. */
	desc->addr = cpu_to_le64(dma_addr);
	desc->num_pages = cpu_to_le32(DIV_ROUND_UP_ULL((u64)size,
						       1ULL << page_shift));
	desc->page_shift = page_shift;
	desc->mode = ORNIC_MEM_MODE_CONTIG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mem_desc_contig);
