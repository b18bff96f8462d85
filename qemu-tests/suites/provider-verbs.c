// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider-verbs: exercise the ornic rdma-core provider through libibverbs.
 *
 *   provider-verbs IBDEV [PEER_IBDEV]
 *
 * Control path and queue handling, which need no packet engine:
 *   open (vendor/part IDs), PD, MR (lkey == rkey), CQ/QP/SRQ/AH create and
 *   destroy with the limits the provider grants, bad input rejected with
 *   the verbs errno and bad_wr, a send queue filled to exactly its
 *   max_send_wr (then ENOMEM), an SRQ filled to its max_wr, and the move to
 *   ERR flushing every WQE in order with WR_FLUSH_ERR (wr_id, qp_num,
 *   opcode), read through ibv_poll_cq, ibv_cq_ex and a completion channel
 *   event; ibv_wr_* posts flushed the same way.
 * Data (needs the model's packet engine): RC loopback on IBDEV and RC between
 *   IBDEV and PEER_IBDEV: SEND (two SGEs), SEND_WITH_IMM, inline SEND,
 *   RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ, ATOMIC_CMP_AND_SWP,
 *   ATOMIC_FETCH_AND_ADD, unsignaled WQEs retired by a signaled one, SRQ
 *   receive and UD SEND with an AH (GRH, byte_len + 40, src_qp); data and
 *   every wc field checked.
 *
 * Prints one "PASS|FAIL name details" line per check; exit status 0 when all
 * passed, 1 when a check failed.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>

#include "../../include/ornic/ornic_hw.h"

#define BUF_SIZE	65536
#define POLL_MS		10000
#define QKEY		0x11111111u

static int failed;

static void report(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(int ok, const char *name, const char *fmt, ...)
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

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

/* One device: context, PD, a registered buffer, a CQ and its GID. */
struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
};

static int side_open(struct side *s, struct ibv_device *dev)
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

static void side_close(struct side *s)
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

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Poll one completion within POLL_MS; 1 when found. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
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

static struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type,
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

static int to_init(struct ibv_qp *qp)
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
static int connect_qp(struct ibv_qp *qp, const struct side *local,
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

static int to_err(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

static void expect_errno(const char *name, int got_null, int err, int want,
			 const char *what)
{
	report(got_null && err == want, name, "%s: %s (errno %d %s, want %s)",
	       what, got_null ? "refused" : "ACCEPTED", err, strerror(err),
	       strerror(want));
}

/* --- object limits and bad input ---------------------------------------- */

static void test_objects(struct side *s)
{
	struct ibv_cq_init_attr_ex cqa = {};
	struct ibv_qp_init_attr qa = {};
	struct ibv_srq_init_attr sa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_srq *srq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;

	mr = ibv_reg_mr(s->pd, s->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	report(mr && mr->lkey == mr->rkey && !ibv_dereg_mr(mr), "mr",
	       "reg 4 KiB: lkey %#x rkey %#x, dereg", mr ? mr->lkey : 0,
	       mr ? mr->rkey : 0);

	errno = 0;
	cq = ibv_create_cq(s->ctx, 0, NULL, NULL, 0);
	expect_errno("cq-zero", !cq, errno, EINVAL, "ibv_create_cq(cqe 0)");
	errno = 0;
	cq = ibv_create_cq(s->ctx, s->attr.max_cqe + 1, NULL, NULL, 0);
	expect_errno("cq-too-big", !cq, errno, EINVAL,
		     "ibv_create_cq(max_cqe + 1)");
	cq = ibv_create_cq(s->ctx, s->attr.max_cqe, NULL, NULL, 0);
	report(cq && cq->cqe >= s->attr.max_cqe && !ibv_destroy_cq(cq),
	       "cq-max", "ibv_create_cq(max_cqe %d): cqe %d, destroyed",
	       s->attr.max_cqe, cq ? cq->cqe : -1);
	cqa.cqe = 16;
	cqa.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	cqx = ibv_create_cq_ex(s->ctx, &cqa);
	expect_errno("cq-ex-timestamp", !cqx, errno, EOPNOTSUPP,
		     "ibv_create_cq_ex(WITH_COMPLETION_TIMESTAMP)");

	qp = make_qp(s, IBV_QPT_RC, s->cq, NULL, 64, 2, 64);
	if (!qp) {
		report(0, "qp-rc", "ibv_create_qp(RC, 64 wr, 2 sge, 64 inline): %s",
		       strerror(errno));
	} else {
		struct ibv_qp_init_attr ia;
		struct ibv_qp_attr at;
		int err = ibv_query_qp(qp, &at, IBV_QP_STATE | IBV_QP_CAP, &ia);

		report(!err && at.qp_state == IBV_QPS_RESET &&
		       at.cap.max_send_wr >= 64 && at.cap.max_send_sge >= 2 &&
		       at.cap.max_inline_data >= 64 && at.cap.max_recv_wr >= 64,
		       "qp-rc", "qpn %u, query: state %d, send %u wr/%u sge/%u inline, recv %u wr/%u sge",
		       qp->qp_num, at.qp_state, at.cap.max_send_wr,
		       at.cap.max_send_sge, at.cap.max_inline_data,
		       at.cap.max_recv_wr, at.cap.max_recv_sge);
		report(!ibv_destroy_qp(qp), "qp-rc-destroy", "destroyed");
	}

	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = s->attr.max_sge + 1;
	errno = 0;
	qp = ibv_create_qp(s->pd, &qa);
	expect_errno("qp-too-many-sge", !qp, errno, EINVAL,
		     "ibv_create_qp(max_send_sge = max_sge + 1)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.cap.max_send_sge = 1;
	qa.cap.max_inline_data = 4096;
	errno = 0;
	qp = ibv_create_qp(s->pd, &qa);
	expect_errno("qp-inline-too-big", !qp, errno, EINVAL,
		     "ibv_create_qp(max_inline_data 4096)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.cap.max_inline_data = 0;
	qa.cap.max_send_wr = s->attr.max_qp_wr + 1;
	errno = 0;
	qp = ibv_create_qp(s->pd, &qa);
	expect_errno("qp-too-deep", !qp, errno, EINVAL,
		     "ibv_create_qp(max_send_wr = max_qp_wr + 1)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.cap.max_send_wr = 4;
	qa.qp_type = IBV_QPT_UC;
	errno = 0;
	qp = ibv_create_qp(s->pd, &qa);
	expect_errno("qp-uc", !qp, errno, EOPNOTSUPP, "ibv_create_qp(UC)");
	if (qp)
		ibv_destroy_qp(qp);

	qp = make_qp(s, IBV_QPT_UD, s->cq, NULL, 16, 1, 0);
	report(qp && !ibv_destroy_qp(qp), "qp-ud", "ibv_create_qp(UD): %s",
	       qp ? "created and destroyed" : strerror(errno));

	sa.attr.max_wr = s->attr.max_srq_wr + 1;
	sa.attr.max_sge = 1;
	errno = 0;
	srq = ibv_create_srq(s->pd, &sa);
	expect_errno("srq-too-deep", !srq, errno, EINVAL,
		     "ibv_create_srq(max_srq_wr + 1)");
	if (srq)
		ibv_destroy_srq(srq);
	sa.attr.max_wr = 32;
	sa.attr.max_sge = 2;
	srq = ibv_create_srq(s->pd, &sa);
	if (!srq) {
		report(0, "srq", "ibv_create_srq(32 wr, 2 sge): %s",
		       strerror(errno));
	} else {
		struct ibv_srq_attr at;
		int err = ibv_query_srq(srq, &at);

		report(!err && sa.attr.max_wr >= 32 && at.max_wr == sa.attr.max_wr &&
		       at.max_sge >= 2, "srq",
		       "granted %u wr/%u sge, query %u wr/%u sge",
		       sa.attr.max_wr, sa.attr.max_sge, at.max_wr, at.max_sge);
		report(!ibv_destroy_srq(srq), "srq-destroy", "destroyed");
	}

	if (s->gid_index >= 0) {
		struct ibv_ah_attr ah = {
			.is_global = 1,
			.port_num = 1,
			.grh = { .dgid = s->gid, .sgid_index = s->gid_index,
				 .hop_limit = 64 },
		};
		struct ibv_ah *h = ibv_create_ah(s->pd, &ah);

		report(h && !ibv_destroy_ah(h), "ah",
		       "ibv_create_ah(own GID %d): %s", s->gid_index,
		       h ? "created and destroyed" : strerror(errno));
		ah.is_global = 0;
		errno = 0;
		h = ibv_create_ah(s->pd, &ah);
		expect_errno("ah-no-grh", !h, errno, EINVAL,
			     "ibv_create_ah without GRH on RoCE");
		if (h)
			ibv_destroy_ah(h);
	} else {
		report(0, "ah", "no GID on %s port 1", s->name);
	}
}

/* --- posting checks, full queues, flush ------------------------------------ */

static void test_post_checks(struct side *s, struct ibv_qp *qp)
{
	struct ibv_sge sge[8];
	struct ibv_send_wr wr[2], *bad;
	int i, err;

	for (i = 0; i < 8; i++) {
		sge[i].addr = (uintptr_t)s->buf + 64 * i;
		sge[i].length = 8;
		sge[i].lkey = s->mr->lkey;
	}
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 1;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].wr_id = 2;
	wr[1].next = NULL;

	/* The first WR is fine, the second is bad: only the second fails. */
	wr[1].num_sge = 8;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[1], "post-too-many-sge",
	       "second WR with 8 SGEs on a 2-SGE QP: %s, bad_wr %s", strerror(err),
	       bad == &wr[1] ? "= that WR" : "wrong");
	wr[1].num_sge = 1;

	wr[0].next = NULL;
	wr[0].send_flags = IBV_SEND_INLINE;
	sge[0].length = 4096;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-inline-too-long",
	       "4096-byte inline SEND: %s", strerror(err));
	sge[0].length = 8;

	wr[0].opcode = IBV_WR_RDMA_READ;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-inline-read",
	       "inline RDMA_READ: %s", strerror(err));
	wr[0].send_flags = 0;

	wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[0].wr.atomic.remote_addr = (uintptr_t)s->buf + 4;
	wr[0].wr.atomic.rkey = s->mr->rkey;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-atomic-unaligned",
	       "FETCH_AND_ADD at a 4-byte aligned address: %s", strerror(err));
	wr[0].wr.atomic.remote_addr = (uintptr_t)s->buf;
	sge[0].length = 4;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-atomic-short-sge",
	       "FETCH_AND_ADD into a 4-byte SGE: %s", strerror(err));
	sge[0].length = 8;

	wr[0].opcode = IBV_WR_LOCAL_INV;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-bad-opcode",
	       "LOCAL_INV: %s", strerror(err));
	wr[0].opcode = IBV_WR_SEND;
}

