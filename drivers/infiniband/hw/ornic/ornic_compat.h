/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: every kernel-version difference the driver meets, in one place.
 * Supported: Linux 6.12 (Debian trixie) to 7.3 (trixie-backports and the
 * test kernel).  Differences are detected by feature, not version number.
 *
 * 6.12 -> 7.3 differences the QP/CQ/MR verbs meet: ib_umem_get() became
 * ib_umem_get_va(); reg_user_mr() gained a struct ib_dmah * argument;
 * resize_cq became resize_user_cq (ORNIC_RESIZE_CQ_OP); optional
 * create_user_cq (create_cq serves both); max_* device attributes became
 * u32 (assignments compile either way); umem_odp left DMA mapping to the
 * driver (ORNIC_HAVE_ODP).
 */
#ifndef ORNIC_COMPAT_H
#define ORNIC_COMPAT_H

#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

/* Typed allocation helpers (7.x); plain kzalloc() before. */
#ifndef kzalloc_obj
static inline void *ornic_kzalloc_sized(size_t size, gfp_t gfp)
{
	return kzalloc(size, gfp);
}

#define kzalloc_obj(P, GFP) ornic_kzalloc_sized(sizeof(P), GFP)
#endif

/*
 * The 7.x udata helpers (ib_copy_validate_udata_in) arrived with the
 * ib_dmah argument of reg_user_mr and the removal of ib_umem_get(): the
 * macro is the feature test for both.
 */
#ifdef ib_copy_validate_udata_in
#define ORNIC_HAVE_IB_DMAH 1

static inline struct ib_umem *ornic_umem_get(struct ib_device *ibdev,
					     u64 addr, size_t size, int access)
{
	return ib_umem_get_va(ibdev, addr, size, access);
}

/*
 * resize_cq (int cqe) became resize_user_cq (unsigned int cqe) on the same
 * 7.x line; 7.3 is the kernel this is built and tested against.
 */
#define ORNIC_RESIZE_CQ_OP		resize_user_cq
#else
#define ORNIC_RESIZE_CQ_OP		resize_cq

static inline struct ib_umem *ornic_umem_get(struct ib_device *ibdev,
					     u64 addr, size_t size, int access)
{
	return ib_umem_get(ibdev, addr, size, access);
}
#endif

/*
 * The RDMA counter ops (ornic_counters.c): on the same 7.x line the core
 * began to allocate struct rdma_counter at the driver's size (a driver
 * must declare it, or gets a zero-sized object), to call counter_init
 * unconditionally, and to pass the port to counter_bind_qp and
 * counter_unbind_qp.
 */
#ifdef ORNIC_HAVE_IB_DMAH
#define ORNIC_HAVE_COUNTER_OBJ 1
#endif

/*
 * On-demand paging (ornic_odp.c) needs the 7.x umem_odp, whose pages are
 * DMA-mapped by the driver through <linux/hmm-dma.h> (hmm_dma_map_pfn),
 * which its header includes; 6.12's umem_odp mapped them itself.  Without
 * it the device's ODP capability is not offered.  (The include guard is
 * the test: sparse 0.6.4 has no __has_include.)
 */
#include <rdma/ib_umem_odp.h>
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) && defined(LINUX_HMM_DMA_H)
#define ORNIC_HAVE_ODP 1
#endif

/*
 * Kernels built without dynamic debug (the test kernel is one) compile
 * ibdev_dbg() away.  There the module parameter "debug" (ornic_debugfs.c)
 * turns the driver's ibdev_dbg() messages on, at KERN_DEBUG, as
 * `echo 'module ornic +p' >.../dynamic_debug/control` does elsewhere.
 */
#if !defined(CONFIG_DYNAMIC_DEBUG) && !defined(DEBUG) && \
	!(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
#define ORNIC_DEBUG_PARAM 1
extern bool ornic_debug;
#define ibdev_dbg(ibdev, fmt, ...)					\
	do {								\
		if (READ_ONCE(ornic_debug))				\
			_dev_printk(KERN_DEBUG, &(ibdev)->dev, fmt,	\
				    ##__VA_ARGS__);			\
	} while (0)
#endif

#endif /* ORNIC_COMPAT_H */
