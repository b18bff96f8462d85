// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic rdma-core provider.
 *
 * Matches the ornic PCI function (the kernel driver registers with
 * RDMA_DRIVER_UNKNOWN, so matching is by PCI ID), opens a user context and
 * maps its doorbell page, and implements device/port queries and protection
 * domains.  The data-path objects live in their own files; verbs left unset
 * in the ops table are answered EOPNOTSUPP by libibverbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ornic.h"
#include "ornic_abi.h"

static int ornic_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);

	return ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
					&resp_size);
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

static int ornic_dealloc_pd(struct ibv_pd *ibpd)
{
	struct ornic_pd *pd = to_ornic_pd(ibpd);
	int err;

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
	.alloc_pd = ornic_alloc_pd,
	.close_xrcd = ornic_close_xrcd,
	.create_ah = ornic_create_ah,
	.create_cq = ornic_create_cq,
	.create_cq_ex = ornic_create_cq_ex,
	.create_qp = ornic_create_qp,
	.create_qp_ex = ornic_create_qp_ex,
	.create_srq = ornic_create_srq,
	.create_srq_ex = ornic_create_srq_ex,
	.dealloc_pd = ornic_dealloc_pd,
	.dereg_mr = ornic_dereg_mr,
	.destroy_ah = ornic_destroy_ah,
	.destroy_cq = ornic_destroy_cq,
	.destroy_qp = ornic_destroy_qp,
	.destroy_srq = ornic_destroy_srq,
	.free_context = ornic_free_context,
	.get_srq_num = ornic_get_srq_num,
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
	.query_srq = ornic_query_srq,
	.reg_mr = ornic_reg_mr,
	.req_notify_cq = ornic_req_notify_cq,
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
				&resp.ibv_resp, sizeof(resp)))
		goto err_free;

	if (!resp.db_page_size) {
		verbs_err(&ctx->ibvctx, "ornic: kernel gave no doorbell page\n");
		errno = EINVAL;
		goto err_free;
	}

	ctx->db_page = resp.db_page;
	ctx->db_page_size = resp.db_page_size;
	ctx->spec_version = resp.spec_version;
	ctx->caps = resp.caps;
	ctx->max_inline_data = resp.max_inline_data;
	ctx->max_wqe_blocks = resp.max_wqe_blocks;

	ctx->db = mmap(NULL, ctx->db_page_size, PROT_WRITE, MAP_SHARED, cmd_fd,
		       resp.db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		verbs_err(&ctx->ibvctx,
			  "ornic: doorbell page mmap failed: %s\n",
			  strerror(errno));
		ctx->db = NULL;
		goto err_free;
	}

	err = ornic_read_limits(ctx);
	if (err) {
		verbs_err(&ctx->ibvctx, "ornic: query_device failed: %s\n",
			  strerror(err));
		errno = err;
		goto err_unmap;
	}
	ornic_table_init(&ctx->qp_table);
	ornic_table_init(&ctx->xrc_srq_table);

	verbs_set_ops(&ctx->ibvctx, &ornic_ctx_ops);

	return &ctx->ibvctx;

err_unmap:
	munmap(ctx->db, ctx->db_page_size);

err_free:
	err = errno;
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
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
};

PROVIDER_DRIVER(ornic, ornic_dev_ops);