/* Post-time checks on a loopback QP with its own CQ and no receives. */
static void test_post_checks_qp(struct side *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				  .num_sge = 1 }, *bad = NULL;
	struct ibv_cq *cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(s, IBV_QPT_RC, cq, NULL, 8, 2, 64) :
				 NULL;
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;
	int err;

	if (!qp) {
		report(0, "post-checks", "QP setup: %s", strerror(errno));
		goto out;
	}
	err = ibv_post_send(qp, &wr, &bad);
	report(err == EINVAL && bad == &wr, "post-send-reset",
	       "post_send in RESET: %s", strerror(err));
	if (s->gid_index < 0 || connect_qp(qp, s, &s->gid, qp->qp_num)) {
		report(0, "qp-rts", "cannot bring the QP to RTS: %s",
		       strerror(errno));
		goto out;
	}
	ibv_query_qp(qp, &at, IBV_QP_STATE, &ia);
	report(at.qp_state == IBV_QPS_RTS, "qp-rts",
	       "loopback RC QP %u: state %d after INIT/RTR/RTS", qp->qp_num,
	       at.qp_state);
	test_post_checks(s, qp);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
}

/*
 * QP X sends to QP Y, which never posts a receive: X's SENDs wait for RNR
 * retries (rnr_retry 7 = forever) with or without a packet engine, so X's
 * SQ can be filled, and its RQ too (Y sends nothing).  Moving X to ERR then
 * flushes every WQE in order.
 */
