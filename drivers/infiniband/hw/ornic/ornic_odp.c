// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: on-demand paging (spec: memory.rst "On-demand paging").
 *
 * An ODP MR pins nothing.  The device translates through a page table the
 * driver keeps in DMA-coherent memory (one __le64 per page, written only
 * under the umem's umem_mutex) and reads the entry of every page it
 * touches.  A missing page is reported with a PAGE_FAULT EQE; the fault is
 * resolved here, in process context on dev->odp_wq: hmm faults the pages
 * in (ib_umem_odp_map_dma_and_lock), they are DMA-mapped and their entries
 * written, and a stalled requester is resumed with ODP_RESUME.  The MMU
 * notifier clears the entries of a range, fences the device with
 * ODP_INVALIDATE (the device no longer uses the pages when it completes)
 * and only then unmaps them.
 *
 * Lifetime: fault and prefetch work finds its MR in dev->odp_mrs under
 * the xarray's lock and is queued while that lock is held; dereg erases
 * the MR first and then flushes dev->odp_wq, so no work still uses the MR
 * when it is freed.  dev->odp_wq is only torn down under dev->aeq_lock, so
 * the async EQ handler never queues on a destroyed workqueue.
 */
#include <kunit/visibility.h>
#include <linux/slab.h>

#include "ornic_res.h"

#ifdef ORNIC_HAVE_ODP
#include <linux/hmm.h>
#include <linux/hmm-dma.h>
#include <rdma/ib_umem_odp.h>

struct ornic_odp_work {
	struct work_struct work;
	struct ornic_dev *dev;
	struct ornic_mr *mr;		/* NULL: the MR is gone */
	u32 page;			/* first page, index within the MR */
	u32 npages;
	u32 qpn;
	bool write;			/* ask for writable pages */
	bool fault;			/* false: map only what is resident */
	bool resume;			/* a requester waits for ODP_RESUME */
	/* Synchronous prefetch: the caller waits here for the result. */
	struct completion *done;
	int *result;
};

static __le64 *ornic_odp_entry(struct ornic_mr *mr, u32 page)
{
	u32 p, e;

	if (!mr->table.nptr)
		return &mr->table.top[page];
	ornic_pbl_locate(page, &p, &e);
	return &mr->table.ptr[p][e];
}

/* Device page index of MR address @iova (bounds checked by the caller). */
static u32 ornic_odp_page(struct ornic_mr *mr, u64 iova)
{
	return (iova - (mr->ibmr.iova & PAGE_MASK)) >> PAGE_SHIFT;
}

/* --- invalidation ------------------------------------------------------- */

static bool ornic_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp =
		container_of(mni, struct ib_umem_odp, notifier);
	struct ornic_mr *mr = READ_ONCE(odp->private);
	struct ornic_admin_sqe sqe;
	unsigned long start, end;
	bool cleared = false;
	u32 first, last, i;
	int err;

	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(odp), range->start);
	end = min_t(u64, ib_umem_end(odp), range->end);
	if (!mr || start >= end)
		goto unmap;
	first = (start - ib_umem_start(odp)) >> PAGE_SHIFT;
	last = (end - 1 - ib_umem_start(odp)) >> PAGE_SHIFT;
	for (i = first; i <= last; i++) {
		__le64 *entry = ornic_odp_entry(mr, i);

		if (READ_ONCE(*entry)) {
			WRITE_ONCE(*entry, 0);
			cleared = true;
		}
	}
	/* The device forgets the pages before the host takes them back. */
	if (cleared && mr->odp_live) {
		wmb();	/* entries cleared before the command is seen */
		ornic_cmd_odp_invalidate(&sqe, mr->key, first, last - first + 1);
		err = ornic_admin_simple(mr->dev, &sqe, NULL);
		/* -EIO: the device is dead and was reset, it uses nothing. */
		if (err && err != -EIO)
			ibdev_warn_ratelimited(&mr->dev->ibdev,
					       "ODP_INVALIDATE of key %#x pages %u..%u failed: %d\n",
					       mr->key, first, last, err);
	}
