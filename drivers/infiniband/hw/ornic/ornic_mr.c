// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: user memory regions (spec: memory.rst).  The region is pinned with
 * ib_umem, described with the largest page size the device and the
 * mapping allow, and registered with REG_MR; lkey == rkey == its key.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ornic_res.h"

/*
 * Pin @length bytes at @start for an MR seen by the device at @virt_addr
 * and describe them (page list in @pbl, to free once the command ran).
 */
static struct ib_umem *ornic_mr_pin(struct ornic_dev *dev, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ornic_mr_xlat *xlat,
				    struct ornic_pbl *pbl)
{
	const struct ornic_device_attr *a = &dev->attr;
	struct ib_umem *umem;
	unsigned long pgsz;
	u64 bitmap, npages;
	int err;

	if (!length || length > le64_to_cpu(a->max_mr_size) ||
	    virt_addr + length < virt_addr) {
		ibdev_dbg(&dev->ibdev, "MR of %llu bytes at %#llx (max %llu)\n",
			  length, virt_addr, le64_to_cpu(a->max_mr_size));
		return ERR_PTR(-EINVAL);
	}
	bitmap = ornic_mr_pgsz_bitmap(le64_to_cpu(a->page_size_cap));
	if (!(bitmap & GENMASK_ULL(PAGE_SHIFT, 0)))
		return ERR_PTR(-EOPNOTSUPP);
	umem = ornic_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(umem))
		return umem;
	pgsz = ib_umem_find_best_pgsz(umem, bitmap, virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	npages = ornic_mr_num_pages(virt_addr, length, __ffs(pgsz));
	if (npages != ib_umem_num_dma_blocks(umem, pgsz) ||
	    npages > le32_to_cpu(a->max_pages_per_mr)) {
		ibdev_dbg(&dev->ibdev, "MR needs %llu pages (max %u)\n",
			  npages, le32_to_cpu(a->max_pages_per_mr));
		err = -E2BIG;
		goto err_release;
	}
	err = ornic_pbl_build(dev, umem, pgsz, &xlat->mem, pbl);
	if (err)
		goto err_release;
	xlat->iova = virt_addr;
	xlat->length = length;
	xlat->first_page_offset = virt_addr & (pgsz - 1);
	return umem;

err_release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

static struct ib_mr *ornic_reg_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	const struct ornic_device_attr *a = &dev->attr;
	struct ornic_mr_xlat xlat;
	struct ornic_admin_sqe sqe;
	struct ornic_pbl pbl;
	struct ornic_mr *mr;
	u32 hw_access;
	int err;

	/* ON_DEMAND is a way to register, not a right the device checks. */
	err = ornic_mr_access_from_ib(access & ~IB_ACCESS_ON_DEMAND,
				      a->atomic_cap != ORNIC_ATOMIC_NONE,
				      dev->caps & ORNIC_CAP_FLUSH,
				      dev->caps & ORNIC_CAP_MW, &hw_access);
	/* Persistence of an ODP MR's pages is not offered (memory.rst). */
	if (!err && (access & IB_ACCESS_ON_DEMAND) &&
	    (access & IB_ACCESS_FLUSH_PERSISTENT))
		err = -EOPNOTSUPP;
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "reg_mr: access %#x not supported (caps %#llx)\n",
			  access, dev->caps);
		return ERR_PTR(err);
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	if (access & IB_ACCESS_ON_DEMAND) {
		if (!length || length > le64_to_cpu(a->max_mr_size) ||
		    virt_addr + length < virt_addr)
			return ERR_PTR(-EINVAL);
		mr = kzalloc_obj(*mr, GFP_KERNEL);
		if (!mr)
			return ERR_PTR(-ENOMEM);
		err = ornic_odp_reg_mr(ibpd, start, length, virt_addr, access,
				       hw_access, mr);
		if (err) {
			kfree(mr);
			return ERR_PTR(err);
		}
		return &mr->ibmr;
	}

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ornic_mr_pin(dev, start, length, virt_addr, access, &xlat,
				&pbl);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}

	/* A new variant per registration: stale keys of a reused index fail. */
	ornic_cmd_reg_mr(&sqe, &xlat, to_pdn(ibpd), hw_access,
			 (u8)atomic_inc_return(&dev->mr_variant));
	err = ornic_admin_simple(dev, &sqe, &mr->key);
	ornic_pbl_free(dev, &pbl);
	if (err)
		goto err_release;

	mr->access = access;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return &mr->ibmr;

