// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * datapath-neg DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * Remote access violations end in the right completion status while another
 * QP on the same two devices keeps working.  One process, two RC QP pairs
 * between DEV_A (requester) and DEV_B (responder):
 *
 *   healthy pair: RDMA WRITE + SEND with data checked between every case;
 *   victim pair:  1. RDMA WRITE into an MR without REMOTE_WRITE,
 *                 2. RDMA WRITE with a wrong rkey,
 *                 3. RDMA WRITE running past the end of the MR,
 *                 4. RDMA READ of an MR without REMOTE_READ,
 *                 5. SEND from a local buffer with a wrong lkey;
 *                 cases 1-4 must complete with IBV_WC_REM_ACCESS_ERR,
 *                 case 5 with IBV_WC_LOC_PROT_ERR; the target memory must
 *                 be untouched, and the victim QP is reset and reconnected
 *                 for the next case.
 *
 * Prints one "PASS|FAIL: name details" line per check (test-report.h); exit
 * status 0 only when all passed.  Works against any RoCE device pair; rxe
 * (7.3) passes cases 1-4 and reports case 5 as WR_FLUSH_ERR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qp-pair.h"

#define MSG_SIZE	4096
#define POLL_SECONDS	60

/* The path MTU of both pairs: the smaller of the two ports' MTUs. */
static enum ibv_mtu path_mtu;

static struct ibv_qp *create_qp(struct side *s)
{
	return make_qp(s, IBV_QPT_RC, s->cq, NULL, 16, 1, 0);
}

/*
 * Both QPs of a pair RESET -> RTS towards each other, PSN @psn both ways,
 * one read in flight each way.
 */
static int connect_pair(struct ibv_qp *qa, struct side *a, struct ibv_qp *qb,
			struct side *b, uint32_t psn)
{
	struct pair p = { .a = a, .b = b, .qa = qa, .qb = qb };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);

	spec.psn_a = psn;
	spec.psn_b = psn;
	spec.path.mtu = path_mtu;
	spec.path.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	spec.path.max_rd_atomic = 1;
	spec.path.max_dest_rd_atomic = 1;
	spec.path.min_rnr_timer = 12;
	return pair_connect(&p, &spec);
}

/*
 * Wait for the completion of (qpn, wr_id) on cq.  Others - late flushes of
 * an earlier case - are logged and skipped.
 */
static int wait_wc(struct ibv_cq *cq, uint32_t qpn, uint64_t wr_id,
		   struct ibv_wc *wc)
{
	struct timespec start, now;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			if (wc->qp_num == qpn && wc->wr_id == wr_id)
				return 0;
			fprintf(stderr, "skipped CQE of QP %u wr_id %#llx: %s\n",
				wc->qp_num, (unsigned long long)wc->wr_id,
				ibv_wc_status_str(wc->status));
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec > POLL_SECONDS)
			return -ETIMEDOUT;
	}
}

