// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Helpers shared by the provider test tools; see provider-lib.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "provider-lib.h"

int failed;

void report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s ", ok ? "PASS" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failed = 1;
}

struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

int side_open(struct side *s, struct ibv_device *dev)
{
	int i;

	s->name = ibv_get_device_name(dev);
	s->ctx = ibv_open_device(dev);
	if (!s->ctx)
		return -1;
	if (ibv_query_device(s->ctx, &s->attr))
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (!s->pd || !s->buf)
		return -1;
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	s->ch = ibv_create_comp_channel(s->ctx);
	if (!s->mr || !s->ch)
		return -1;
	s->cq = ibv_create_cq(s->ctx, 256, NULL, s->ch, 0);
	if (!s->cq)
		return -1;
	/* The first non-zero GID: the default link-local one. */
	s->gid_index = -1;
	for (i = 0; i < 16; i++) {
		union ibv_gid g;

		if (ibv_query_gid(s->ctx, 1, i, &g))
			break;
		if (g.global.subnet_prefix || g.global.interface_id) {
			s->gid = g;
			s->gid_index = i;
			break;
		}
	}
	return 0;
}

void side_close(struct side *s)
{
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->ch)
		ibv_destroy_comp_channel(s->ch);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	free(s->buf);
	if (s->ctx)
		ibv_close_device(s->ctx);
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Poll one completion within POLL_MS; 1 when found. */
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	long long end = now_ms() + POLL_MS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0;
		usleep(100);
	} while (now_ms() < end);
	return 0;
}

struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type,
		       struct ibv_cq *cq, struct ibv_srq *srq,
		       uint32_t wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = wr,
			.max_send_sge = sge,
			.max_recv_sge = sge,
			.max_inline_data = inl,
		},
	};

	return ibv_create_qp(s->pd, &a);
}

int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = QKEY,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &a, mask);
}

/* RC: INIT -> RTR -> RTS towards (gid, dest_qpn); UD: INIT -> RTR -> RTS. */
int connect_qp(struct ibv_qp *qp, const struct side *local,
	       const union ibv_gid *dgid, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {};
	int err;

	err = to_init(qp);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTR;
	if (qp->qp_type == IBV_QPT_UD) {
		err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
		if (err)
			return err;
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = 0;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *dgid;
	a.ah_attr.grh.sgid_index = local->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

void expect_errno(const char *name, int got_null, int err, int want,
		  const char *what)
{
	report(got_null && err == want, name, "%s: %s (errno %d %s, want %s)",
	       what, got_null ? "refused" : "ACCEPTED", err, strerror(err),
	       strerror(want));
}

int check_wc(const char *tag, const char *name, struct ibv_cq *cq,
	     uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
	     unsigned int flags, uint32_t qpn, struct ibv_wc *out)
{
	char n[64];
	struct ibv_wc wc;

	snprintf(n, sizeof(n), "%s-%s", tag, name);
	if (!poll_one(cq, &wc)) {
		report(0, n, "no completion for wr_id %#llx within %d ms",
		       (unsigned long long)wr_id, POLL_MS);
		return -1;
	}
	if (out)
		*out = wc;
	/* byte_len is defined for receives, READs and atomics (cqe.rst). */
	if (op == IBV_WC_SEND || op == IBV_WC_RDMA_WRITE)
		len = wc.byte_len;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != op || wc.byte_len != len ||
	    (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_GRH)) != flags ||
	    wc.qp_num != qpn) {
		report(0, n, "wc: status %s wr_id %#llx opcode %d byte_len %u flags %#x qp %u; want wr_id %#llx opcode %d byte_len %u flags %#x qp %u",
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len,
		       wc.wc_flags, wc.qp_num, (unsigned long long)wr_id, op,
		       len, flags, qpn);
		return -1;
	}
	return 0;
}

int post1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	  unsigned int flags, struct ibv_sge *sge, int nsge,
	  uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .send_flags = flags,
		.sg_list = sge, .num_sge = nsge,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0xa5a5a5a5);
	return ibv_post_send(qp, &wr, &bad);
}

int postr(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}


int pair_cqs(struct pair *p)
{
	if (!p->ca)
		p->ca = ibv_create_cq(p->a->ctx, 64, NULL, NULL, 0);
	if (!p->cb)
		p->cb = ibv_create_cq(p->b->ctx, 64, NULL, NULL, 0);
	return p->ca && p->cb ? 0 : -1;
}

int rc_pair(struct pair *p, struct ibv_srq *srq_b)
{
	if (pair_cqs(p))
		return -1;
	p->qa = make_qp(p->a, IBV_QPT_RC, p->ca, NULL, 32, 2, 128);
	p->qb = make_qp(p->b, IBV_QPT_RC, p->cb, srq_b, 32, 2, 128);
	if (!p->qa || !p->qb || p->a->gid_index < 0 || p->b->gid_index < 0)
		return -1;
	if (connect_qp(p->qa, p->a, &p->b->gid, p->qb->qp_num) ||
	    connect_qp(p->qb, p->b, &p->a->gid, p->qa->qp_num))
		return -1;
	return 0;
}

void pair_free(struct pair *p)
{
	if (p->qa)
		ibv_destroy_qp(p->qa);
	if (p->qb)
		ibv_destroy_qp(p->qb);
	if (p->ca)
		ibv_destroy_cq(p->ca);
	if (p->cb)
		ibv_destroy_cq(p->cb);
	p->qa = p->qb = NULL;
	p->ca = p->cb = NULL;
}

long long hw_counter(const char *dev, const char *name)
{
	char path[256];

	/*
	 * The RDMA core serves hw_counters from a snapshot up to 10 ms old
	 * (rdma_hw_stats.lifespan): wait that out so the value is read after
	 * what came before.
	 */
	usleep(30 * 1000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	return read_number(path);
}

long long read_number(const char *path)
{
	long long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