err_release:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

#ifdef ORNIC_HAVE_IB_DMAH
struct ib_mr *ornic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_dmah *dmah, struct ib_udata *udata)
{
	/* No DMA handle attributes (TPH, memory type) on this device. */
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return ornic_reg_mr(ibpd, start, length, virt_addr, access, udata);
}
#else
struct ib_mr *ornic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	return ornic_reg_mr(ibpd, start, length, virt_addr, access, udata);
}
#endif

/* REREG_MR's new access rights @access in the device's terms. */
static int ornic_rereg_access(struct ornic_dev *dev, struct ornic_mr *mr,
			      int access, u32 *hw_access)
{
	int err;

	err = ornic_mr_access_from_ib(access,
				      dev->attr.atomic_cap != ORNIC_ATOMIC_NONE,
				      dev->caps & ORNIC_CAP_FLUSH,
				      dev->caps & ORNIC_CAP_MW, hw_access);
	if (err)
		ibdev_dbg(&dev->ibdev,
			  "rereg MR %#x: access %#x not supported\n",
			  mr->key, access);
	return err;
}

/*
 * REREG_MR in place (ORNIC_CAP_RESIZE): the key stays, so the core keeps
 * this ib_mr (NULL return) and lkey/rkey do not change.  A new translation
 * is pinned first and the old pages are unpinned only once the device has
 * switched to the new list.  The core holds the MR's uobject exclusively.
 */
struct ib_mr *ornic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibmr->device);
	struct ornic_mr *mr = to_omr(ibmr);
	struct ornic_mr_xlat xlat, *x = NULL;
	struct ib_umem *umem = NULL;
	struct ornic_pbl pbl = {};
	struct ornic_admin_sqe sqe;
	u32 hw_access = 0;
	int new_access;
	u8 hw_flags;
	int err;

	if (!(dev->caps & ORNIC_CAP_RESIZE))
		return ERR_PTR(-EOPNOTSUPP);
	/* The device cannot re-register an ODP MR (memory.rst). */
	if (mr->odp)
		return ERR_PTR(-EOPNOTSUPP);
	/* DMA and fast-registration MRs are the kernel's. */
	if (!mr->umem)
		return ERR_PTR(-EINVAL);
	/* The core drops IB_MR_REREG_PD to the PD the MR has: nothing left. */
	if (!flags)
		return NULL;
	err = ornic_rereg_flags_from_ib(flags, &hw_flags);
	if (err)
		return ERR_PTR(err);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	new_access = (flags & IB_MR_REREG_ACCESS) ? access : mr->access;
	if (flags & IB_MR_REREG_ACCESS) {
		err = ornic_rereg_access(dev, mr, access, &hw_access);
		if (err)
			return ERR_PTR(err);
	}
	/*
	 * Pages pinned for reading only must not be written by the device:
	 * new write rights pin the same range again, writable.
	 */
	if (!(flags & IB_MR_REREG_TRANS) &&
	    (new_access & IB_ACCESS_LOCAL_WRITE) && !mr->umem->writable) {
		start = mr->umem->address;
		length = mr->umem->length;
		virt_addr = ibmr->iova;
		hw_flags |= ORNIC_REREG_MR_TRANSLATION;
	}
	if (hw_flags & ORNIC_REREG_MR_TRANSLATION) {
		umem = ornic_mr_pin(dev, start, length, virt_addr, new_access,
				    &xlat, &pbl);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
		x = &xlat;
	}
	err = ornic_cmd_rereg_mr(&sqe, mr->key, hw_flags, x, to_pdn(ibpd),
				 hw_access);
	if (!err)
		err = ornic_admin_simple(dev, &sqe, NULL);
	ornic_pbl_free(dev, &pbl);
	if (err) {
		ibdev_dbg(&dev->ibdev, "rereg MR %#x flags %#x: %d\n",
			  mr->key, flags, err);
		if (umem)
			ib_umem_release(umem);
		return ERR_PTR(err);
	}
	if (umem) {
		swap(mr->umem, umem);
		ib_umem_release(umem);
	}
	mr->access = new_access;
	return NULL;
}