static void test_full_and_flush(struct side *s)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey,
	};
	struct ibv_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct ibv_cq *ycq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp, *y = NULL;
	struct ibv_cq *evcq;
	struct ibv_wc wc;
	unsigned int i, posted = 0, flushed = 0, order_ok = 1;
	int err;
	void *ctx;

	qp = ibv_create_qp(s->pd, &ia);
	if (ycq)
		y = make_qp(s, IBV_QPT_RC, ycq, NULL, 4, 1, 0);
	if (!qp || !y || s->gid_index < 0 ||
	    connect_qp(qp, s, &s->gid, y->qp_num) ||
	    connect_qp(y, s, &s->gid, qp->qp_num)) {
		report(0, "full", "QP pair setup: %s", strerror(errno));
		goto out;
	}
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;

	/* Fill: every WQE is 2 blocks, so exactly max_send_wr fit. */
	for (i = 0; i < ia.cap.max_send_wr + 4; i++) {
		wr.wr_id = 1000 + i;
		wr.send_flags = (i % 4 == 3) ? IBV_SEND_SIGNALED : 0;
		bad = NULL;
		err = ibv_post_send(qp, &wr, &bad);
		if (err)
			break;
		posted++;
	}
	report(posted == ia.cap.max_send_wr && err == ENOMEM && bad == &wr,
	       "sq-full", "%u of %u WQEs posted, then %s (want ENOMEM)",
	       posted, ia.cap.max_send_wr, strerror(err));

	for (i = 0; i < ia.cap.max_recv_wr + 4; i++) {
		rwr.wr_id = 5000 + i;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		rbad = NULL;
		err = ibv_post_recv(qp, &rwr, &rbad);
		if (err)
			break;
	}
	report(i == ia.cap.max_recv_wr && err == ENOMEM, "rq-full",
	       "%u of %u receive WQEs posted, then %s", i,
	       ia.cap.max_recv_wr, strerror(err));

	/* Arm, then flush: the flush CQEs must raise the event. */
	err = ibv_req_notify_cq(s->cq, 0);
	if (!err)
		err = to_err(qp);
	report(!err, "qp-err", "req_notify_cq + modify to ERR: %s",
	       strerror(err));
	{
		struct pollfd pfd = { .fd = s->ch->fd, .events = POLLIN };
		int n = poll(&pfd, 1, POLL_MS);

		err = n == 1 ? ibv_get_cq_event(s->ch, &evcq, &ctx) : -1;
		report(!err && evcq == s->cq, "cq-event",
		       "completion channel event after arming: %s",
		       n == 1 ? (err ? "get_cq_event failed" : "received") :
				"none within 10 s");
		if (!err)
			ibv_ack_cq_events(evcq, 1);
	}

	{
		unsigned int rflushed = 0;
		long long end = now_ms() + POLL_MS;

		while ((flushed < posted || rflushed < ia.cap.max_recv_wr) &&
		       now_ms() < end) {
			if (ibv_poll_cq(s->cq, 1, &wc) != 1) {
				usleep(100);
				continue;
			}
			if (wc.opcode & IBV_WC_RECV) {
				if (wc.wr_id != 5000 + rflushed ||
				    wc.status != IBV_WC_WR_FLUSH_ERR)
					order_ok = 0;
				rflushed++;
				continue;
			}
			if (wc.wr_id != 1000 + flushed ||
			    wc.status != IBV_WC_WR_FLUSH_ERR ||
			    wc.qp_num != qp->qp_num)
				order_ok = 0;
			flushed++;
		}
		report(flushed == posted && rflushed == ia.cap.max_recv_wr &&
		       order_ok, "flush",
		       "%u/%u send and %u/%u receive WQEs flushed, in order, WR_FLUSH_ERR, qp_num: %s",
		       flushed, posted, rflushed, ia.cap.max_recv_wr,
		       order_ok ? "ok" : "WRONG");
	}

	/* The flushed WQEs are retired: the queue takes max_send_wr again. */
	for (i = 0, err = 0; i < ia.cap.max_send_wr && !err; i++) {
		wr.wr_id = 2000 + i;
		wr.send_flags = IBV_SEND_SIGNALED;
		err = ibv_post_send(qp, &wr, &bad);
	}
	report(!err, "sq-reuse", "%u WQEs posted after the flush: %s", i,
	       strerror(err));
	for (i = 0; i < ia.cap.max_send_wr && poll_one(s->cq, &wc); i++)
		;
	report(i == ia.cap.max_send_wr, "flush-in-err",
	       "%u/%u WQEs posted in ERR flushed", i, ia.cap.max_send_wr);
	report(!ibv_destroy_qp(qp), "full-destroy", "QP destroyed");
	qp = NULL;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (y)
		ibv_destroy_qp(y);
	if (ycq)
		ibv_destroy_cq(ycq);
}

/*
 * Moving a QP to RESET drops its unpolled CQEs and keeps those of another
 * QP on the same CQ, in order: B is flushed first, then A, then A is reset.
 */
static void test_reset_clean(struct side *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	struct ibv_cq *cq = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[16];
	int i, n, got = 0, ok = 1;

	if (cq) {
		qa = make_qp(s, IBV_QPT_RC, cq, NULL, 8, 1, 0);
		qb = make_qp(s, IBV_QPT_RC, cq, NULL, 8, 1, 0);
	}
	if (!qa || !qb || s->gid_index < 0 ||
	    connect_qp(qa, s, &s->gid, qa->qp_num) ||
	    connect_qp(qb, s, &s->gid, qb->qp_num)) {
		report(0, "reset-clean", "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 3; i++) {
		wr.wr_id = 0xa0 + i;
		ibv_post_send(qa, &wr, &bad);
		wr.wr_id = 0xb0 + i;
		ibv_post_send(qb, &wr, &bad);
	}
	to_err(qb);
	to_err(qa);
	if (ibv_modify_qp(qa, &at, IBV_QP_STATE)) {
		report(0, "reset-clean", "modify to RESET: %s",
		       strerror(errno));
		goto out;
	}
	usleep(100000);
	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++, got++)
			if (got >= 3 || wc[i].wr_id != 0xb0 + (uint64_t)got ||
			    wc[i].qp_num != qb->qp_num)
				ok = 0;
	}
	report(ok && got == 3, "reset-clean",
	       "after flushing B then A and resetting A: %d completions, B's 3 in order only: %s",
	       got, ok && got == 3 ? "yes" : "NO");
	ok = !to_init(qa);
	wr.wr_id = 0xa9;
	report(ok && ibv_post_send(qa, &wr, &bad) == EINVAL, "reset-reinit",
	       "the reset QP goes back to INIT (sends refused there)");
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (cq)
		ibv_destroy_cq(cq);
}

/*
 * What a post costs: 256 sends posted one per call (one doorbell each) and
 * 256 in lists of 16 (one doorbell per list), on a QP whose peer never
 * receives, so nothing completes meanwhile.  Informational numbers; the
 * check is that every post is accepted.
 */
static void test_post_cost(struct side *s)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr[16], *bad;
	struct ibv_cq *cq = ibv_create_cq(s->ctx, 1024, NULL, NULL, 0);
	struct ibv_qp *x = NULL, *y = NULL;
	struct timespec t0, t1, t2;
	double one, list;
	int i, err = 0;

	if (cq) {
		x = make_qp(s, IBV_QPT_RC, cq, NULL, 512, 1, 0);
		y = make_qp(s, IBV_QPT_RC, cq, NULL, 4, 1, 0);
	}
	if (!x || !y || s->gid_index < 0 ||
	    connect_qp(x, s, &s->gid, y->qp_num) ||
	    connect_qp(y, s, &s->gid, x->qp_num)) {
		report(0, "post-cost", "setup: %s", strerror(errno));
		goto out;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 16; i++) {
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 15 ? &wr[i + 1] : NULL;
	}
	wr[15].send_flags = IBV_SEND_SIGNALED;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 256 && !err; i++) {
		struct ibv_send_wr w = wr[15];

		err = ibv_post_send(x, &w, &bad);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (i = 0; i < 16 && !err; i++)
		err = ibv_post_send(x, wr, &bad);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	one = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	      256 / 1000;
	list = ((t2.tv_sec - t1.tv_sec) * 1e9 + (t2.tv_nsec - t1.tv_nsec)) /
	       256 / 1000;
	report(!err, "post-cost",
	       "ibv_post_send: %.1f us per WQE one per call, %.1f us per WQE in lists of 16 (TCG guest)%s%s",
	       one, list, err ? ": " : "", err ? strerror(err) : "");
out:
	if (x)
		ibv_destroy_qp(x);
	if (y)
		ibv_destroy_qp(y);
	if (cq)
		ibv_destroy_cq(cq);
}