unmap:
	ib_umem_odp_unmap_dma_pages(odp, start, end);
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops ornic_odp_mn_ops = {
	.invalidate = ornic_odp_invalidate,
};

/* --- faults ---------------------------------------------------------------- */

/* Entries of the resident pages of [page, page + npages); umem_mutex held. */
static int ornic_odp_populate(struct ornic_mr *mr, u32 page, u32 npages)
{
	struct ib_umem_odp *odp = mr->odp;
	struct pci_p2pdma_map_state p2p = {};
	struct ib_device *ibdev = odp->umem.ibdev;
	dma_addr_t dma;
	u32 i;

	lockdep_assert_held(&odp->umem_mutex);
	for (i = page; i < page + npages; i++) {
		unsigned long pfn = odp->map.pfn_list[i];
		bool fresh = !(pfn & HMM_PFN_DMA_MAPPED);

		if (!(pfn & HMM_PFN_VALID))
			continue;
		dma = hmm_dma_map_pfn(ibdev->dma_device, &odp->map, i, &p2p);
		if (ib_dma_mapping_error(ibdev, dma))
			return -EFAULT;
		if (fresh)
			odp->npages++;
		WRITE_ONCE(*ornic_odp_entry(mr, i),
			   ornic_odp_pte(dma, pfn & HMM_PFN_WRITE));
	}
	return 0;
}

static int ornic_odp_map_range(struct ornic_mr *mr, u32 page, u32 npages,
			       bool write, bool fault)
{
	struct ib_umem_odp *odp = mr->odp;
	u64 access = write && odp->umem.writable ? HMM_PFN_WRITE : 0;
	int ret;

	ret = ib_umem_odp_map_dma_and_lock(odp,
					   ib_umem_start(odp) +
					   ((u64)page << PAGE_SHIFT),
					   (u64)npages << PAGE_SHIFT, access,
					   fault);
	if (ret < 0)
		return ret;
	ret = ornic_odp_populate(mr, page, npages);
	mutex_unlock(&odp->umem_mutex);
	return ret;
}

/*
 * Pages that cannot be made resident (nothing mapped there, or a write to a
 * read-only mapping) become ERROR entries, so the access fails instead of
 * faulting for ever.  Each page is tried on its own: one bad page must not
 * fail its neighbours.
 */
static void ornic_odp_mark_errors(struct ornic_mr *mr, u32 page, u32 npages,
				  bool write)
{
	struct ib_umem_odp *odp = mr->odp;
	u32 i;

	for (i = page; i < page + npages; i++) {
		int err = ornic_odp_map_range(mr, i, 1, write, true);

		if (err != -EFAULT && err != -EPERM)
			continue;
		mutex_lock(&odp->umem_mutex);
		if (!(le64_to_cpu(READ_ONCE(*ornic_odp_entry(mr, i))) &
		      ORNIC_ODP_PTE_VALID))
			WRITE_ONCE(*ornic_odp_entry(mr, i),
				   cpu_to_le64(ORNIC_ODP_PTE_ERROR));
		mutex_unlock(&odp->umem_mutex);
		ibdev_dbg(&mr->dev->ibdev,
			  "ODP key %#x page %u cannot be made resident: %d\n",
			  mr->key, i, err);
	}
}

static int ornic_odp_resolve(struct ornic_mr *mr, u32 page, u32 npages,
			     bool write, bool fault)
{
	int err;

	if (page >= mr->odp_pages)
		return -EINVAL;
	npages = min(npages, mr->odp_pages - page);
	err = ornic_odp_map_range(mr, page, npages, write, fault);
	if ((err == -EFAULT || err == -EPERM) && fault)
		ornic_odp_mark_errors(mr, page, npages, write);
	return err < 0 ? err : 0;
}

