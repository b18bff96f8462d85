// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic rdma-core provider.
 *
 * Matches the ornic PCI function (the kernel driver registers with
 * RDMA_DRIVER_UNKNOWN, so matching is by PCI ID), opens a user context and
 * maps its doorbell page, and implements device/port queries, the device
 * clock, protection domains and parent domains.  The data-path objects live
 * in their own files; verbs left unset in the ops table are answered
 * EOPNOTSUPP by libibverbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ornic.h"
#include "ornic_abi.h"

/*
 * fw_ver is the device's FW_VERSION register as the driver read it
 * (identity.rst, "Versioning"); libibverbs leaves the string to providers.
 */
static int ornic_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint32_t fw;
	int err;

	err = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (err)
		return err;
	fw = (uint32_t)resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", ORNIC_FW_VERSION_MAJOR(fw),
		 ORNIC_FW_VERSION_MINOR(fw), ORNIC_FW_VERSION_PATCH(fw));
	return 0;
}

/*
 * The device clock now (doorbells.rst, "Device clock"): nanoseconds, as a
 * timespec.  It is the clock of completion timestamps.
 */
static int ornic_query_rt_values(struct ibv_context *ibctx,
				 struct ibv_values_ex *values)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);
	uint64_t now;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (!(ctx->caps & ORNIC_CAP_CQE_TIMESTAMP))
		return EOPNOTSUPP;
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		now = ornic_read_clock(ctx);
		values->raw_clock.tv_sec = now / 1000000000;
		values->raw_clock.tv_nsec = now % 1000000000;
	}
	return 0;
}

static int ornic_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *ornic_alloc_pd(struct ibv_context *ibctx)
{
	struct ornic_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct ornic_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	err = ibv_cmd_alloc_pd(ibctx, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->pdn = resp.pdn;

	return &pd->ibvpd;
}

/* ibv_import_pd: a PD of an imported context, by handle. */
static struct ibv_pd *ornic_import_pd(struct ibv_context *ibctx,
				      uint32_t pd_handle)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_PD, ORNIC_IB_METHOD_PD_QUERY,
			       2);
	struct ornic_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	fill_attr_in_obj(cmd, ORNIC_IB_ATTR_QUERY_PD_HANDLE, pd_handle);
	fill_attr_out_ptr(cmd, ORNIC_IB_ATTR_QUERY_PD_RESP_PDN, &pd->pdn);
	err = execute_ioctl(ibctx, cmd);
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->ibvpd.context = ibctx;
	pd->ibvpd.handle = pd_handle;
	return &pd->ibvpd;
}

/* ibv_unimport_pd: forget the PD here; its owner still holds it. */
static void ornic_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_ornic_pd(ibpd));
}

void ornic_pd_get(struct ornic_pd *pd)
{
	atomic_fetch_add(&pd->users, 1);
}

void ornic_pd_put(struct ornic_pd *pd)
{
	atomic_fetch_sub(&pd->users, 1);
}

/*
 * A parent domain: the PD of every object created on it, with the
 * application's ring allocator (thread domains are not implemented).
 */
static struct ibv_pd *
ornic_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr)
{
	struct ornic_pd *pd, *pdom;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	if (attr->comp_mask & ~(uint32_t)(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
					  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->td) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	pd = to_ornic_pd(attr->pd);
	/* A parent domain wraps a protection domain of this context. */
	if (attr->pd->context != ibctx || pd->protection_domain) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    !attr->alloc != !attr->free) {
		errno = EINVAL;
		return NULL;
	}

	pdom = calloc(1, sizeof(*pdom));
	if (!pdom) {
		errno = ENOMEM;
		return NULL;
	}
	ibv_initialize_parent_domain(&pdom->ibvpd, &pd->ibvpd);
	pdom->pdn = pd->pdn;
	pdom->protection_domain = pd;
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pdom->alloc = attr->alloc;
		pdom->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pdom->pd_context = attr->pd_context;
	ornic_pd_get(pd);
	return &pdom->ibvpd;
}