/* ibv_wr_* posting and ibv_cq_ex polling, checked through the flush. */
static void test_ex(struct side *s)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_BYTE_LEN |
			    IBV_WC_EX_WITH_IMM,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 32 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_qp_ex *qpx;
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qp;
	unsigned int n = 0, ok = 1;
	char inl[16] = "inline-data";
	int err;

	cqx = ibv_create_cq_ex(s->ctx, &ca);
	if (!cqx) {
		report(0, "cq-ex", "ibv_create_cq_ex: %s", strerror(errno));
		return;
	}
	qa.pd = s->pd;
	qa.send_cq = ibv_cq_ex_to_cq(cqx);
	qa.recv_cq = ibv_cq_ex_to_cq(cqx);
	qa.send_ops_flags |= IBV_QP_EX_WITH_BIND_MW;
	errno = 0;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	expect_errno("qp-ex-bind-mw", !qp, errno, EOPNOTSUPP,
		     "ibv_create_qp_ex(send_ops_flags with BIND_MW)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.send_ops_flags &= ~(uint64_t)IBV_QP_EX_WITH_BIND_MW;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	if (!qp || s->gid_index < 0 ||
	    connect_qp(qp, s, &s->gid, qp->qp_num)) {
		report(0, "qp-ex", "create/connect: %s", strerror(errno));
		goto out;
	}
	qpx = ibv_qp_to_qp_ex(qp);

	/* A batch with an error posts nothing. */
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, s->mr->lkey, (uintptr_t)s->buf, 8);
	qpx->wr_id = 2;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, s->buf, 4096);
	err = ibv_wr_complete(qpx);
	report(err == EINVAL, "wr-batch-error",
	       "wr_complete of a batch with a 4096-byte inline WR: %s",
	       strerror(err));

	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, s->mr->lkey, (uintptr_t)s->buf, 8);
	qpx->wr_id = 11;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, s->mr->rkey, (uintptr_t)s->buf + 1024);
	ibv_wr_set_inline_data(qpx, inl, sizeof(inl));
	qpx->wr_id = 12;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htonl(0x1234));
	ibv_wr_set_sge(qpx, s->mr->lkey, (uintptr_t)s->buf, 8);
	err = ibv_wr_complete(qpx);
	report(!err, "wr-post", "wr_send + wr_rdma_write inline + wr_send_imm: %s",
	       strerror(err));

	/* With the engine these may complete before the flush; either way
	 * the three arrive in order (12 retires the unsignaled 11 unless
	 * flushed on its own).
	 */
	to_err(qp);
	{
		long long end = now_ms() + POLL_MS;
		uint64_t want[] = { 10, 11, 12 };
		unsigned int k = 0;

		while (now_ms() < end && k < 3) {
			err = ibv_start_poll(cqx, &pa);
			if (err == ENOENT) {
				usleep(100);
				continue;
			}
			if (err) {
				ok = 0;
				break;
			}
			do {
				/* A successful unsignaled 11 has no CQE. */
				if (k == 1 && cqx->wr_id == 12 &&
				    cqx->status == IBV_WC_SUCCESS)
					k++;
				if (k >= 3 || cqx->wr_id != want[k] ||
				    ibv_wc_read_qp_num(cqx) != qp->qp_num)
					ok = 0;
				k++;
				n++;
			} while (k < 3 && !ibv_next_poll(cqx));
			ibv_end_poll(cqx);
		}
		report(ok && k == 3, "cq-ex-poll",
		       "%u completions via start/next/end_poll, wr_ids in order, qp_num: %s",
		       n, ok && k == 3 ? "ok" : "WRONG");
	}
out:
	if (qp)
		ibv_destroy_qp(qp);
	report(!ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "cq-ex-destroy",
	       "destroyed");
}

static void test_srq_full(struct side *s)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 64, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	unsigned int i;
	int err = 0;

	srq = ibv_create_srq(s->pd, &sa);
	if (!srq) {
		report(0, "srq-full", "ibv_create_srq: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sa.attr.max_wr + 4; i++) {
		wr.wr_id = i;
		err = ibv_post_srq_recv(srq, &wr, &bad);
		if (err)
			break;
	}
	report(i == sa.attr.max_wr && err == ENOMEM, "srq-full",
	       "%u of %u SRQ WQEs posted, then %s", i, sa.attr.max_wr,
	       strerror(err));
	{
		struct ibv_sge many[16];

		for (i = 0; i < 16; i++)
			many[i] = sge;
		wr.sg_list = many;
		wr.num_sge = sa.attr.max_sge + 1;
		err = ibv_post_srq_recv(srq, &wr, &bad);
		report(err == EINVAL && bad == &wr, "srq-too-many-sge",
		       "%d SGEs on a %u-SGE SRQ: %s", wr.num_sge,
		       sa.attr.max_sge, strerror(err));
		wr.sg_list = &sge;
	}
	qp = make_qp(s, IBV_QPT_RC, s->cq, srq, 4, 1, 0);
	report(qp != NULL, "qp-srq", "RC QP on the SRQ: %s",
	       qp ? "created" : strerror(errno));
	if (qp) {
		struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 };

		err = ibv_post_recv(qp, &rw, &bad);
		report(err == EINVAL, "qp-srq-post-recv",
		       "post_recv on a QP with an SRQ: %s", strerror(err));
		ibv_destroy_qp(qp);
	}
	report(!ibv_destroy_srq(srq), "srq-full-destroy", "destroyed");
}

/* --- data ---------------------------------------------------------------- */

/* Two QPs with a CQ each: completions of one QP arrive in order. */
struct pair {
	const char *tag;
	struct side *a, *b;
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
};