static void ornic_odp_work_fn(struct work_struct *w)
{
	struct ornic_odp_work *work =
		container_of(w, struct ornic_odp_work, work);
	struct ornic_dev *dev = work->dev;
	struct ornic_admin_sqe sqe;
	int err = -ENOENT;

	if (work->mr)
		err = ornic_odp_resolve(work->mr, work->page, work->npages,
					work->write, work->fault);
	if (work->resume) {
		ornic_cmd_odp_resume(&sqe, work->qpn);
		if (ornic_admin_simple(dev, &sqe, NULL))
			ibdev_dbg(&dev->ibdev, "ODP_RESUME of QP %u failed\n",
				  work->qpn);
	}
	if (work->done) {
		*work->result = err;
		complete(work->done);
		return;		/* the waiter owns the work item */
	}
	kfree(work);
}

/*
 * Finds the ODP MR @key (for a prefetch: of PD @pd) and queues @work for
 * it; without an MR a requester still gets its ODP_RESUME, so it fails its
 * WQE instead of waiting for ever.  False when nothing was queued.
 */
static bool ornic_odp_queue(struct ornic_dev *dev, struct workqueue_struct *wq,
			    u32 key, struct ib_pd *pd,
			    struct ornic_odp_work *work)
{
	struct ornic_mr *mr;
	unsigned long flags;

	xa_lock_irqsave(&dev->odp_mrs, flags);
	mr = xa_load(&dev->odp_mrs, key >> ORNIC_MR_KEY_INDEX_SHIFT);
	if (mr && (mr->key != key || (pd && mr->ibmr.pd != pd)))
		mr = NULL;
	work->mr = mr;
	if (mr || work->resume)
		queue_work(wq, &work->work);
	xa_unlock_irqrestore(&dev->odp_mrs, flags);
	return mr || work->resume;
}

/* A PAGE_FAULT EQE; called from ornic_aeq_process() under dev->aeq_lock. */
void ornic_odp_page_fault_event(struct ornic_dev *dev,
				const struct ornic_eqe *eqe)
{
	struct ornic_odp_work *work;
	struct ornic_page_fault pf;

	lockdep_assert_held(&dev->aeq_lock);
	ornic_page_fault_decode(eqe, &pf);
	if (!dev->odp_wq)
		return;		/* tearing down: no ODP MR is left */
	work = kzalloc_obj(*work, GFP_ATOMIC);
	if (!work) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "no memory for the page fault of key %#x (QP %u)\n",
				     pf.key, pf.qpn);
		return;
	}
	INIT_WORK(&work->work, ornic_odp_work_fn);
	work->dev = dev;
	work->page = pf.page;
	work->npages = pf.num_pages;
	work->qpn = pf.qpn;
	work->write = true;	/* writable MRs map writable: one fault, not two */
	work->fault = true;
	work->resume = pf.requester;
	if (!ornic_odp_queue(dev, dev->odp_wq, pf.key, NULL, work))
		kfree(work);
}

/* --- registration ------------------------------------------------------ */

/* What the device cannot register on demand: implicit MRs, offset pages. */
static int ornic_odp_mr_check(struct ornic_dev *dev, u64 start, u64 length,
			      u64 virt_addr)
{
	if (!ornic_odp_supported(dev))
		return -EOPNOTSUPP;
	if (!start && length == U64_MAX) {
		ibdev_dbg(&dev->ibdev, "implicit ODP MRs are not supported\n");
		return -EOPNOTSUPP;
	}
	/* Device pages and umem pages must be the same pages. */
	if ((start ^ virt_addr) & ~PAGE_MASK) {
		ibdev_dbg(&dev->ibdev,
			  "ODP MR: iova %#llx and address %#llx differ within a page\n",
			  virt_addr, start);
		return -EINVAL;
	}
	return 0;
}

