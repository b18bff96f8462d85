// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: queue memory and doorbells.
 *
 * Rings of user queues live in anonymous, page-aligned memory that the
 * kernel pins for the device (spec: queues.rst).  They are excluded from
 * fork() so that a child's copy-on-write never moves pages the device is
 * writing into.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "ornic.h"

uint32_t ornic_log2_depth(uint32_t entries)
{
	uint32_t log = ORNIC_MIN_LOG_DEPTH;

	while (log < 31 && (1U << log) < entries)
		log++;
	return log;
}

int ornic_ring_alloc(struct ornic_ring *ring, uint32_t log_depth,
		     uint32_t entry_size)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t size = (size_t)entry_size << log_depth;
	void *buf;

	size = (size + page - 1) & ~(page - 1);
	/* Anonymous memory is zeroed: CQEs start with phase 0 (not ours). */
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return errno;
	if (ibv_dontfork_range(buf, size)) {
		munmap(buf, size);
		return ENOMEM;
	}
	ring->buf = buf;
	ring->buf_size = size;
	ring->log_depth = log_depth;
	ring->mask = (1U << log_depth) - 1;
	return 0;
}

void ornic_ring_free(struct ornic_ring *ring)
{
	if (!ring->buf)
		return;
	ibv_dofork_range(ring->buf, ring->buf_size);
	munmap(ring->buf, ring->buf_size);
	ring->buf = NULL;
}

/*
 * One 64-bit posted write (doorbells.rst).  Ring contents must already be
 * visible: callers issue udma_to_device_barrier() first.
 */
void ornic_ring_doorbell(struct ornic_context *ctx, uint32_t offset,
			 uint32_t qn, uint64_t flags, uint32_t index)
{
	mmio_write64_le((uint8_t *)ctx->db + offset,
			htole64(ORNIC_DB_VALUE(qn, flags, index)));
}