static int check_wc(const char *tag, const char *name, struct ibv_cq *cq,
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

static int post1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
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

static int postr(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
		 uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

static void test_data_rc(struct pair *p)
{
	struct side *a = p->a, *b = p->b;
	uint8_t *src = a->buf, *dst = b->buf;
	uint32_t qa = p->qa->qp_num, qb = p->qb->qp_num;
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	char n[64];
	uint64_t v;
	int i;

	/* SEND with two SGEs into one receive buffer. */
	fill(src, 3000, 1);
	memset(dst + 8192, 0, 4096);
	postr(p->qb, 0xb1, dst + 8192, 4096, b->mr->lkey);
	sge[0] = (struct ibv_sge){ (uintptr_t)src, 1000, a->mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)src + 1000, 2000, a->mr->lkey };
	if (post1(p->qa, 0xa1, IBV_WR_SEND, IBV_SEND_SIGNALED, sge, 2, 0, 0)) {
		snprintf(n, sizeof(n), "%s-send", p->tag);
		report(0, n, "post_send failed");
		return;
	}
	if (!check_wc(p->tag, "send", p->ca, 0xa1, IBV_WC_SEND, 0, 0, qa, NULL) &&
	    !check_wc(p->tag, "send-recv", p->cb, 0xb1, IBV_WC_RECV, 3000, 0, qb,
		      NULL)) {
		snprintf(n, sizeof(n), "%s-send", p->tag);
		report(!memcmp(dst + 8192, src, 3000), n,
		       "3000 bytes from 2 SGEs: data %s",
		       memcmp(dst + 8192, src, 3000) ? "DIFFERS" : "equal");
	} else {
		return;	/* no engine or broken: the rest would only time out */
	}

	/* SEND_WITH_IMM, inline. */
	fill(src + 4096, 100, 2);
	postr(p->qb, 0xb2, dst + 8192, 4096, b->mr->lkey);
	sge[0] = (struct ibv_sge){ (uintptr_t)src + 4096, 100, a->mr->lkey };
	if (!post1(p->qa, 0xa2, IBV_WR_SEND_WITH_IMM,
		   IBV_SEND_SIGNALED | IBV_SEND_INLINE, sge, 1, 0, 0) &&
	    !check_wc(p->tag, "send-imm", p->ca, 0xa2, IBV_WC_SEND, 0, 0, qa,
		      NULL) &&
	    !check_wc(p->tag, "send-imm-recv", p->cb, 0xb2, IBV_WC_RECV, 100,
		      IBV_WC_WITH_IMM, qb, &wc)) {
		snprintf(n, sizeof(n), "%s-send-imm-inline", p->tag);
		report(!memcmp(dst + 8192, src + 4096, 100) &&
		       wc.imm_data == htonl(0xa5a5a5a5), n,
		       "inline 100 bytes, imm %#x: %s", ntohl(wc.imm_data),
		       memcmp(dst + 8192, src + 4096, 100) ? "data DIFFERS" :
							      "data equal");
	}

	/* Unsignaled RDMA_WRITEs then a signaled one: one CQE retires all. */
	fill(src, 8192, 3);
	for (i = 0; i < 3; i++) {
		sge[0] = (struct ibv_sge){ (uintptr_t)src + i * 2048, 2048,
					   a->mr->lkey };
		post1(p->qa, 0xa30 + i, IBV_WR_RDMA_WRITE,
		      i == 2 ? IBV_SEND_SIGNALED : 0, sge, 1,
		      (uintptr_t)dst + 16384 + i * 2048, b->mr->rkey);
	}
	if (!check_wc(p->tag, "write", p->ca, 0xa32, IBV_WC_RDMA_WRITE, 0, 0,
		      qa, NULL)) {
		snprintf(n, sizeof(n), "%s-write", p->tag);
		report(!memcmp(dst + 16384, src, 6144), n,
		       "3 WRITEs of 2048 (2 unsignaled), one CQE: data %s",
		       memcmp(dst + 16384, src, 6144) ? "DIFFERS" : "equal");
	}

	/* RDMA_WRITE_WITH_IMM consumes a receive with byte_len 0... of data. */
	fill(src, 512, 4);
	postr(p->qb, 0xb4, dst + 8192, 16, b->mr->lkey);
	sge[0] = (struct ibv_sge){ (uintptr_t)src, 512, a->mr->lkey };
	if (!post1(p->qa, 0xa4, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_SEND_SIGNALED,
		   sge, 1, (uintptr_t)dst + 32768, b->mr->rkey) &&
	    !check_wc(p->tag, "write-imm", p->ca, 0xa4, IBV_WC_RDMA_WRITE, 0, 0,
		      qa, NULL) &&
	    !check_wc(p->tag, "write-imm-recv", p->cb, 0xb4,
		      IBV_WC_RECV_RDMA_WITH_IMM, 512, IBV_WC_WITH_IMM, qb,
		      &wc)) {
		snprintf(n, sizeof(n), "%s-write-imm", p->tag);
		report(!memcmp(dst + 32768, src, 512) &&
		       wc.imm_data == htonl(0xa5a5a5a5), n,
		       "512 bytes, imm %#x: data %s", ntohl(wc.imm_data),
		       memcmp(dst + 32768, src, 512) ? "DIFFERS" : "equal");
	}

	/* RDMA_READ of 4000 bytes. */
	fill(dst + 40960, 4000, 5);
	memset(src + 12288, 0, 4000);
	sge[0] = (struct ibv_sge){ (uintptr_t)src + 12288, 4000, a->mr->lkey };
	if (!post1(p->qa, 0xa5, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED, sge, 1,
		   (uintptr_t)dst + 40960, b->mr->rkey) &&
	    !check_wc(p->tag, "read", p->ca, 0xa5, IBV_WC_RDMA_READ, 4000, 0,
		      qa, NULL)) {
		snprintf(n, sizeof(n), "%s-read", p->tag);
		report(!memcmp(src + 12288, dst + 40960, 4000), n,
		       "4000 bytes: data %s",
		       memcmp(src + 12288, dst + 40960, 4000) ? "DIFFERS" :
								  "equal");
	}

	/* Atomics on a remote 64-bit word. */
	v = 100;
	memcpy(dst + 49152, &v, 8);
	{
		struct ibv_send_wr wr = {
			.wr_id = 0xa6, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			.send_flags = IBV_SEND_SIGNALED, .sg_list = sge,
			.num_sge = 1,
		}, *bad;
		uint64_t old = 0, now;

		sge[0] = (struct ibv_sge){ (uintptr_t)src + 20480, 8,
					   a->mr->lkey };
		wr.wr.atomic.remote_addr = (uintptr_t)dst + 49152;
		wr.wr.atomic.rkey = b->mr->rkey;
		wr.wr.atomic.compare_add = 5;
		if (!ibv_post_send(p->qa, &wr, &bad) &&
		    !check_wc(p->tag, "fetch-add", p->ca, 0xa6,
			      IBV_WC_FETCH_ADD, 8, 0, qa, NULL)) {
			memcpy(&old, src + 20480, 8);
			memcpy(&now, dst + 49152, 8);
			snprintf(n, sizeof(n), "%s-fetch-add", p->tag);
			report(old == 100 && now == 105, n,
			       "100 + 5: returned %llu, remote now %llu",
			       (unsigned long long)old,
			       (unsigned long long)now);
		}
		wr.wr_id = 0xa7;
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = 105;
		wr.wr.atomic.swap = 7;
		if (!ibv_post_send(p->qa, &wr, &bad) &&
		    !check_wc(p->tag, "cmp-swp", p->ca, 0xa7, IBV_WC_COMP_SWAP,
			      8, 0, qa, NULL)) {
			memcpy(&old, src + 20480, 8);
			memcpy(&now, dst + 49152, 8);
			snprintf(n, sizeof(n), "%s-cmp-swp", p->tag);
			report(old == 105 && now == 7, n,
			       "compare 105 swap 7: returned %llu, remote now %llu",
			       (unsigned long long)old,
			       (unsigned long long)now);
		}
	}
}

static int pair_cqs(struct pair *p)
{
	if (!p->ca)
		p->ca = ibv_create_cq(p->a->ctx, 64, NULL, NULL, 0);
	if (!p->cb)
		p->cb = ibv_create_cq(p->b->ctx, 64, NULL, NULL, 0);
	return p->ca && p->cb ? 0 : -1;
}

static int rc_pair(struct pair *p, struct ibv_srq *srq_b)
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

static void pair_free(struct pair *p)
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

static void test_data_srq(struct side *a, struct side *b, const char *tag)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_sge sge = { 0, 64, b->mr->lkey };
	struct ibv_recv_wr rw = { .wr_id = 0x5e, .sg_list = &sge,
				  .num_sge = 1 }, *rbad;
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct ibv_srq *srq;
	char n[64];

	snprintf(n, sizeof(n), "%s-srq", tag);
	srq = ibv_create_srq(b->pd, &sa);
	if (!srq || rc_pair(&p, srq)) {
		report(0, n, "SRQ pair setup: %s", strerror(errno));
		goto out;
	}
	sge.addr = (uintptr_t)b->buf + 60000;
	memset(b->buf + 60000, 0, 64);
	fill(a->buf, 64, 9);
	if (ibv_post_srq_recv(srq, &rw, &rbad)) {
		report(0, n, "post_srq_recv failed");
		goto out;
	}
	{
		struct ibv_sge s = { (uintptr_t)a->buf, 64, a->mr->lkey };

		if (!post1(p.qa, 0x5a, IBV_WR_SEND, IBV_SEND_SIGNALED, &s, 1,
			   0, 0) &&
		    !check_wc(tag, "srq-send", p.ca, 0x5a, IBV_WC_SEND, 0, 0,
			      p.qa->qp_num, NULL) &&
		    !check_wc(tag, "srq-recv", p.cb, 0x5e, IBV_WC_RECV, 64, 0,
			      p.qb->qp_num, NULL))
			report(!memcmp(b->buf + 60000, a->buf, 64), n,
			       "64-byte SEND received through the SRQ: data %s",
			       memcmp(b->buf + 60000, a->buf, 64) ? "DIFFERS" :
								   "equal");
	}
out:
	pair_free(&p);
	if (srq)
		ibv_destroy_srq(srq);
}