int ornic_odp_reg_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
		     int access, u32 hw_access, struct ornic_mr *mr)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	struct ornic_admin_sqe sqe;
	struct ornic_mr_xlat xlat;
	struct ib_umem_odp *odp;
	size_t npages;
	int err;

	err = ornic_odp_mr_check(dev, start, length, virt_addr);
	if (err)
		return err;
	odp = ib_umem_odp_get(&dev->ibdev, start, length, access,
			      &ornic_odp_mn_ops);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	npages = ib_umem_odp_num_pages(odp);
	if (odp->page_shift != PAGE_SHIFT ||
	    npages > le32_to_cpu(dev->attr.max_pages_per_mr)) {
		ibdev_dbg(&dev->ibdev,
			  "ODP MR of %zu pages (shift %u): device limit %u pages\n",
			  npages, odp->page_shift,
			  le32_to_cpu(dev->attr.max_pages_per_mr));
		err = -E2BIG;
		goto err_release;
	}
	mr->dev = dev;
	mr->odp_pages = npages;
	err = ornic_pbl_alloc_table(dev, &mr->table, npages, PAGE_SHIFT,
				    &xlat.mem);
	if (err)
		goto err_release;
	mr->odp = odp;
	WRITE_ONCE(odp->private, mr);

	xlat.iova = virt_addr;
	xlat.length = length;
	xlat.first_page_offset = virt_addr & ~PAGE_MASK;
	ornic_cmd_reg_mr(&sqe, &xlat, to_pdn(ibpd),
			 hw_access | ORNIC_ACCESS_ON_DEMAND,
			 (u8)atomic_inc_return(&dev->mr_variant));
	mutex_lock(&odp->umem_mutex);
	err = ornic_admin_simple(dev, &sqe, &mr->key);
	mr->odp_live = !err;
	mutex_unlock(&odp->umem_mutex);
	if (err)
		goto err_table;
	err = xa_insert_irq(&dev->odp_mrs, mr->key >> ORNIC_MR_KEY_INDEX_SHIFT,
			    mr, GFP_KERNEL);
	if (err)
		goto err_dereg;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->ibmr.length = length;
	mr->ibmr.iova = virt_addr;
	return 0;

err_dereg:
	mutex_lock(&odp->umem_mutex);
	ornic_admin_destroy(dev, ORNIC_ADMIN_DEREG_MR, mr->key);
	mr->odp_live = false;
	mutex_unlock(&odp->umem_mutex);
err_table:
	ib_umem_odp_release(odp);
	ornic_pbl_free(dev, &mr->table);
	mr->odp = NULL;
	return err;
err_release:
	ib_umem_odp_release(odp);
	return err;
}

/*
 * Teardown: no new fault work can find the MR, the work already queued is
 * done, the device lets go of the table (DEREG_MR under umem_mutex, so a
 * concurrent invalidation either fences before it or sees odp_live false),
 * then the umem (notifier and DMA mappings) and the table go.
 */
int ornic_odp_dereg_mr(struct ornic_mr *mr)
{
	struct ornic_dev *dev = mr->dev;
	struct ib_umem_odp *odp = mr->odp;
	u32 index = mr->key >> ORNIC_MR_KEY_INDEX_SHIFT;
	int err;

	xa_erase_irq(&dev->odp_mrs, index);
	flush_workqueue(dev->odp_wq);
	mutex_lock(&odp->umem_mutex);
	err = ornic_admin_destroy(dev, ORNIC_ADMIN_DEREG_MR, mr->key);
	if (!err || err == -EIO)
		mr->odp_live = false;
	mutex_unlock(&odp->umem_mutex);
	if (err && err != -EIO) {
		/* Still the device's: it stays usable, faults included. */
		if (xa_insert_irq(&dev->odp_mrs, index, mr, GFP_KERNEL))
			ibdev_warn(&dev->ibdev,
				   "ODP key %#x lost its fault handling\n",
				   mr->key);
		return err;
	}
	ib_umem_odp_release(odp);
	ornic_pbl_free(dev, &mr->table);
	return 0;
}

/* --- ibv_advise_mr ----------------------------------------------------- */