static int post_rdma(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		     void *laddr, uint32_t len, uint32_t lkey, uint64_t raddr,
		     uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len,
			       .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

struct healthy {
	struct ibv_qp *qa, *qb;
	struct ibv_mr *src, *dst, *rbuf;
	uint8_t *src_buf, *dst_buf, *recv_buf;
	unsigned int round;
};

/* One RDMA WRITE and one SEND on the healthy pair, both data-checked. */
static void check_healthy(struct healthy *h, struct side *a, struct side *b,
			  const char *when)
{
	struct ibv_sge rsge = { .addr = (uintptr_t)h->recv_buf,
				.length = MSG_SIZE, .lkey = h->rbuf->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_wc wc;
	char name[64];
	int i, rc;

	snprintf(name, sizeof(name), "healthy-qp-%s", when);
	h->round++;
	for (i = 0; i < MSG_SIZE; i++)
		h->src_buf[i] = (uint8_t)(i * 7 + h->round);
	memset(h->dst_buf, 0, MSG_SIZE);
	memset(h->recv_buf, 0, MSG_SIZE);

	rc = post_rdma(h->qa, 1, IBV_WR_RDMA_WRITE, h->src_buf, MSG_SIZE,
		       h->src->lkey, (uintptr_t)h->dst_buf, h->dst->rkey);
	if (!rc)
		rc = wait_wc(a->cq, h->qa->qp_num, 1, &wc);
	if (rc || wc.status != IBV_WC_SUCCESS) {
		report(0, name, "RDMA WRITE: rc %d status %s", rc,
		       rc ? "-" : ibv_wc_status_str(wc.status));
		return;
	}
	if (memcmp(h->src_buf, h->dst_buf, MSG_SIZE)) {
		report(0, name, "RDMA WRITE data differs");
		return;
	}
	rc = ibv_post_recv(h->qb, &rwr, &rbad);
	if (!rc)
		rc = post_rdma(h->qa, 2, IBV_WR_SEND, h->src_buf, MSG_SIZE,
			       h->src->lkey, 0, 0);
	if (!rc)
		rc = wait_wc(a->cq, h->qa->qp_num, 2, &wc);
	if (!rc && wc.status == IBV_WC_SUCCESS)
		rc = wait_wc(b->cq, h->qb->qp_num, 7, &wc);
	if (rc || wc.status != IBV_WC_SUCCESS || wc.byte_len != MSG_SIZE ||
	    memcmp(h->src_buf, h->recv_buf, MSG_SIZE)) {
		report(0, name, "SEND: rc %d status %s len %u", rc,
		       rc ? "-" : ibv_wc_status_str(wc.status),
		       rc ? 0 : wc.byte_len);
		return;
	}
	report(1, name, "4096 B RDMA WRITE and SEND, data verified");
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct ibv_port_attr pa, pb;
	struct healthy h = {};
	struct ibv_qp *va, *vb;
	struct ibv_mr *ro, *rw, *wo, *lmr;
	uint8_t *ro_buf, *rw_buf, *wo_buf, *lbuf, *pattern;
	struct ibv_wc wc;
	struct {
		const char *name;
		enum ibv_wr_opcode op;
		uint64_t raddr;
		uint32_t rkey;
		uint32_t len;
		int bad_lkey;
		enum ibv_wc_status want;
		uint8_t *target;
	} cases[5];
	unsigned int i;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV_A GID_INDEX_A DEV_B GID_INDEX_B\n",
			argv[0]);
		return 2;
	}
	if (side_open_gid(&a, argv[1], atoi(argv[2])) ||
	    side_open_gid(&b, argv[3], atoi(argv[4])) ||
	    ibv_query_port(a.ctx, 1, &pa) || ibv_query_port(b.ctx, 1, &pb)) {
		report(0, "setup", "cannot open the devices: %s", strerror(errno));
		return 1;
	}
	path_mtu = pa.active_mtu < pb.active_mtu ? pa.active_mtu :
						  pb.active_mtu;

	h.src_buf = aligned_alloc(4096, MSG_SIZE);
	h.dst_buf = aligned_alloc(4096, MSG_SIZE);
	h.recv_buf = aligned_alloc(4096, MSG_SIZE);
	ro_buf = aligned_alloc(4096, MSG_SIZE);
	rw_buf = aligned_alloc(4096, MSG_SIZE);
	wo_buf = aligned_alloc(4096, MSG_SIZE);
	lbuf = aligned_alloc(4096, MSG_SIZE);
	pattern = malloc(MSG_SIZE);
	for (i = 0; i < MSG_SIZE; i++) {
		pattern[i] = (uint8_t)(0xa5 ^ i);
		lbuf[i] = (uint8_t)i;
	}
	memcpy(ro_buf, pattern, MSG_SIZE);
	memcpy(rw_buf, pattern, MSG_SIZE);
	memcpy(wo_buf, pattern, MSG_SIZE);

	h.src = ibv_reg_mr(a.pd, h.src_buf, MSG_SIZE, IBV_ACCESS_LOCAL_WRITE);
	h.dst = ibv_reg_mr(b.pd, h.dst_buf, MSG_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	h.rbuf = ibv_reg_mr(b.pd, h.recv_buf, MSG_SIZE, IBV_ACCESS_LOCAL_WRITE);
	/* Responder MRs: read-only, read-write, write-only. */
	ro = ibv_reg_mr(b.pd, ro_buf, MSG_SIZE,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	rw = ibv_reg_mr(b.pd, rw_buf, MSG_SIZE,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	wo = ibv_reg_mr(b.pd, wo_buf, MSG_SIZE,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	lmr = ibv_reg_mr(a.pd, lbuf, MSG_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!h.src || !h.dst || !h.rbuf || !ro || !rw || !wo || !lmr) {
		report(0, "setup", "ibv_reg_mr: %s", strerror(errno));
		return 1;
	}

	h.qa = create_qp(&a);
	h.qb = create_qp(&b);
	va = create_qp(&a);
	vb = create_qp(&b);
	if (!h.qa || !h.qb || !va || !vb ||
	    connect_pair(h.qa, &a, h.qb, &b, 100) ||
	    connect_pair(va, &a, vb, &b, 5000)) {
		report(0, "setup", "QPs: %s", strerror(errno));
		return 1;
	}
	report(1, "setup", "%s <-> %s: healthy QPs %u/%u, victim QPs %u/%u",
	       argv[1], argv[3], h.qa->qp_num, h.qb->qp_num, va->qp_num,
	       vb->qp_num);
	check_healthy(&h, &a, &b, "before");

	cases[0] = (typeof(cases[0])){ "write-without-remote-write",
		IBV_WR_RDMA_WRITE, (uintptr_t)ro_buf, ro->rkey, 256, 0,
		IBV_WC_REM_ACCESS_ERR, ro_buf };
	cases[1] = (typeof(cases[0])){ "write-wrong-rkey", IBV_WR_RDMA_WRITE,
		(uintptr_t)rw_buf, rw->rkey ^ 0x5a5a00, 256, 0,
		IBV_WC_REM_ACCESS_ERR, rw_buf };
	cases[2] = (typeof(cases[0])){ "write-out-of-bounds",
		IBV_WR_RDMA_WRITE, (uintptr_t)rw_buf + MSG_SIZE - 64, rw->rkey,
		256, 0, IBV_WC_REM_ACCESS_ERR, rw_buf };
	cases[3] = (typeof(cases[0])){ "read-without-remote-read",
		IBV_WR_RDMA_READ, (uintptr_t)wo_buf, wo->rkey, 256, 0,
		IBV_WC_REM_ACCESS_ERR, wo_buf };
	cases[4] = (typeof(cases[0])){ "send-wrong-lkey", IBV_WR_SEND, 0, 0,
		256, 1, IBV_WC_LOC_PROT_ERR, NULL };

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t lkey = cases[i].bad_lkey ? lmr->lkey ^ 0x3c3c00 :
						    lmr->lkey;

		uint64_t wr_id = 0x5eed00 + i;

		rc = post_rdma(va, wr_id, cases[i].op, lbuf, cases[i].len, lkey,
			       cases[i].raddr, cases[i].rkey);
		if (!rc)
			rc = wait_wc(a.cq, va->qp_num, wr_id, &wc);
		if (rc) {
			report(0, cases[i].name, "no completion (rc %d)", rc);
		} else if (wc.status != cases[i].want) {
			report(0, cases[i].name, "status %s (want %s)",
			       ibv_wc_status_str(wc.status),
			       ibv_wc_status_str(cases[i].want));
		} else if (cases[i].target &&
			   memcmp(cases[i].target, pattern, MSG_SIZE)) {
			report(0, cases[i].name, "%s, but the target memory changed",
			       ibv_wc_status_str(wc.status));
		} else if (qp_state(va) != IBV_QPS_ERR) {
			report(0, cases[i].name, "%s, but the QP is in state %d, not ERR",
			       ibv_wc_status_str(wc.status), qp_state(va));
		} else {
			report(1, cases[i].name, "%s (vendor_err %#x), target untouched, requester QP in ERR",
			       ibv_wc_status_str(wc.status), wc.vendor_err);
		}
		check_healthy(&h, &a, &b, cases[i].name);
		/* Drain whatever the victim pair flushed, then reconnect it. */
		while (ibv_poll_cq(a.cq, 1, &wc) > 0 || ibv_poll_cq(b.cq, 1, &wc) > 0)
			;
		if (to_reset(va) || to_reset(vb) ||
		    connect_pair(va, &a, vb, &b, 6000 + 1000 * i)) {
			report(0, "reconnect", "victim QPs: %s", strerror(errno));
			break;
		}
	}
	check_healthy(&h, &a, &b, "after");

	ibv_destroy_qp(va);
	ibv_destroy_qp(vb);
	ibv_destroy_qp(h.qa);
	ibv_destroy_qp(h.qb);
	ibv_dereg_mr(h.src);
	ibv_dereg_mr(h.dst);
	ibv_dereg_mr(h.rbuf);
	ibv_dereg_mr(ro);
	ibv_dereg_mr(rw);
	ibv_dereg_mr(wo);
	ibv_dereg_mr(lmr);
	side_close(&a);
	side_close(&b);
	return report_failures() ? 1 : 0;
}
