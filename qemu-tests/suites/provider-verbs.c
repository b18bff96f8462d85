// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider-verbs: exercise the ornic rdma-core provider through libibverbs.
 *
 *   provider-verbs IBDEV [PEER_IBDEV]
 *
 * Control path and queue handling, which need no packet engine (this file):
 *   open (vendor/part IDs), PD, MR (lkey == rkey), CQ/QP/SRQ/AH create and
 *   destroy with the limits the provider grants, bad input rejected with
 *   the verbs errno and bad_wr, send and receive queues and an SRQ filled to
 *   exactly their size (then ENOMEM), the move to ERR flushing every WQE in
 *   order with WR_FLUSH_ERR (wr_id, qp_num, opcode) read through
 *   ibv_poll_cq, ibv_cq_ex and a completion channel event, ibv_wr_* posts,
 *   FLUSH and ATOMIC WRITE taken by ibv_qp_ex only and checked there,
 *   RESET dropping a QP's unpolled CQEs, and what a post costs.
 * Data (provider-data.c): on IBDEV alone and between IBDEV and PEER_IBDEV.
 *
 * Prints one "PASS|FAIL: name details" line per check (test-report.h); exit
 * status 0 when all passed, 1 when a check failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../../include/ornic/ornic_hw.h"
#include "provider-data.h"
#include "qp-pair.h"

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
	cqx = ibv_create_cq_ex(s->ctx, &cqa);
	report(cqx && !ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), "cq-ex-timestamp",
	       "ibv_create_cq_ex(WITH_COMPLETION_TIMESTAMP): %s",
	       cqx ? "created and destroyed" : strerror(errno));
	/* Flow tags come from steering rules ornic does not have. */
	cqa.wc_flags = IBV_WC_EX_WITH_FLOW_TAG;
	errno = 0;
	cqx = ibv_create_cq_ex(s->ctx, &cqa);
	expect_errno("cq-ex-flow-tag", !cqx, errno, EOPNOTSUPP,
		     "ibv_create_cq_ex(WITH_FLOW_TAG)");
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));

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
	qp = ibv_create_qp(s->pd, &qa);
	report(qp && !ibv_destroy_qp(qp), "qp-uc", "ibv_create_qp(UC): %s",
	       qp ? "created and destroyed" : strerror(errno));

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

	wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[0].wr.atomic.rkey = s->mr->rkey;
	wr[0].wr.atomic.remote_addr = (uintptr_t)s->buf;
	sge[0].length = 4;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-atomic-short-sge",
	       "FETCH_AND_ADD into a 4-byte SGE: %s", strerror(err));
	sge[0].length = 8;

	/* LOCAL_INV and BIND_MW are RC operations now (memory windows). */
	wr[0].opcode = IBV_WR_TSO;
	bad = NULL;
	err = ibv_post_send(qp, wr, &bad);
	report(err == EINVAL && bad == &wr[0], "post-bad-opcode",
	       "TSO on an RC QP: %s", strerror(err));
	wr[0].opcode = IBV_WR_SEND;
}

/*
 * What ornic takes where rxe and mlx5 take it (Documentation/verbs/
 * attributes.rst), on a loopback QP of its own: IBV_SEND_INLINE on a READ
 * is ignored, a misaligned atomic is posted and the responder refuses it.
 */
