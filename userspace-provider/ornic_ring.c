// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: queue memory, doorbells and the device clock.
 *
 * Rings of user queues live in page-aligned memory that the kernel pins for
 * the device (spec: queues.rst).  By default that is anonymous memory of our
 * own, excluded from fork() so that a child's copy-on-write never moves
 * pages the device is writing into.  A queue created through a parent
 * domain with an allocator takes its ring from that allocator instead
 * (unless it answers IBV_ALLOCATOR_USE_DEFAULT); that memory is the
 * application's, so its fork policy is the application's too.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "ornic.h"

uint32_t ornic_log2_depth(uint32_t entries)
{
	/* ilog32(n - 1) is ceil(log2(n)) for n >= 1; clamped to 1..31. */
	uint32_t log = entries > 1 ? ilog32(entries - 1) : 0;

	if (log < ORNIC_MIN_LOG_DEPTH)
		return ORNIC_MIN_LOG_DEPTH;
	return min_t(uint32_t, log, 31);
}

/*
 * The application's allocator: 0 with ring->buf set, ENOENT when it wants
 * the default allocation, another errno when it failed.
 */
static int ornic_ring_alloc_custom(struct ornic_ring *ring,
				   struct ornic_pd *pdom, size_t size,
				   size_t page)
{
	void *buf;

	buf = pdom->alloc(&pdom->ibvpd, pdom->pd_context, size, page,
			  ring->resource_type);
	if (buf == IBV_ALLOCATOR_USE_DEFAULT)
		return ENOENT;
	if (!buf)
		return ENOMEM;
	/* The kernel pins rings from their first page (queues.rst). */
	if ((uintptr_t)buf & (page - 1)) {
		verbs_err(verbs_get_ctx(pdom->ibvpd.context),
			  "ornic: allocator returned %p, not aligned to %zu\n",
			  buf, page);
		pdom->free(&pdom->ibvpd, pdom->pd_context, buf,
			   ring->resource_type);
		return EINVAL;
	}
	/* CQEs start with phase 0 (not ours); WQE blocks with zeros. */
	memset(buf, 0, size);
	ring->buf = buf;
	ring->custom = pdom;
	return 0;
}

int ornic_ring_alloc(struct ornic_ring *ring, struct ibv_pd *pd,
		     uint64_t resource_type, uint32_t log_depth,
		     uint32_t entry_size, uint32_t tail_bytes)
{
	struct ornic_pd *pdom = ornic_parent_domain(pd);
	size_t page = sysconf(_SC_PAGESIZE);
	size_t size = ((size_t)entry_size << log_depth) + tail_bytes;
	void *buf;
	int err;

	size = align(size, page);
	ring->buf_size = size;
	ring->log_depth = log_depth;
	ring->mask = (1U << log_depth) - 1;
	ring->resource_type = resource_type;
	ring->custom = NULL;
	if (pdom && pdom->alloc && pdom->free) {
		err = ornic_ring_alloc_custom(ring, pdom, size, page);
		if (err != ENOENT)
			return err;
	}

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
	return 0;
}

void ornic_ring_free(struct ornic_ring *ring)
{
	struct ornic_pd *pdom = ring->custom;

	if (!ring->buf)
		return;
	if (pdom) {
		pdom->free(&pdom->ibvpd, pdom->pd_context, ring->buf,
			   ring->resource_type);
	} else {
		ibv_dofork_range(ring->buf, ring->buf_size);
		munmap(ring->buf, ring->buf_size);
	}
	ring->buf = NULL;
	ring->custom = NULL;
}

/*
 * Blocks up to wq->pi are ready; the caller holds wq->lock.  With a
 * doorbell record (doorbells.rst, "Doorbell records") the producer index
 * goes into the record and the MMIO doorbell rings only when the device set
 * kick.  The full fence orders the record store before the kick load: the
 * device sets kick before its last read of the record, so either we see
 * kick or it sees our index.  No system call either way.
 */
void ornic_wq_notify(struct ornic_context *ctx, struct ornic_wq *wq,
		     uint32_t offset, uint32_t qn)
{
	udma_to_device_barrier();
	if (wq->rec) {
		*(volatile __le32 *)&wq->rec->producer = htole32(wq->pi);
		atomic_thread_fence(memory_order_seq_cst);
		if (le32toh(*(volatile __le32 *)&wq->rec->kick) !=
		    ORNIC_DB_RECORD_KICK)
			return;
	}
	ornic_ring_doorbell(ctx, offset, qn, 0, wq->pi);
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

/*
 * The device clock (doorbells.rst, "Device clock"), read through the
 * context's doorbell page: no system call, one trapped MMIO read.
 */
uint64_t ornic_read_clock(struct ornic_context *ctx)
{
	const uint8_t *page = ctx->db;
#if SIZEOF_LONG == 8
	return le64toh(mmio_read64_le(page + ORNIC_DB_CLOCK));
#else
	uint32_t hi, lo;

	do {
		hi = le32toh(mmio_read32_le(page + ORNIC_DB_CLOCK_HI));
		lo = le32toh(mmio_read32_le(page + ORNIC_DB_CLOCK_LO));
	} while (hi != le32toh(mmio_read32_le(page + ORNIC_DB_CLOCK_HI)));
	return (uint64_t)hi << 32 | lo;
#endif
}