static void test_data_ud(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = b->gid, .sgid_index = a->gid_index,
			 .hop_limit = 64 },
	};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	char n[64];

	snprintf(n, sizeof(n), "%s-ud", tag);
	if (pair_cqs(&p) || a->gid_index < 0 || b->gid_index < 0) {
		report(0, n, "UD setup: %s", strerror(errno));
		goto out;
	}
	qa = make_qp(a, IBV_QPT_UD, p.ca, NULL, 8, 1, 0);
	qb = make_qp(b, IBV_QPT_UD, p.cb, NULL, 8, 1, 0);
	if (!qa || !qb || connect_qp(qa, a, NULL, 0) ||
	    connect_qp(qb, b, NULL, 0) || !(ah = ibv_create_ah(a->pd, &aa))) {
		report(0, n, "UD setup: %s", strerror(errno));
		goto out;
	}
	/* RDMA on UD is refused at post time. */
	sge = (struct ibv_sge){ (uintptr_t)a->buf, 256, a->mr->lkey };
	wr.wr_id = 0xd1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qb->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	report(ibv_post_send(qa, &wr, &bad) == EINVAL, "ud-rdma-write",
	       "RDMA_WRITE on a UD QP refused with EINVAL");
	wr.wr.ud.ah = NULL;
	wr.opcode = IBV_WR_SEND;
	report(ibv_post_send(qa, &wr, &bad) == EINVAL, "ud-no-ah",
	       "UD SEND without an AH refused with EINVAL");
	wr.wr.ud.ah = ah;

	memset(b->buf + 61440, 0, 40 + 256);
	fill(a->buf, 256, 11);
	postr(qb, 0xd2, b->buf + 61440, 40 + 256, b->mr->lkey);
	if (ibv_post_send(qa, &wr, &bad) ||
	    check_wc(tag, "ud-send", p.ca, 0xd1, IBV_WC_SEND, 0, 0,
		     qa->qp_num, NULL) ||
	    check_wc(tag, "ud-recv", p.cb, 0xd2, IBV_WC_RECV, 256 + 40,
		     IBV_WC_GRH, qb->qp_num, &wc))
		goto out;
	report(wc.src_qp == qa->qp_num &&
	       !memcmp(b->buf + 61440 + 40, a->buf, 256), n,
	       "256 bytes + 40-byte GRH, src_qp %u (want %u): data %s",
	       wc.src_qp, qa->qp_num,
	       memcmp(b->buf + 61440 + 40, a->buf, 256) ? "DIFFERS" : "equal");
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	pair_free(&p);
}

/*
 * Many WQEs through a small SQ: 5-SGE WRITEs take 3 blocks, so in a ring of
 * 64 blocks they straddle its end; only every 4th is signaled, so posting
 * goes on only if CQEs retire the unsignaled WQEs before them.  sq_sig_all
 * on a second QP makes an unsignaled WRITE complete.
 */
