/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic rdma-core provider: device, context and PD.
 */
#ifndef __ORNIC_H__
#define __ORNIC_H__

#include <stdint.h>
#include <infiniband/driver.h>
#include <util/util.h>

/* PCI identity of the device (include/ornic/ornic_hw.h, provisional). */
#define PCI_VENDOR_ID_ORNIC	0x1dea
#define PCI_DEVICE_ID_ORNIC	0x0001

struct ornic_device {
	struct verbs_device vdev;
};

struct ornic_context {
	struct verbs_context ibvctx;
	uint32_t db_page;		/* doorbell page index of the context */
	uint32_t db_page_size;		/* bytes mapped at db */
	void *db;			/* the doorbell page, or NULL */
	uint32_t spec_version;
	uint64_t caps;
	uint32_t max_inline_data;
	uint32_t max_wqe_blocks;
};

struct ornic_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct ornic_device *to_ornic_dev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct ornic_device, vdev.device);
}

static inline struct ornic_context *to_ornic_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct ornic_context, ibvctx.context);
}

static inline struct ornic_pd *to_ornic_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct ornic_pd, ibvpd);
}

#endif /* __ORNIC_H__ */
