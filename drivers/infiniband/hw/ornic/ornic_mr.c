// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: user memory regions (spec: memory.rst).  The region is pinned with
 * ib_umem, described with the largest page size the device and the
 * mapping allow, and registered with REG_MR; lkey == rkey == its key.
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ornic_res.h"

static struct ib_mr *ornic_reg_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	const struct ornic_device_attr *a = &dev->attr;
	struct ornic_admin_reg_mr *cmd;
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc desc;
	struct ornic_pbl pbl;
	unsigned long pgsz;
	struct ornic_mr *mr;
	u64 bitmap, npages;
	u32 hw_access;
	int err;

	if (!length || length > le64_to_cpu(a->max_mr_size) ||
	    virt_addr + length < virt_addr)
		return ERR_PTR(-EINVAL);
	err = ornic_access_from_ib(access, a->atomic_cap != ORNIC_ATOMIC_NONE,
				   dev->caps & ORNIC_CAP_FLUSH, &hw_access);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "access flags %#x not supported (caps %#llx)\n",
			  access, dev->caps);
		return ERR_PTR(err);
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EOPNOTSUPP);
	bitmap = ornic_mr_pgsz_bitmap(le64_to_cpu(a->page_size_cap));
	if (!(bitmap & GENMASK_ULL(PAGE_SHIFT, 0)))
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ornic_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, bitmap, virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	npages = ornic_mr_num_pages(virt_addr, length, __ffs(pgsz));
	if (npages != ib_umem_num_dma_blocks(mr->umem, pgsz) ||
	    npages > le32_to_cpu(a->max_pages_per_mr)) {
		err = -E2BIG;
		goto err_release;
	}
	err = ornic_pbl_build(dev, mr->umem, pgsz, &desc, &pbl);
	if (err)
		goto err_release;

	ornic_cmd_init(&sqe, ORNIC_ADMIN_REG_MR);
	cmd = (struct ornic_admin_reg_mr *)&sqe;
	cmd->mem = desc;
	cmd->iova = cpu_to_le64(virt_addr);
	cmd->length = cpu_to_le64(length);
	cmd->pd = cpu_to_le32(to_pdn(ibpd));
	cmd->access = cpu_to_le32(hw_access);
	/* A new variant per registration: stale keys of a reused index fail. */
	cmd->key_variant = (u8)atomic_inc_return(&dev->mr_variant);
	cmd->first_page_offset = cpu_to_le32(virt_addr & (pgsz - 1));
	err = ornic_admin_simple(dev, &sqe, &mr->key);
	ornic_pbl_free(dev, &pbl);
	if (err)
		goto err_release;

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

int ornic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct ornic_mr *mr = to_omr(ibmr);
	int err;

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
 * The DMA MR of a kernel PD (its local_dma_lkey): a PHYSICAL MR, addresses
 * are DMA addresses.  Local access only: the device never lets the wire
 * reach a PHYSICAL MR, so a global rkey cannot be offered.
 */
struct ib_mr *ornic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct ornic_dev *dev = to_odev(ibpd->device);
	struct ornic_admin_reg_mr *cmd;
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

	ornic_cmd_init(&sqe, ORNIC_ADMIN_REG_MR);
	cmd = (struct ornic_admin_reg_mr *)&sqe;
	cmd->iova = 0;
	cmd->length = cpu_to_le64(U64_MAX);
	cmd->pd = cpu_to_le32(to_pdn(ibpd));
	cmd->access = cpu_to_le32(ORNIC_ACCESS_LOCAL_WRITE);
	cmd->key_variant = (u8)atomic_inc_return(&dev->mr_variant);
	cmd->flags = ORNIC_MR_FLAG_PHYSICAL;
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
	struct ornic_admin_reg_mr *cmd;
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

	ornic_cmd_init(&sqe, ORNIC_ADMIN_REG_MR);
	cmd = (struct ornic_admin_reg_mr *)&sqe;
	cmd->mem.num_pages = cpu_to_le32(max_num_sg);
	cmd->pd = cpu_to_le32(to_pdn(ibpd));
	cmd->key_variant = (u8)atomic_inc_return(&dev->mr_variant);
	cmd->flags = ORNIC_MR_FLAG_FAST_REG;
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