static int ornic_dealloc_pd(struct ibv_pd *ibpd)
{
	struct ornic_pd *pd = to_ornic_pd(ibpd);
	int err;

	/* Queues of a parent domain free their rings through it. */
	if (atomic_load(&pd->users))
		return EBUSY;
	if (pd->protection_domain) {
		ornic_pd_put(pd->protection_domain);
		free(pd);
		return 0;
	}

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err)
		return err;

	free(pd);
	return 0;
}

static void ornic_free_context(struct ibv_context *ibctx)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);

	ornic_table_destroy(&ctx->xrc_srq_table);
	ornic_table_destroy(&ctx->qp_table);
	if (ctx->db)
		munmap(ctx->db, ctx->db_page_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static const struct verbs_context_ops ornic_ctx_ops = {
	.alloc_mw = ornic_alloc_mw,
	.alloc_parent_domain = ornic_alloc_parent_domain,
	.advise_mr = ornic_advise_mr,
	.alloc_pd = ornic_alloc_pd,
	.bind_mw = ornic_bind_mw,
	.close_xrcd = ornic_close_xrcd,
	.create_ah = ornic_create_ah,
	.create_cq = ornic_create_cq,
	.create_cq_ex = ornic_create_cq_ex,
	.create_qp = ornic_create_qp,
	.create_qp_ex = ornic_create_qp_ex,
	.create_srq = ornic_create_srq,
	.create_srq_ex = ornic_create_srq_ex,
	.dealloc_mw = ornic_dealloc_mw,
	.dealloc_pd = ornic_dealloc_pd,
	.dereg_mr = ornic_dereg_mr,
	.destroy_ah = ornic_destroy_ah,
	.destroy_cq = ornic_destroy_cq,
	.destroy_qp = ornic_destroy_qp,
	.destroy_srq = ornic_destroy_srq,
	.free_context = ornic_free_context,
	.get_srq_num = ornic_get_srq_num,
	.import_mr = ornic_import_mr,
	.import_pd = ornic_import_pd,
	.modify_qp = ornic_modify_qp,
	.modify_srq = ornic_modify_srq,
	.open_qp = ornic_open_qp,
	.open_xrcd = ornic_open_xrcd,
	.poll_cq = ornic_poll_cq,
	.post_recv = ornic_post_recv,
	.post_send = ornic_post_send,
	.post_srq_recv = ornic_post_srq_recv,
	.query_device_ex = ornic_query_device_ex,
	.query_port = ornic_query_port,
	.query_qp = ornic_query_qp,
	.query_rt_values = ornic_query_rt_values,
	.query_srq = ornic_query_srq,
	.reg_mr = ornic_reg_mr,
	.rereg_mr = ornic_rereg_mr,
	.req_notify_cq = ornic_req_notify_cq,
	.unimport_mr = ornic_unimport_mr,
	.unimport_pd = ornic_unimport_pd,
	.resize_cq = ornic_resize_cq,
};

/*
 * UD multicast (ORNIC_CAP_MCAST): the kernel checks the QP and the group
 * and the device keeps the group table.
 */
static int ornic_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			      uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

static int ornic_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			      uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}

static const struct verbs_context_ops ornic_mcast_ops = {
	.attach_mcast = ornic_attach_mcast,
	.detach_mcast = ornic_detach_mcast,
};

/* The limits the data path checks requests against. */
static int ornic_read_limits(struct ornic_context *ctx)
{
	struct ibv_device_attr_ex attr = {};
	int err;

	err = ornic_query_device_ex(&ctx->ibvctx.context, NULL, &attr,
				    sizeof(attr));
	if (err)
		return err;
	ctx->max_qp_wr = attr.orig_attr.max_qp_wr;
	ctx->max_send_sge = attr.orig_attr.max_sge;
	ctx->max_recv_sge = attr.orig_attr.max_sge;
	ctx->max_cqe = attr.orig_attr.max_cqe;
	ctx->max_srq_wr = attr.orig_attr.max_srq_wr;
	ctx->max_srq_sge = attr.orig_attr.max_srq_sge;
	return 0;
}

/*
 * Everything a context needs from the kernel's answer, whether this
 * process allocated the context or imported it (ibv_import_device).
 */
