// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: pinned user memory as the device sees it (spec: queues.rst).  A
 * umem becomes a DIRECT page list (up to 512 pages) or an INDIRECT one
 * (pointer pages of 512 entries); the device copies the list when the
 * command runs, so the list is freed right after.  Also the small helpers
 * every verb shares: udata in/out and the event-handler barrier.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/iter.h>

#include "ornic_res.h"

/* Pointer pages and the list head are 4 KiB, whatever the CPU page. */
#define ORNIC_PBL_PAGE	SZ_4K

void ornic_pbl_free(struct ornic_dev *dev, struct ornic_pbl *pbl)
{
	struct device *dmadev = &dev->pdev->dev;
	u32 i;

	for (i = 0; i < pbl->nptr; i++)
		if (pbl->ptr[i])
			dma_free_coherent(dmadev, ORNIC_PBL_PAGE, pbl->ptr[i],
					  pbl->ptr_dma[i]);
	kfree(pbl->ptr);
	kfree(pbl->ptr_dma);
	if (pbl->top)
		dma_free_coherent(dmadev, ORNIC_PBL_PAGE, pbl->top,
				  pbl->top_dma);
	memset(pbl, 0, sizeof(*pbl));
}

static int ornic_pbl_alloc(struct ornic_dev *dev, struct ornic_pbl *pbl,
			   int mode, u32 npages)
{
	struct device *dmadev = &dev->pdev->dev;
	u32 i;

	pbl->top = dma_alloc_coherent(dmadev, ORNIC_PBL_PAGE, &pbl->top_dma,
				      GFP_KERNEL);
	if (!pbl->top)
		return -ENOMEM;
	if (mode == ORNIC_MEM_MODE_DIRECT)
		return 0;

	pbl->nptr = ornic_pbl_ptr_pages(npages);
	pbl->ptr = kcalloc(pbl->nptr, sizeof(*pbl->ptr), GFP_KERNEL);
	pbl->ptr_dma = kcalloc(pbl->nptr, sizeof(*pbl->ptr_dma), GFP_KERNEL);
	if (!pbl->ptr || !pbl->ptr_dma)
		return -ENOMEM;
	for (i = 0; i < pbl->nptr; i++) {
		pbl->ptr[i] = dma_alloc_coherent(dmadev, ORNIC_PBL_PAGE,
						 &pbl->ptr_dma[i], GFP_KERNEL);
		if (!pbl->ptr[i])
			return -ENOMEM;
		pbl->top[i] = cpu_to_le64(pbl->ptr_dma[i]);
	}
	return 0;
}

/*
 * A zeroed table of @nentries __le64 entries the device keeps reading (an
 * ODP page table): DIRECT up to 512 entries, else INDIRECT; @desc names it
 * with pages of 2^@page_shift.
 */
int ornic_pbl_alloc_table(struct ornic_dev *dev, struct ornic_pbl *pbl,
			  u32 nentries, unsigned int page_shift,
			  struct ornic_mem_desc *desc)
{
	int mode = ornic_pbl_mode(nentries);
	int err;

	memset(pbl, 0, sizeof(*pbl));
	if (mode < 0)
		return mode;
	if (mode == ORNIC_MEM_MODE_INDIRECT &&
	    !(dev->caps & ORNIC_CAP_MR_INDIRECT))
		return -E2BIG;
	/* dma_alloc_coherent() memory is zeroed: no page is resident. */
	err = ornic_pbl_alloc(dev, pbl, mode, nentries);
	if (err) {
		ornic_pbl_free(dev, pbl);
		return err;
	}
	memset(desc, 0, sizeof(*desc));
	desc->addr = cpu_to_le64(pbl->top_dma);
	desc->num_pages = cpu_to_le32(nentries);
	desc->page_shift = page_shift;
	desc->mode = mode;
	return 0;
}

int ornic_pbl_build(struct ornic_dev *dev, struct ib_umem *umem,
		    unsigned long pgsz, struct ornic_mem_desc *desc,
		    struct ornic_pbl *pbl)
{
	size_t npages = ib_umem_num_dma_blocks(umem, pgsz);
	struct ib_block_iter biter;
	u32 i = 0, p, e;
	int mode, err;

	memset(pbl, 0, sizeof(*pbl));
	if (npages > U32_MAX)
		return -E2BIG;
	mode = ornic_pbl_mode(npages);
	if (mode < 0)
		return mode;
	if (mode == ORNIC_MEM_MODE_INDIRECT &&
	    !(dev->caps & ORNIC_CAP_MR_INDIRECT))
		return -E2BIG;
	err = ornic_pbl_alloc(dev, pbl, mode, npages);
	if (err)
		goto err_free;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		u64 addr = rdma_block_iter_dma_address(&biter);

		if (i >= npages) {
			err = -EINVAL;
			goto err_free;
		}
		if (mode == ORNIC_MEM_MODE_DIRECT) {
			pbl->top[i] = cpu_to_le64(addr);
		} else {
			ornic_pbl_locate(i, &p, &e);
			pbl->ptr[p][e] = cpu_to_le64(addr);
		}
		i++;
	}
	if (i != npages) {
		err = -EINVAL;
		goto err_free;
	}

	memset(desc, 0, sizeof(*desc));
	desc->addr = cpu_to_le64(pbl->top_dma);
	desc->num_pages = cpu_to_le32(npages);
	desc->page_shift = __ffs(pgsz);
	desc->mode = mode;
	return 0;