static void test_data_wrap(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 1,
			 .max_send_sge = 5, .max_recv_sge = 1 },
	};
	struct ibv_sge sge[5];
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE, .sg_list = sge,
				  .num_sge = 5 }, *bad;
	struct ibv_qp *sig = NULL;
	struct ibv_wc wc;
	uint8_t *dst = b->buf + 24576;
	int i, err = 0, polled = 0, order = 1, full = 0, ok = 1;
	char n[64];

	snprintf(n, sizeof(n), "%s-wrap", tag);
	if (pair_cqs(&p))
		goto setup;
	ia.send_cq = ia.recv_cq = p.ca;
	p.qa = ibv_create_qp(a->pd, &ia);
	p.qb = make_qp(b, IBV_QPT_RC, p.cb, NULL, 4, 1, 0);
	if (!p.qa || !p.qb || a->gid_index < 0 || b->gid_index < 0 ||
	    connect_qp(p.qa, a, &b->gid, p.qb->qp_num) ||
	    connect_qp(p.qb, b, &a->gid, p.qa->qp_num))
		goto setup;
	fill(a->buf + 23000, 80, 13);
	memset(dst, 0, 64 * 80);
	for (i = 0; i < 5; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)a->buf + 23000 + 16 * i,
					   16, a->mr->lkey };
	wr.wr.rdma.rkey = b->mr->rkey;
	for (i = 0; i < 200 && !err;) {
		wr.wr_id = i;
		wr.send_flags = i % 4 == 3 ? IBV_SEND_SIGNALED : 0;
		wr.wr.rdma.remote_addr = (uintptr_t)dst + (i % 64) * 80;
		err = ibv_post_send(p.qa, &wr, &bad);
		if (err == ENOMEM) {
			full++;
			err = 0;
			if (!poll_one(p.ca, &wc)) {
				err = ETIMEDOUT;
				break;
			}
			if (wc.status != IBV_WC_SUCCESS ||
			    wc.wr_id != (uint64_t)(polled * 4 + 3))
				order = 0;
			polled++;
			continue;
		}
		i++;
	}
	while (!err && polled < 50 && poll_one(p.ca, &wc)) {
		if (wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != (uint64_t)(polled * 4 + 3))
			order = 0;
		polled++;
	}
	for (i = 0; i < 64; i++)
		if (memcmp(dst + i * 80, a->buf + 23000, 80))
			ok = 0;
	report(!err && polled == 50 && order && ok && full, n,
	       "200 WRITEs of 5 SGEs through a %u-WQE SQ (full %d times), every 4th signaled: %d/50 CQEs in order %s, data %s%s%s",
	       ia.cap.max_send_wr, full, polled, order ? "yes" : "NO",
	       ok ? "equal" : "DIFFERS", err ? ": " : "",
	       err ? strerror(err) : "");

	/* sq_sig_all: the unsignaled WRITE completes anyway. */
	snprintf(n, sizeof(n), "%s-sq-sig-all", tag);
	ia.sq_sig_all = 1;
	ia.cap.max_send_sge = 1;
	sig = ibv_create_qp(a->pd, &ia);
	if (sig) {
		ibv_destroy_qp(p.qb);
		p.qb = make_qp(b, IBV_QPT_RC, p.cb, NULL, 4, 1, 0);
	}
	if (!sig || !p.qb || connect_qp(sig, a, &b->gid, p.qb->qp_num) ||
	    connect_qp(p.qb, b, &a->gid, sig->qp_num)) {
		report(0, n, "setup: %s", strerror(errno));
		goto out;
	}
	wr.wr_id = 0x5a11;
	wr.send_flags = 0;
	wr.num_sge = 1;
	if (!ibv_post_send(sig, &wr, &bad) &&
	    !check_wc(tag, "sq-sig-all", p.ca, 0x5a11, IBV_WC_RDMA_WRITE, 0, 0,
		      sig->qp_num, NULL))
		report(1, n, "unsignaled WRITE on an sq_sig_all QP completed");
	goto out;
setup:
	report(0, n, "setup: %s", strerror(errno));
out:
	if (sig)
		ibv_destroy_qp(sig);
	pair_free(&p);
}

/*
 * Four threads post signaled WRITEs to one QP while the main thread polls
 * its CQ: the per-queue locks must keep every WQE whole and every CQE once.
 */
#define THREADS		4
#define PER_THREAD	100

struct poster {
	struct ibv_qp *qp;
	struct ibv_sge sge;
	uint64_t raddr;
	uint32_t rkey;
	int id, err;
};

static void *poster_main(void *arg)
{
	struct poster *t = arg;
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.sg_list = &t->sge, .num_sge = 1,
	}, *bad;
	long long end = now_ms() + 4 * POLL_MS;
	int i, err;

	wr.wr.rdma.remote_addr = t->raddr;
	wr.wr.rdma.rkey = t->rkey;
	for (i = 0; i < PER_THREAD; i++) {
		wr.wr_id = (uint64_t)t->id << 16 | i;
		while ((err = ibv_post_send(t->qp, &wr, &bad)) == ENOMEM &&
		       now_ms() < end)
			sched_yield();
		if (err) {
			t->err = err;
			break;
		}
	}
	return NULL;
}

static void test_data_threads(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct poster t[THREADS];
	pthread_t th[THREADS];
	int next[THREADS] = {}, i, got = 0, order = 1, started = 0, perr = 0;
	long long end;
	struct ibv_wc wc[16];
	char n[64];

	snprintf(n, sizeof(n), "%s-threads", tag);
	if (pair_cqs(&p))
		goto fail;
	p.qa = make_qp(a, IBV_QPT_RC, p.ca, NULL, 32, 1, 0);
	p.qb = make_qp(b, IBV_QPT_RC, p.cb, NULL, 4, 1, 0);
	if (!p.qa || !p.qb || a->gid_index < 0 || b->gid_index < 0 ||
	    connect_qp(p.qa, a, &b->gid, p.qb->qp_num) ||
	    connect_qp(p.qb, b, &a->gid, p.qa->qp_num))
		goto fail;
	for (i = 0; i < THREADS; i++) {
		t[i] = (struct poster){
			.qp = p.qa, .id = i, .rkey = b->mr->rkey,
			.raddr = (uintptr_t)b->buf + 28672 + 64 * i,
			.sge = { (uintptr_t)a->buf + 64 * i, 64, a->mr->lkey },
		};
		if (pthread_create(&th[i], NULL, poster_main, &t[i]))
			break;
		started++;
	}
	end = now_ms() + 8 * POLL_MS;
	while (got < started * PER_THREAD && now_ms() < end) {
		int k, c = ibv_poll_cq(p.ca, 16, wc);

		for (k = 0; k < c; k++, got++) {
			unsigned int id = wc[k].wr_id >> 16;

			if (wc[k].status != IBV_WC_SUCCESS || id >= THREADS ||
			    (wc[k].wr_id & 0xffff) != (uint64_t)next[id]++)
				order = 0;
		}
	}
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		perr |= t[i].err;
	}
	report(started == THREADS && !perr && got == THREADS * PER_THREAD &&
	       order, n,
	       "%d threads x %d signaled WRITEs on one QP, polled meanwhile: %d/%d CQEs, each thread's in order: %s%s",
	       started, PER_THREAD, got, THREADS * PER_THREAD,
	       order ? "yes" : "NO", perr ? " (a post failed)" : "");
	pair_free(&p);
	return;
fail:
	report(0, n, "setup: %s", strerror(errno));
	pair_free(&p);
}

/*
 * Round-trip time of a 64-byte SEND each way, one thread driving both QPs
 * (informational: the check is that all 200 round trips complete).
 */
static int wait_recv(struct ibv_cq *cq, uint64_t *sends)
{
	long long end = now_ms() + POLL_MS;
	struct ibv_wc wc;

	while (now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc) != 1)
			continue;
		if (wc.status != IBV_WC_SUCCESS)
			return -1;
		if (wc.opcode == IBV_WC_RECV)
			return 0;
		(*sends)++;
	}
	return -1;
}