static int ornic_context_setup(struct ornic_context *ctx,
			       const struct ornic_ibv_alloc_ucontext_resp *resp,
			       int cmd_fd)
{
	int err;

	if (!resp->db_page_size) {
		verbs_err(&ctx->ibvctx, "ornic: kernel gave no doorbell page\n");
		return EINVAL;
	}
	ctx->db_page = resp->db_page;
	ctx->db_page_size = resp->db_page_size;
	ctx->spec_version = resp->spec_version;
	ctx->caps = resp->caps;
	ctx->db_records = (resp->comp_mask &
			   ORNIC_IBV_ALLOC_UCTX_RESP_DB_RECORD) &&
			  (resp->caps & ORNIC_CAP_DB_RECORD);
	ctx->cq_db_records = (resp->comp_mask &
			      ORNIC_IBV_ALLOC_UCTX_RESP_CQ_DB_RECORD) &&
			     (resp->caps & ORNIC_CAP_CQ_DB_RECORD);
	ctx->max_inline_data = resp->max_inline_data;
	ctx->max_wqe_blocks = resp->max_wqe_blocks;

	/* Written for doorbells, read for the device clock. */
	ctx->db = mmap(NULL, ctx->db_page_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, cmd_fd, resp->db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibvctx,
			  "ornic: doorbell page mmap failed: %s\n",
			  strerror(err));
		ctx->db = NULL;
		return err;
	}
	err = ornic_read_limits(ctx);
	if (err) {
		verbs_err(&ctx->ibvctx, "ornic: query_device failed: %s\n",
			  strerror(err));
		munmap(ctx->db, ctx->db_page_size);
		ctx->db = NULL;
		return err;
	}
	ornic_table_init(&ctx->qp_table);
	ornic_table_init(&ctx->xrc_srq_table);
	verbs_set_ops(&ctx->ibvctx, &ornic_ctx_ops);
	if (ctx->caps & ORNIC_CAP_MCAST)
		verbs_set_ops(&ctx->ibvctx, &ornic_mcast_ops);
	return 0;
}

static struct verbs_context *ornic_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct ornic_alloc_ucontext_resp resp = {};
	struct ibv_get_context cmd;
	struct ornic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (ibv_cmd_get_context(&ctx->ibvctx, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp))) {
		err = errno;
		goto err_free;
	}
	err = ornic_context_setup(ctx, &resp.drv_payload, cmd_fd);
	if (err)
		goto err_free;
	return &ctx->ibvctx;

err_free:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

/*
 * ibv_import_device: a context another process (or this one) allocated on
 * cmd_fd.  The kernel answers the allocation's response again.
 */
static struct verbs_context *ornic_import_context(struct ibv_device *ibdev,
						  int cmd_fd)
{
	struct ornic_ibv_alloc_ucontext_resp resp = {};
	DECLARE_COMMAND_BUFFER_LINK(driver_attr, UVERBS_OBJECT_DEVICE,
				    UVERBS_METHOD_QUERY_CONTEXT, 1, NULL);
	struct ornic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	fill_attr_out_ptr(driver_attr, ORNIC_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
			  &resp);
	err = ibv_cmd_query_context(&ctx->ibvctx.context, driver_attr);
	if (!err)
		err = ornic_context_setup(ctx, &resp, cmd_fd);
	if (err) {
		verbs_uninit_context(&ctx->ibvctx);
		free(ctx);
		errno = err;
		return NULL;
	}
	return &ctx->ibvctx;
}

static struct verbs_device *
ornic_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct ornic_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void ornic_uninit_device(struct verbs_device *vdev)
{
	struct ornic_device *dev = container_of(vdev, struct ornic_device, vdev);

	free(dev);
}

static const struct verbs_match_ent ornic_match_table[] = {
	VERBS_PCI_MATCH(PCI_VENDOR_ID_ORNIC, PCI_DEVICE_ID_ORNIC, NULL),
	{}
};

static const struct verbs_device_ops ornic_dev_ops = {
	.name = "ornic",
	.match_min_abi_version = ORNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = ORNIC_UVERBS_ABI_VERSION,
	.match_table = ornic_match_table,
	.alloc_device = ornic_device_alloc,
	.uninit_device = ornic_uninit_device,
	.alloc_context = ornic_alloc_context,
	.import_context = ornic_import_context,
};

PROVIDER_DRIVER(ornic, ornic_dev_ops);
