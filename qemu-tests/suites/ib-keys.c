// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib-keys: UD datagrams between two InfiniBand ports by LID, for the ib
 * suite's partition and Q_Key checks.
 *
 *   ib-keys FROM_DEV TO_DEV COUNT SIZE SEND_PKEY_INDEX RECV_PKEY_INDEX
 *           SEND_QKEY RECV_QKEY
 *
 * A UD QP on FROM_DEV (in the partition of SEND_PKEY_INDEX) sends COUNT
 * datagrams of SIZE bytes with Q_Key SEND_QKEY to a UD QP on TO_DEV (in the
 * partition of RECV_PKEY_INDEX, Q_Key RECV_QKEY), addressed by TO_DEV's LID
 * without a GRH.  Prints "sent N received M verified V" and exits 0 when
 * every send completed; what arrived is for the caller to judge (a P_Key or
 * Q_Key mismatch must deliver nothing).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

struct end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint16_t lid;
};

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

static int end_open(struct end *e, const char *dev, size_t bytes,
		    uint16_t pkey_index, uint32_t qkey)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 512,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {};
	struct ibv_port_attr port;

	e->ctx = open_dev(dev);
	if (!e->ctx || ibv_query_port(e->ctx, 1, &port)) {
		fprintf(stderr, "%s: cannot open\n", dev);
		return -1;
	}
	e->lid = port.lid;
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = e->pd ? ibv_create_cq(e->ctx, 1024, NULL, NULL, 0) : NULL;
	e->buf = calloc(1, bytes);
	e->mr = e->cq && e->buf ? ibv_reg_mr(e->pd, e->buf, bytes,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!e->mr)
		return -1;
	init.send_cq = e->cq;
	init.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &init);
	if (!e->qp)
		return -1;
	attr.qp_state = IBV_QPS_INIT;
	attr.pkey_index = pkey_index;
	attr.port_num = 1;
	attr.qkey = qkey;
	if (ibv_modify_qp(e->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY)) {
		fprintf(stderr, "%s: INIT with P_Key index %u: %s\n", dev,
			pkey_index, strerror(errno));
		return -1;
	}
	attr.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(e->qp, &attr, IBV_QP_STATE))
		return -1;
	attr.qp_state = IBV_QPS_RTS;
	attr.sq_psn = 1;
	return ibv_modify_qp(e->qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct end from = {}, to = {};
	unsigned int count, size, i, sent = 0, received = 0, verified = 0;
	uint32_t send_qkey;
	struct ibv_ah *ah;
	struct ibv_ah_attr ah_attr = { .port_num = 1 };
	double deadline;

	if (argc != 9) {
		fprintf(stderr, "usage: %s FROM_DEV TO_DEV COUNT SIZE SEND_PKEY_INDEX RECV_PKEY_INDEX SEND_QKEY RECV_QKEY\n",
			argv[0]);
		return 2;
	}
	count = strtoul(argv[3], NULL, 0);
	size = strtoul(argv[4], NULL, 0);
	send_qkey = strtoul(argv[7], NULL, 0);
	if (!count || count > 500 || !size || size > 2048)
		return 2;
	if (end_open(&from, argv[1], (size_t)size * count,
		     strtoul(argv[5], NULL, 0), 0x11) ||
	    end_open(&to, argv[2], (size_t)(40 + size) * count,
		     strtoul(argv[6], NULL, 0), strtoul(argv[8], NULL, 0)))
		return 1;
	for (i = 0; i < count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)to.buf + (size_t)i * (40 + size),
			.length = 40 + size, .lkey = to.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(to.qp, &wr, &bad))
			return 1;
	}
	ah_attr.dlid = to.lid;
	ah = ibv_create_ah(from.pd, &ah_attr);
	if (!ah) {
		fprintf(stderr, "ibv_create_ah to LID %u: %s\n", to.lid,
			strerror(errno));
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)from.buf + (size_t)i * size,
			.length = size, .lkey = from.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = to.qp->qp_num,
				   .remote_qkey = send_qkey } }, *bad;
		struct ibv_wc wc;
		int n;

		memset(from.buf + (size_t)i * size, (int)(i * 7 + 1), size);
		if (ibv_post_send(from.qp, &wr, &bad))
			return 1;
		deadline = now() + 5;
		while ((n = ibv_poll_cq(from.cq, 1, &wc)) == 0 && now() < deadline)
			;
		if (n != 1 || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "send %u: %s\n", i,
				n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
			return 1;
		}
		sent++;
	}
	deadline = now() + 3;
	while (received < count && now() < deadline) {
		struct ibv_wc wc;

		if (ibv_poll_cq(to.cq, 1, &wc) != 1)
			continue;
		received++;
		if (wc.status == IBV_WC_SUCCESS && wc.byte_len == 40 + size &&
		    wc.slid == from.lid && !(wc.wc_flags & IBV_WC_GRH)) {
			const uint8_t *got = to.buf + wc.wr_id * (40 + size) + 40;
			unsigned int k;

			for (k = 0; k < size && got[k] == (uint8_t)(wc.wr_id * 7 + 1); k++)
				;
			verified += k == size;
		}
	}
	printf("sent %u received %u verified %u\n", sent, received, verified);
	return 0;
}