static void test_post_loosened(struct side *s)
{
	struct pair p = { .a = s, .b = s };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct ibv_qp *qa;
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->buf, .length = 8, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc = {};
	int err, ok;

	/* Two QPs of this device: the responder's error is not the requester's. */
	spec.cqe = 16;
	spec.one_cq = 1;
	spec.cap = (struct ibv_qp_cap){ 8, 8, 1, 1, 64 };
	if (pair_open(&p, &spec)) {
		report(0, "post-inline-read", "QP pair: %s", strerror(errno));
		goto out;
	}
	qa = p.qa;
	fill(s->buf + 4096, 8, 0x3c);
	memset(s->buf, 0, 8);
	err = post1(qa, 41, IBV_WR_RDMA_READ, IBV_SEND_INLINE | IBV_SEND_SIGNALED,
		    &sge, 1, (uintptr_t)s->buf + 4096, s->mr->rkey);
	ok = !err && poll_one(p.ca, &wc) && wc.wr_id == 41 &&
	     wc.status == IBV_WC_SUCCESS && !memcmp(s->buf, s->buf + 4096, 8);
	report(ok, "post-inline-read",
	       "RDMA_READ with IBV_SEND_INLINE: %s, completion %s, data %s",
	       err ? strerror(err) : "posted", ibv_wc_status_str(wc.status),
	       memcmp(s->buf, s->buf + 4096, 8) ? "differs" : "read");

	/* Refused by the responder, which ends both QPs: last. */
	wr.wr_id = 42;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = (uintptr_t)s->buf + 4100;
	wr.wr.atomic.rkey = s->mr->rkey;
	wr.wr.atomic.compare_add = 1;
	err = ibv_post_send(qa, &wr, &bad);
	wc.status = IBV_WC_SUCCESS;
	ok = !err && poll_one(p.ca, &wc) && wc.wr_id == 42 &&
	     wc.status == IBV_WC_REM_INV_REQ_ERR;
	report(ok, "post-atomic-unaligned",
	       "FETCH_AND_ADD at a 4-byte aligned address: %s, completion %s",
	       err ? strerror(err) : "posted", ibv_wc_status_str(wc.status));
out:
	pair_close(&p);
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
	if (connect_qp(qp, s, &s->gid, qp->qp_num)) {
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
	/* X on the side's CQ with its channel, Y on a CQ of its own. */
	struct pair p = { .a = s, .b = s, .ca = s->cq };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 8,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;
	struct ibv_cq *evcq;
	struct ibv_wc wc;
	unsigned int i, posted = 0, flushed = 0, order_ok = 1;
	int err;
	void *ctx;

	spec.cqe = 16;
	spec.cap = ia.cap;
	spec.cap_b = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	if (pair_open(&p, &spec)) {
		report(0, "full", "QP pair setup: %s", strerror(errno));
		goto out;
	}
	qp = p.qa;
	ia.cap = p.cap_a;
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
	p.qa = NULL;
out:
	p.ca = NULL;	/* the side's */
	pair_close(&p);
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
	/* A and B on one CQ, each looped back to itself. */
	struct pair p = { .a = s, .b = s };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[16];
	int i, n, got = 0, ok = 1;

	spec.cqe = 32;
	spec.one_cq = 1;
	spec.self = 1;
	spec.cap = (struct ibv_qp_cap){ 8, 8, 1, 1, 0 };
	if (pair_open(&p, &spec)) {
		report(0, "reset-clean", "setup: %s", strerror(errno));
		goto out;
	}
	qa = p.qa;
	qb = p.qb;
	for (i = 0; i < 3; i++) {
		wr.wr_id = 0xa0 + i;
		ibv_post_send(qa, &wr, &bad);
		wr.wr_id = 0xb0 + i;
		ibv_post_send(qb, &wr, &bad);
	}
	to_err(qb);
	to_err(qa);
	if (to_reset(qa)) {
		report(0, "reset-clean", "modify to RESET: %s",
		       strerror(errno));
		goto out;
	}
	usleep(100000);
	while ((n = ibv_poll_cq(p.ca, 16, wc)) > 0) {
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
	pair_close(&p);
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
	struct pair p = { .a = s, .b = s };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct timespec t0, t1, t2;
	struct ibv_qp *x;
	double one, list;
	int i, err = 0;

	spec.cqe = 1024;
	spec.one_cq = 1;
	spec.cap = (struct ibv_qp_cap){ 512, 512, 1, 1, 0 };
	spec.cap_b = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	if (pair_open(&p, &spec)) {
		report(0, "post-cost", "setup: %s", strerror(errno));
		goto out;
	}
	x = p.qa;
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
	pair_close(&p);
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
	qa.send_ops_flags |= IBV_QP_EX_WITH_TSO;
	errno = 0;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	expect_errno("qp-ex-tso", !qp, errno, EOPNOTSUPP,
		     "ibv_create_qp_ex(send_ops_flags with TSO on RC)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.send_ops_flags &= ~(uint64_t)IBV_QP_EX_WITH_TSO;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	if (!qp || connect_qp(qp, s, &s->gid, qp->qp_num)) {
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


/*
 * IBTA 1.5 FLUSH and ATOMIC WRITE in the provider (data: verbs-flush.c):
 * advertised as the device's caps say, taken only by ibv_qp_ex on RC QPs,
 * malformed requests refused at ibv_wr_complete with nothing posted.
 */
static int wr_one(struct ibv_qp_ex *x, int what)
{
	static const uint8_t value[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	ibv_wr_start(x);
	x->wr_id = 40 + what;
	x->wr_flags = IBV_SEND_SIGNALED;
	switch (what) {
	case 0: /* no placement type */
		ibv_wr_flush(x, 0x100, 0x1000, 64, 0, IBV_FLUSH_RANGE);
		break;
	case 1: /* an unknown placement type bit */
		ibv_wr_flush(x, 0x100, 0x1000, 64, 4, IBV_FLUSH_RANGE);
		break;
	case 2: /* an unknown selectivity level */
		ibv_wr_flush(x, 0x100, 0x1000, 64, IBV_FLUSH_GLOBAL, 2);
		break;
	case 3: /* a range the RETH cannot carry */
		ibv_wr_flush(x, 0x100, 0x1000, 1ULL << 32, IBV_FLUSH_GLOBAL,
			     IBV_FLUSH_RANGE);
		break;
	case 4: /* FLUSH carries no data */
		ibv_wr_flush(x, 0x100, 0x1000, 64, IBV_FLUSH_GLOBAL,
			     IBV_FLUSH_RANGE);
		ibv_wr_set_sge(x, 0x100, 0x2000, 8);
		break;
	case 5: /* ATOMIC WRITE without its 8 bytes */
		ibv_wr_atomic_write(x, 0x100, 0x1000, NULL);
		break;
	default: /* ATOMIC WRITE takes no inline data either */
		ibv_wr_atomic_write(x, 0x100, 0x1000, value);
		ibv_wr_set_inline_data(x, (void *)value, 8);
		break;
	}
	return ibv_wr_complete(x);
}

static void test_ibta15(struct side *s)
{
	static const char *const bad[] = {
		"flush-type-0", "flush-type-4", "flush-level-2",
		"flush-length-4g", "flush-then-sge", "atomic-write-null",
		"atomic-write-then-inline",
	};
	uint64_t ops = IBV_QP_EX_WITH_FLUSH | IBV_QP_EX_WITH_ATOMIC_WRITE;
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.cap = { .max_send_wr = 8, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_FLUSH,
		.pd = s->pd,
	};
	struct ibv_device_attr_ex attr = {};
	struct ibv_send_wr wr = {}, *bad_wr;
	struct ibv_qp *qp = NULL;
	struct ibv_qp_ex *x;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	unsigned int i;
	int err;

	/* ib_user_verbs.h: IB_UVERBS_DEVICE_FLUSH_GLOBAL, _PERSISTENT, ATOMIC_WRITE */
	err = ibv_query_device_ex(s->ctx, NULL, &attr);
	report(!err && (attr.device_cap_flags_ex & (7ULL << 38)) == 7ULL << 38,
	       "ibta15-caps", "device_cap_flags_ex %#llx: FLUSH_GLOBAL, FLUSH_PERSISTENT and ATOMIC_WRITE %s",
	       (unsigned long long)attr.device_cap_flags_ex,
	       (attr.device_cap_flags_ex & (7ULL << 38)) == 7ULL << 38 ?
	       "advertised" : "MISSING");

	cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	if (!cq) {
		report(0, "ibta15-cq", "ibv_create_cq: %s", strerror(errno));
		return;
	}
	qa.send_cq = cq;
	qa.recv_cq = cq;
	errno = 0;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	expect_errno("qp-ex-ud-flush", !qp, errno, EOPNOTSUPP,
		     "ibv_create_qp_ex(UD, send_ops_flags with FLUSH)");
	if (qp)
		ibv_destroy_qp(qp);
	qa.qp_type = IBV_QPT_RC;
	qa.send_ops_flags = ops;
	qp = ibv_create_qp_ex(s->ctx, &qa);
	if (!qp || connect_qp(qp, s, &s->gid, qp->qp_num)) {
		report(0, "qp-ex-rc-flush", "create/connect: %s",
		       strerror(errno));
		goto out;
	}
	x = ibv_qp_to_qp_ex(qp);
	report(x->wr_flush && x->wr_atomic_write, "qp-ex-rc-flush",
	       "RC QP with FLUSH | ATOMIC_WRITE send ops: wr_flush %s, wr_atomic_write %s",
	       x->wr_flush ? "set" : "MISSING",
	       x->wr_atomic_write ? "set" : "MISSING");
	if (!x->wr_flush || !x->wr_atomic_write)
		goto out;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = wr_one(x, i);
		report(err == EINVAL, bad[i], "ibv_wr_complete: %s (want %s)",
		       strerror(err), strerror(EINVAL));
	}
	/* struct ibv_send_wr has no room for the type, level or value. */
	for (i = 0; i < 2; i++) {
		wr.wr_id = 50 + i;
		wr.opcode = i ? IBV_WR_ATOMIC_WRITE : IBV_WR_FLUSH;
		wr.send_flags = IBV_SEND_SIGNALED;
		bad_wr = NULL;
		err = ibv_post_send(qp, &wr, &bad_wr);
		report(err == EINVAL && bad_wr == &wr,
		       i ? "post-send-atomic-write" : "post-send-flush",
		       "ibv_post_send: %s, bad_wr %s", strerror(err),
		       bad_wr == &wr ? "set" : "WRONG");
	}
	/* Nothing of the refused posts reached the queue. */
	to_err(qp);
	usleep(20000);
	report(ibv_poll_cq(cq, 1, &wc) == 0, "ibta15-nothing-posted",
	       "no completion after the refused posts and the move to ERR");
out:
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
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
	test_post_loosened(&s);
	test_full_and_flush(&s);
	test_reset_clean(&s);
	test_post_cost(&s);
	test_ex(&s);
	test_ibta15(&s);
	test_srq_full(&s);

	data_tests(&s, &s, "loop");
	if (pdev) {
		if (side_open(&peer, pdev))
			report(0, "peer-open", "%s: %s", argv[2],
			       strerror(errno));
		else
			data_tests(&s, &peer, "cross");
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
	return report_failures() ? 1 : 0;
}
