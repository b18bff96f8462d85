// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * scale-limits DEV
 *
 * Past a limit: on DEV (a device whose model was started with low object
 * counts, ornic-model --max), create PDs, CQs, MRs, QPs, SRQs, AHs and
 * multicast attachments until the device refuses, for each kind:
 *  - the refusal is ENOMEM or EINVAL, never a hang or another error;
 *  - the number made is the reported maximum, less at most a few objects
 *    the kernel holds itself (the GSI QP, the MAD layer's PD and CQ);
 *  - after one is freed, one more can be made;
 * then everything is freed.  Prints one "PASS|FAIL: limit-<kind> ..." line
 * per kind (test-report.h); exit status 0 only when all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test-fixture.h"
#include "test-report.h"

/* Objects the kernel may hold on the device before any process does. */
#define KERNEL_HELD	4

enum kind { PD, CQ, MR, QP, SRQ, AH, MCAST, KINDS };
static const char *const names[KINDS] = {
	"pd", "cq", "mr", "qp", "srq", "ah", "mcast-grp"
};

struct run {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *ud;	/* the QP attached to the multicast groups */
	char buf[4096];
};

static union ibv_gid group(unsigned int n)
{
	union ibv_gid g = { .raw = { 0xff, 0x0e } };

	g.raw[12] = (uint8_t)(n >> 24);
	g.raw[13] = (uint8_t)(n >> 16);
	g.raw[14] = (uint8_t)(n >> 8);
	g.raw[15] = (uint8_t)n;
	return g;
}

/* One object of @k (its handle in *@obj); 0, or the errno of the refusal. */
static int make(struct run *r, enum kind k, unsigned int n, void **obj)
{
	struct ibv_qp_init_attr qpa = {
		.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr srqa = {
		.attr = { .max_wr = 1, .max_sge = 1 },
	};
	struct ibv_ah_attr aha = {
		.is_global = 1, .port_num = 1,
		.grh = { .hop_limit = 64, .sgid_index = 0 },
	};
	union ibv_gid g;

	errno = 0;
	switch (k) {
	case PD:
		*obj = ibv_alloc_pd(r->ctx);
		break;
	case CQ:
		*obj = ibv_create_cq(r->ctx, 1, NULL, NULL, 0);
		break;
	case MR:
		*obj = ibv_reg_mr(r->pd, r->buf, sizeof(r->buf), IBV_ACCESS_LOCAL_WRITE);
		break;
	case QP:
		*obj = ibv_create_qp(r->pd, &qpa);
		break;
	case SRQ:
		*obj = ibv_create_srq(r->pd, &srqa);
		break;
	case AH:
		/*
		 * A multicast destination: its MAC follows from the GID, with
		 * no route lookup (the NIC's port may have no link).
		 */
		aha.grh.dgid = group(n + 1);
		*obj = ibv_create_ah(r->pd, &aha);
		break;
	case MCAST:
		g = group(n);
		errno = ibv_attach_mcast(r->ud, &g, 0);
		*obj = errno ? NULL : (void *)(uintptr_t)(n + 1);
		return errno;
	default:
		return EINVAL;
	}
	return *obj ? 0 : (errno ? errno : EIO);
}

static int drop(struct run *r, enum kind k, void *obj)
{
	union ibv_gid g;

	switch (k) {
	case PD: return ibv_dealloc_pd(obj);
	case CQ: return ibv_destroy_cq(obj);
	case MR: return ibv_dereg_mr(obj);
	case QP: return ibv_destroy_qp(obj);
	case SRQ: return ibv_destroy_srq(obj);
	case AH: return ibv_destroy_ah(obj);
	case MCAST:
		g = group((unsigned int)((uintptr_t)obj - 1));
		return ibv_detach_mcast(r->ud, &g, 0);
	default: return EINVAL;
	}
}

static void one_kind(struct run *r, enum kind k, int max)
{
	void **objs = calloc((size_t)max + 16, sizeof(*objs));
	unsigned int made = 0, i;
	int err = 0, again = -1, ok;
	void *last;

	if (!objs) {
		report(0, names[k], "out of memory");
		return;
	}
	while (made < (unsigned int)max + 16) {
		err = make(r, k, made, &objs[made]);
		if (err)
			break;
		made++;
	}
	if (made) {
		drop(r, k, objs[made - 1]);
		again = make(r, k, made - 1, &last);
		if (!again)
			objs[made - 1] = last;
		else
			made--;
	}
	ok = (err == ENOMEM || err == EINVAL) && made <= (unsigned int)max &&
	     made + KERNEL_HELD >= (unsigned int)max && again == 0;
	report(ok, names[k],
	       "device max %d: %u made, then refused with %s; one freed, one made again: %s",
	       max, made, err ? strerror(err) : "nothing (never refused)",
	       again == 0 ? "yes" : again < 0 ? "not tried" : strerror(again));
	for (i = made; i-- > 0;)
		drop(r, k, objs[i]);
	free(objs);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device_attr attr;
	struct ibv_qp_init_attr uda = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct run r = {};
	struct ibv_device *dev;

	if (argc != 2) {
		fprintf(stderr, "usage: scale-limits DEV\n");
		return 2;
	}
	report_prefix("limit-");
	list = ibv_get_device_list(NULL);
	dev = list ? find_dev(list, argv[1]) : NULL;
	r.ctx = dev ? ibv_open_device(dev) : NULL;
	if (!r.ctx || ibv_query_device(r.ctx, &attr)) {
		report(0, "open", "%s: %s", argv[1], strerror(errno));
		return 1;
	}
	r.pd = ibv_alloc_pd(r.ctx);
	r.cq = ibv_create_cq(r.ctx, 16, NULL, NULL, 0);
	uda.send_cq = r.cq;
	uda.recv_cq = r.cq;
	r.ud = r.pd && r.cq ? ibv_create_qp(r.pd, &uda) : NULL;
	if (!r.ud) {
		report(0, "open", "PD, CQ and UD QP: %s", strerror(errno));
		return 1;
	}
	/* The tool's own PD, CQ and QP count against their limits. */
	one_kind(&r, PD, attr.max_pd - 1);
	one_kind(&r, CQ, attr.max_cq - 1);
	one_kind(&r, MR, attr.max_mr);
	one_kind(&r, QP, attr.max_qp - 1);
	one_kind(&r, SRQ, attr.max_srq);
	one_kind(&r, AH, attr.max_ah);
	one_kind(&r, MCAST, attr.max_mcast_grp);
	ibv_destroy_qp(r.ud);
	ibv_destroy_cq(r.cq);
	ibv_dealloc_pd(r.pd);
	ibv_close_device(r.ctx);
	ibv_free_device_list(list);
	return report_failures() ? 1 : 0;
}
