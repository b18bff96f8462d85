/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: the rings the driver shares with the device, as arithmetic
 * (spec: index.rst "Conventions", queues.rst, doorbells.rst).
 *
 * This header's one job: free-running ring indices and phase bits, ring
 * depths, doorbell values, and the memory descriptor of a ring in
 * contiguous DMA memory.  Nothing here touches hardware or allocates
 * (ornic_ring.c; KUnit: ornic_ring_kunit.c).
 */
#ifndef ORNIC_RING_H
#define ORNIC_RING_H

#include <linux/types.h>

#include "ornic/ornic_hw.h"

/* Slot of free-running index @idx in a ring of 2^@log_depth entries. */
static inline u32 ornic_ring_slot(u32 idx, unsigned int log_depth)
{
	return idx & ((1U << log_depth) - 1);
}

/* Phase bit the device writes for entry index @idx: 1 on the first pass. */
static inline u8 ornic_ring_phase(u32 idx, unsigned int log_depth)
{
	return ((idx >> log_depth) & 1) ^ 1;
}

/* Entries between consumer @cons and producer @prod (free-running). */
static inline u32 ornic_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* Free entries for a producer in a ring of 2^@log_depth entries. */
static inline u32 ornic_ring_space(u32 prod, u32 cons, unsigned int log_depth)
{
	return (1U << log_depth) - ornic_ring_used(prod, cons);
}

/*
 * Whether the device-written entry at index @idx, whose owner/flags byte is
 * @owner, belongs to software (its phase bit equals the expected phase).
 */
static inline bool ornic_ring_owned(u8 owner, u32 idx, unsigned int log_depth)
{
	return (owner & 1) == ornic_ring_phase(idx, log_depth);
}

/* The log2 depth of a ring of at least @entries (and 2) entries. */
unsigned int ornic_log2_depth(u32 entries);

static inline u64 ornic_db_value(u32 qn, u64 flags, u32 index)
{
	return ORNIC_DB_VALUE(qn, flags, index);
}

/* A ring of @size bytes at @dma_addr, in pages of 2^@page_shift bytes. */
void ornic_mem_desc_contig(struct ornic_mem_desc *desc, u64 dma_addr,
			   size_t size, unsigned int page_shift);

#endif /* ORNIC_RING_H */