int ornic_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	bool sync = flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH;
	struct ornic_odp_work *work;
	DECLARE_COMPLETION_ONSTACK(done);
	int err = 0, result;
	struct ornic_mr *mr;
	unsigned long irqf;
	u32 i;

	if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;

	for (i = 0; i < num_sge && !err; i++) {
		const struct ib_sge *sge = &sg_list[i];

		if (!sge->length)
			continue;
		work = kzalloc_obj(*work, GFP_KERNEL);
		if (!work)
			return -ENOMEM;
		INIT_WORK(&work->work, ornic_odp_work_fn);
		work->dev = dev;
		work->write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
		work->fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
		/* Range and rights are checked here, under the MR lookup. */
		xa_lock_irqsave(&dev->odp_mrs, irqf);
		mr = xa_load(&dev->odp_mrs,
			     sge->lkey >> ORNIC_MR_KEY_INDEX_SHIFT);
		if (!mr || mr->key != sge->lkey || mr->ibmr.pd != ibpd ||
		    sge->addr < mr->ibmr.iova ||
		    sge->addr + sge->length > mr->ibmr.iova + mr->ibmr.length)
			err = -EINVAL;
		else if (work->write && !mr->odp->umem.writable)
			err = -EPERM;
		if (!err) {
			work->page = ornic_odp_page(mr, sge->addr);
			work->npages = ornic_odp_page(mr, sge->addr +
						      sge->length - 1) -
				       work->page + 1;
		}
		xa_unlock_irqrestore(&dev->odp_mrs, irqf);
		if (err) {
			ibdev_dbg(&dev->ibdev,
				  "advise_mr: lkey %#x [%#llx, +%u) is no ODP MR range of this PD (%d)\n",
				  sge->lkey, sge->addr, sge->length, err);
			kfree(work);
			break;
		}
		if (sync) {
			reinit_completion(&done);
			work->done = &done;
			work->result = &result;
		}
		if (!ornic_odp_queue(dev, dev->odp_wq, sge->lkey, ibpd, work)) {
			kfree(work);
			err = -EINVAL;
			break;
		}
		if (sync) {
			wait_for_completion(&done);
			kfree(work);
			err = result;
		}
	}
	return err;
}

#else /* !ORNIC_HAVE_ODP: no ODP MR can exist */

void ornic_odp_page_fault_event(struct ornic_dev *dev,
				const struct ornic_eqe *eqe)
{
}

int ornic_odp_reg_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
		     int access, u32 hw_access, struct ornic_mr *mr)
{
	return -EOPNOTSUPP;
}

int ornic_odp_dereg_mr(struct ornic_mr *mr)
{
	return -EINVAL;
}

int ornic_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

#endif /* ORNIC_HAVE_ODP */

/*
 * the ODP commands, page table entries and PAGE_FAULT events, built with or without ODP
 * (KUnit: ornic_odp_kunit.c).
 */

void ornic_cmd_odp_invalidate(struct ornic_admin_sqe *sqe, u32 key,
			      u32 first_page, u32 num_pages)
{
	struct ornic_admin_odp_invalidate *c =
		(struct ornic_admin_odp_invalidate *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ODP_INVALIDATE);
	c->key = cpu_to_le32(key);
	c->first_page = cpu_to_le32(first_page);
	c->num_pages = cpu_to_le32(num_pages);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_odp_invalidate);

void ornic_cmd_odp_resume(struct ornic_admin_sqe *sqe, u32 qpn)
{
	struct ornic_admin_odp_resume *c = (struct ornic_admin_odp_resume *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ODP_RESUME);
	c->qpn = cpu_to_le32(qpn);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_odp_resume);

__le64 ornic_odp_pte(u64 dma_addr, bool writable)
{
	u64 pte = (dma_addr & ORNIC_ODP_PTE_ADDR_MASK) | ORNIC_ODP_PTE_VALID;

	if (writable)
		pte |= ORNIC_ODP_PTE_WRITE;
	return cpu_to_le64(pte);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_odp_pte);

void ornic_page_fault_decode(const struct ornic_eqe *eqe,
			     struct ornic_page_fault *pf)
{
	const struct ornic_eqe_page_fault *e = (const void *)eqe;

	pf->key = le32_to_cpu(e->key);
	pf->page = le32_to_cpu(e->page);
	pf->num_pages = le16_to_cpu(e->num_pages);
	pf->qpn = e->qpn[0] | (u32)e->qpn[1] << 8 | (u32)e->qpn[2] << 16;
	pf->write = e->flags & ORNIC_EQE_PF_WRITE;
	pf->requester = e->flags & ORNIC_EQE_PF_REQUESTER;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_page_fault_decode);