static void test_data_rtt(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct ibv_sge sa = { (uintptr_t)a->buf, 64, a->mr->lkey };
	struct ibv_sge sb = { (uintptr_t)b->buf + 32768, 64, b->mr->lkey };
	uint64_t sends = 0;
	struct timespec t0, t1;
	int i, err = 0;
	char n[64];

	snprintf(n, sizeof(n), "%s-rtt", tag);
	if (rc_pair(&p, NULL)) {
		report(0, n, "setup: %s", strerror(errno));
		goto out;
	}
	postr(p.qa, 1, a->buf + 4096, 64, a->mr->lkey);
	postr(p.qb, 2, b->buf + 36864, 64, b->mr->lkey);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 200 && !err; i++) {
		err = post1(p.qa, 3, IBV_WR_SEND, IBV_SEND_SIGNALED |
			    IBV_SEND_INLINE, &sa, 1, 0, 0) ||
		      wait_recv(p.cb, &sends) ||
		      postr(p.qb, 2, b->buf + 36864, 64, b->mr->lkey) ||
		      post1(p.qb, 4, IBV_WR_SEND, IBV_SEND_SIGNALED |
			    IBV_SEND_INLINE, &sb, 1, 0, 0) ||
		      wait_recv(p.ca, &sends) ||
		      postr(p.qa, 1, a->buf + 4096, 64, a->mr->lkey);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	report(!err, n, "%d SEND/RECV round trips of 64 bytes: %.0f us each%s",
	       i, ((t1.tv_sec - t0.tv_sec) * 1e6 +
		   (t1.tv_nsec - t0.tv_nsec) / 1e3) / (i ? i : 1),
	       err ? " (then a completion was missing or failed)" : "");
out:
	pair_free(&p);
}

/*
 * ARM_SOLICITED: with the receive CQ armed for solicited completions only,
 * a plain SEND raises no event and a SEND with IBV_SEND_SOLICITED does.
 */
static void test_data_solicited(struct side *a, struct side *b,
				const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct ibv_comp_channel *ch = ibv_create_comp_channel(b->ctx);
	struct ibv_sge sge = { (uintptr_t)a->buf, 32, a->mr->lkey };
	struct pollfd pfd;
	struct ibv_cq *evcq;
	struct ibv_wc wc;
	int quiet = 0, woke = 0, got = 0;
	void *cqctx;
	char n[64];

	snprintf(n, sizeof(n), "%s-solicited", tag);
	if (ch)
		p.cb = ibv_create_cq(b->ctx, 64, NULL, ch, 0);
	if (!p.cb || rc_pair(&p, NULL)) {
		report(0, n, "setup: %s", strerror(errno));
		goto out;
	}
	postr(p.qb, 0x51, b->buf + 40000, 64, b->mr->lkey);
	postr(p.qb, 0x52, b->buf + 40064, 64, b->mr->lkey);
	if (ibv_req_notify_cq(p.cb, 1)) {
		report(0, n, "req_notify_cq(solicited_only): %s", strerror(errno));
		goto out;
	}
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	if (post1(p.qa, 0x61, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge, 1, 0, 0) ||
	    check_wc(tag, "solicited-plain", p.ca, 0x61, IBV_WC_SEND, 0, 0,
		     p.qa->qp_num, NULL))
		goto out;
	quiet = poll(&pfd, 1, 1000) == 0;
	if (post1(p.qa, 0x62, IBV_WR_SEND, IBV_SEND_SIGNALED |
		  IBV_SEND_SOLICITED, &sge, 1, 0, 0) ||
	    check_wc(tag, "solicited-se", p.ca, 0x62, IBV_WC_SEND, 0, 0,
		     p.qa->qp_num, NULL))
		goto out;
	if (poll(&pfd, 1, POLL_MS) == 1 && !ibv_get_cq_event(ch, &evcq, &cqctx)) {
		woke = evcq == p.cb;
		ibv_ack_cq_events(evcq, 1);
	}
	while (got < 2 && poll_one(p.cb, &wc))
		got++;
	report(quiet && woke && got == 2, n,
	       "CQ armed solicited-only: plain SEND %s, solicited SEND %s; %d/2 receives polled",
	       quiet ? "no event" : "RAISED AN EVENT",
	       woke ? "event" : "NO EVENT", got);
out:
	pair_free(&p);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

static void test_data(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	char n[64];

	snprintf(n, sizeof(n), "%s-connect", tag);
	if (rc_pair(&p, NULL)) {
		report(0, n, "RC pair %s -> %s: %s", a->name, b->name,
		       strerror(errno));
		pair_free(&p);
		return;
	}
	report(1, n, "RC QP %u on %s <-> QP %u on %s in RTS", p.qa->qp_num,
	       a->name, p.qb->qp_num, b->name);
	test_data_rc(&p);
	pair_free(&p);
	test_data_srq(a, b, tag);
	test_data_ud(a, b, tag);
	test_data_wrap(a, b, tag);
	test_data_threads(a, b, tag);
	test_data_rtt(a, b, tag);
	test_data_solicited(a, b, tag);
}

int main(int argc, char **argv)
{
	struct side s = {}, peer = {};
	struct ibv_device **list;
	struct ibv_device *dev, *pdev = NULL;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	int i, n;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s IBDEV [PEER_IBDEV]\n", argv[0]);
		return 2;
	}

	list = ibv_get_device_list(&n);
	if (!list) {
		report(0, "open", "ibv_get_device_list: %s", strerror(errno));
		return 1;
	}
	dev = find_dev(list, argv[1]);
	if (argc == 3)
		pdev = find_dev(list, argv[2]);
	if (!dev || (argc == 3 && !pdev)) {
		report(0, "open", "%s%s%s not among %d verbs devices", argv[1],
		       argc == 3 ? " or " : "", argc == 3 ? argv[2] : "", n);
		ibv_free_device_list(list);
		return 1;
	}
	if (side_open(&s, dev)) {
		report(0, "open", "%s: context/PD/MR/CQ setup: %s", argv[1],
		       strerror(errno));
		side_close(&s);
		ibv_free_device_list(list);
		return 1;
	}
	report(s.attr.vendor_id == ORNIC_PCI_VENDOR_ID &&
	       s.attr.vendor_part_id == ORNIC_PCI_DEVICE_ID, "open",
	       "%s opened, vendor %#x part %#x (expected %#x/%#x), GID index %d",
	       argv[1], s.attr.vendor_id, s.attr.vendor_part_id,
	       ORNIC_PCI_VENDOR_ID, ORNIC_PCI_DEVICE_ID, s.gid_index);

	test_objects(&s);
	test_post_checks_qp(&s);
	test_full_and_flush(&s);
	test_reset_clean(&s);
	test_post_cost(&s);
	test_ex(&s);
	test_srq_full(&s);

	test_data(&s, &s, "loop");
	if (pdev) {
		if (side_open(&peer, pdev))
			report(0, "peer-open", "%s: %s", argv[2],
			       strerror(errno));
		else
			test_data(&s, &peer, "cross");
		side_close(&peer);
	}
	side_close(&s);

	for (i = 0; i < 50; i++) {
		ctx = ibv_open_device(dev);
		if (!ctx)
			break;
		pd = ibv_alloc_pd(ctx);
		if (!pd || ibv_dealloc_pd(pd)) {
			ibv_close_device(ctx);
			break;
		}
		if (ibv_close_device(ctx))
			break;
	}
	report(i == 50, "context-cycles",
	       "%d/50 open + alloc/dealloc PD + close cycles%s%s", i,
	       i == 50 ? "" : ": ", i == 50 ? "" : strerror(errno));

	ibv_free_device_list(list);
	return failed;
}