int ornic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct ornic_mr *mr = to_omr(ibmr);
	int err;

	if (mr->odp) {
		err = ornic_odp_dereg_mr(mr);
		if (!err)
			kfree(mr);
		return err;
	}
	err = ornic_admin_destroy(to_odev(ibmr->device), ORNIC_ADMIN_DEREG_MR,
				  mr->key);
	/* A dead device was reset: it no longer touches the pages. */
	if (err && err != -EIO)
		return err;
	ib_umem_release(mr->umem);
	if (mr->pages)
		dma_free_coherent(&to_odev(ibmr->device)->pdev->dev,
				  (size_t)mr->max_pages * sizeof(*mr->pages),
				  mr->pages, mr->pages_dma);
	kfree(mr);
	return 0;
}

/*
 * Memory windows (spec: memory.rst "Memory windows"): a key of the MR key
 * table.  Binding happens on a send queue (BIND_MW WQEs the provider
 * posts), so the kernel only allocates and deallocates.
 */
int ornic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibmw->device);
	struct ornic_mw *mw = to_omw(ibmw);
	struct ornic_admin_sqe sqe;
	u8 type;
	int err;

	if (!(dev->caps & ORNIC_CAP_MW))
		return -EOPNOTSUPP;
	err = ornic_mw_type_from_ib(ibmw->type, &type);
	if (err) {
		ibdev_dbg(&dev->ibdev, "alloc_mw: type %d not supported\n",
			  ibmw->type);
		return err;
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	err = ornic_cmd_alloc_mw(&sqe, to_pdn(ibmw->pd), type,
				 (u8)atomic_inc_return(&dev->mr_variant));
	if (err)
		return err;
	err = ornic_admin_simple(dev, &sqe, &mw->key);
	if (err)
		return err;
	ibmw->rkey = mw->key;
	return 0;
}

int ornic_dealloc_mw(struct ib_mw *ibmw)
{
	int err;

	err = ornic_admin_destroy(to_odev(ibmw->device), ORNIC_ADMIN_DEALLOC_MW,
				  to_omw(ibmw)->key);
	/* A dead device was reset: the window no longer exists. */
	return err == -EIO ? 0 : err;
}

/*
 * The DMA MR of a kernel PD (its local_dma_lkey): a PHYSICAL MR, addresses
 * are DMA addresses.  Local access only: the device never lets the wire
 * reach a PHYSICAL MR, so a global rkey cannot be offered.
 */
struct ib_mr *ornic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	struct ornic_admin_sqe sqe;
	struct ornic_mr *mr;
	int err;

	if (!(dev->caps & ORNIC_CAP_MR_PHYSICAL))
		return ERR_PTR(-EOPNOTSUPP);
	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	ornic_cmd_reg_mr_physical(&sqe, to_pdn(ibpd), ORNIC_ACCESS_LOCAL_WRITE,
				  (u8)atomic_inc_return(&dev->mr_variant));
	err = ornic_admin_simple(dev, &sqe, &mr->key);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return &mr->ibmr;
}

/*
 * A fast-registration MR (IB_MR_TYPE_MEM_REG): created FREE with room for
 * @max_num_sg pages; REG_MR work requests give it pages, access and a new
 * key variant, LOCAL_INV and SEND_WITH_INV make it FREE again.
 */
struct ib_mr *ornic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	struct ornic_admin_sqe sqe;
	struct ornic_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!(dev->caps & ORNIC_CAP_FAST_REG))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > le32_to_cpu(dev->attr.max_fast_reg_pages))
		return ERR_PTR(-EINVAL);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pages = dma_alloc_coherent(&dev->pdev->dev,
				       (size_t)max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free;
	}

	ornic_cmd_reg_mr_fast(&sqe, to_pdn(ibpd), max_num_sg,
			      (u8)atomic_inc_return(&dev->mr_variant));
	err = ornic_admin_simple(dev, &sqe, &mr->key);
	if (err)
		goto err_pages;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return &mr->ibmr;

err_pages:
	dma_free_coherent(&dev->pdev->dev,
			  (size_t)max_num_sg * sizeof(*mr->pages), mr->pages,
			  mr->pages_dma);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int ornic_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct ornic_mr *mr = to_omr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/* The page list of the next REG_MR; the device reads it when that runs. */
int ornic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	to_omr(ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, ornic_set_page);
}