err_free:
	ornic_pbl_free(dev, pbl);
	return err;
}

/*
 * Pin a user ring of @ring_bytes at @addr (the provider allocated
 * @buf_size bytes there) and describe it in @desc.  The ring starts at the
 * first listed page, so @addr must be page aligned.
 */
struct ib_umem *ornic_ring_pin(struct ornic_dev *dev, u64 addr, u64 buf_size,
			       size_t ring_bytes, struct ornic_mem_desc *desc,
			       struct ornic_pbl *pbl)
{
	u64 bitmap = ornic_ring_pgsz_bitmap(le64_to_cpu(dev->attr.page_size_cap),
					    addr);
	struct ib_umem *umem;
	unsigned long pgsz;
	int err;

	if (!addr || !PAGE_ALIGNED(addr) || buf_size < ring_bytes)
		return ERR_PTR(-EINVAL);
	/* ib_umem_find_best_pgsz() needs a size no larger than PAGE_SIZE. */
	if (!(bitmap & GENMASK_ULL(PAGE_SHIFT, 0)))
		return ERR_PTR(-EINVAL);
	umem = ornic_umem_get(&dev->ibdev, addr, ring_bytes,
			      IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return umem;
	pgsz = ib_umem_find_best_pgsz(umem, bitmap, addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	err = ornic_pbl_build(dev, umem, pgsz, desc, pbl);
	if (err)
		goto err_release;
	return umem;

err_release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

/*
 * Request structs of ABI version 1 are complete: shorter input is an
 * error, longer input must be zero (a newer provider's fields we ignore
 * would change meaning otherwise).
 */
int ornic_udata_in(struct ib_udata *udata, void *req, size_t len)
{
	if (!udata || udata->inlen < len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return ib_copy_from_udata(req, udata, len);
}

int ornic_udata_out(struct ib_udata *udata, void *resp, size_t len)
{
	if (!udata || !udata->outlen)
		return 0;
	return ib_copy_to_udata(udata, resp, min(udata->outlen, len));
}

/* No async event handler still holds an object erased from an xarray. */
void ornic_res_sync(struct ornic_dev *dev)
{
	spin_lock_irq(&dev->aeq_lock);
	spin_unlock_irq(&dev->aeq_lock);
}

void ornic_wq_limits(struct ornic_dev *dev, struct ornic_wq_limits *l)
{
	const struct ornic_device_attr *a = &dev->attr;

	l->max_wqe_blocks = min_t(u32, le32_to_cpu(a->max_wqe_blocks),
				  ORNIC_WQE_MAX_BLOCKS);
	l->max_qp_wr = le32_to_cpu(a->max_qp_wr);
	l->max_send_sge = le32_to_cpu(a->max_send_sge);
	l->max_recv_sge = le32_to_cpu(a->max_recv_sge);
	l->max_inline_data = le32_to_cpu(a->max_inline_data);
}

/*
 * page arithmetic of pinned memory: page sizes, page lists, MR pages
 * (KUnit: ornic_umem_kunit.c).
 */

u64 ornic_mr_pgsz_bitmap(u64 page_size_cap)
{
	return page_size_cap &
	       GENMASK_ULL(ORNIC_PAGE_SHIFT_MAX, ORNIC_PAGE_SHIFT_MIN);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_pgsz_bitmap);

u64 ornic_ring_pgsz_bitmap(u64 page_size_cap, u64 addr)
{
	u64 bitmap = ornic_mr_pgsz_bitmap(page_size_cap);

	/* A page larger than addr's alignment would start before the ring. */
	if (addr)
		bitmap &= GENMASK_ULL(__ffs64(addr), 0);
	return bitmap;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_ring_pgsz_bitmap);

int ornic_pbl_mode(u32 npages)
{
	if (!npages)
		return -EINVAL;
	if (npages <= ORNIC_PBL_ENTRIES_PER_PAGE)
		return ORNIC_MEM_MODE_DIRECT;
	if (npages <= ORNIC_PBL_ENTRIES_PER_PAGE * ORNIC_PBL_ENTRIES_PER_PAGE)
		return ORNIC_MEM_MODE_INDIRECT;
	return -E2BIG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_mode);

u32 ornic_pbl_ptr_pages(u32 npages)
{
	return DIV_ROUND_UP(npages, ORNIC_PBL_ENTRIES_PER_PAGE);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_ptr_pages);

void ornic_pbl_locate(u32 i, u32 *ptr, u32 *ent)
{
	*ptr = i / ORNIC_PBL_ENTRIES_PER_PAGE;
	*ent = i % ORNIC_PBL_ENTRIES_PER_PAGE;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_locate);

u64 ornic_mr_num_pages(u64 iova, u64 length, unsigned int page_shift)
{
	u64 offset = iova & ((1ULL << page_shift) - 1);

	if (!length)
		return 0;
	return (offset + length + (1ULL << page_shift) - 1) >> page_shift;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_num_pages);
