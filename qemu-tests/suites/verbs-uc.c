// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-uc DEV GID DEV2 GID2: unreliable connected QPs between two devices
 * (spec: roce.rst "Unreliable connected").  A UC QP on DEV is connected to
 * one on DEV2 (path MTU 1024, the RoCE v2 GIDs at the given indexes), and:
 *
 * - creation with ibv_create_qp and ibv_create_qp_ex (UC's send ops), an RC
 *   attribute refused in a UC transition, ibv_query_qp after connecting;
 * - SEND, SEND_WITH_IMM, inline SEND, RDMA_WRITE, RDMA_WRITE_WITH_IMM, one
 *   packet and several (larger than the path MTU), through ibv_post_send
 *   and the ibv_wr_* API, data checked byte for byte and every wc field;
 * - what the UC responder drops without harming the QP: a SEND with no
 *   receive posted, a WRITE with a bad rkey (memory untouched); a receive
 *   too small completes in error; the next message always arrives whole;
 * - 100 two-packet SENDs in order;
 * - RDMA READ and the atomics refused on UC (at post time, or by an error
 *   completion on a device that checks later).
 *
 * One line per check: "PASS: uc/<check> ...", "FAIL: ...", "SKIP: ...".
 * Exits 0 unless it could not run at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "qp-pair.h"

#define MTU_BYTES	1024
#define RECV_OFF	0		/* receive buffers on b */
#define WRITE_OFF	32768		/* WRITE target on b */
#define IMM		0x5a6b7c8du

/*
 * The next completion on @cq must be @wr_id with @op, SUCCESS, @qpn, and on
 * a receive @len bytes and IBV_WC_WITH_IMM as in @flags (byte_len and
 * wc_flags of a send side completion are not defined; GRH is not on RC/UC
 * QPs); otherwise one FAIL line for @name and -1.
 */
static int wc_ok(const char *name, struct ibv_cq *cq, uint64_t wr_id,
		 enum ibv_wc_opcode op, uint32_t len, unsigned int flags,
		 uint32_t qpn, struct ibv_wc *out)
{
	struct ibv_wc wc;

	if (!poll_one(cq, &wc)) {
		report(0, name, "no completion for wr_id %#llx within %d ms",
		       (unsigned long long)wr_id, POLL_MS);
		return -1;
	}
	if (out)
		*out = wc;
	if (!(op & IBV_WC_RECV)) {
		len = wc.byte_len;
		flags = wc.wc_flags & IBV_WC_WITH_IMM;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != op || wc.byte_len != len ||
	    (wc.wc_flags & IBV_WC_WITH_IMM) != flags || wc.qp_num != qpn) {
		report(0, name, "wc: status %s wr_id %#llx opcode %d byte_len %u flags %#x qp %u; want wr_id %#llx opcode %d byte_len %u flags %#x qp %u",
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len,
		       wc.wc_flags, wc.qp_num, (unsigned long long)wr_id, op,
		       len, flags, qpn);
		return -1;
	}
	return 0;
}

static struct ibv_qp *uc_qp(struct side *s, struct ibv_cq *cq)
{
	return make_qp(s, IBV_QPT_UC, cq, NULL, 64, 2, 128);
}

/*
 * The pair of the tests: UC QPs of 64 WRs on CQs of 256, PSNs 0x1000 from
 * a and 0x2000 from b, REMOTE_WRITE the only right.
 */
static struct pair_spec uc_spec(void)
{
	struct pair_spec spec = pair_spec(IBV_QPT_UC);

	spec.cqe = 256;
	spec.cap = (struct ibv_qp_cap){ 64, 64, 2, 2, 128 };
	spec.psn_a = 0x1000;
	spec.psn_b = 0x2000;
	spec.path.access = IBV_ACCESS_REMOTE_WRITE;
	return spec;
}

static int pair_up(struct pair *p, struct side *a, struct side *b)
{
	struct pair_spec spec = uc_spec();

	*p = (struct pair){ .a = a, .b = b };
	return pair_open(p, &spec);
}

static int one_sge_post(struct ibv_qp *qp, uint64_t wr_id,
			enum ibv_wr_opcode op, unsigned int flags,
			void *addr, uint32_t len, uint32_t lkey,
			uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .send_flags = flags,
		.sg_list = &sge, .num_sge = 1,
	}, *bad_wr;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(IMM);
	return ibv_post_send(qp, &wr, &bad_wr);
}

/* A SEND of @len bytes into a fresh receive; checks both wcs and the data. */
static int send_check(struct pair *p, const char *name, uint64_t id,
		      enum ibv_wr_opcode op, unsigned int flags, uint32_t len)
{
	struct side *a = p->a, *b = p->b;
	unsigned int want = op == IBV_WR_SEND_WITH_IMM ? IBV_WC_WITH_IMM : 0;
	struct ibv_wc wc;
	int err;

	fill(a->buf, len, (uint8_t)id);
	memset(b->buf + RECV_OFF, 0, len + 64);
	if (postr(p->qb, id, b->buf + RECV_OFF, 16384, b->mr->lkey)) {
		report(0, name, "post_recv failed");
		return -1;
	}
	err = one_sge_post(p->qa, id, op, flags | IBV_SEND_SIGNALED, a->buf,
			   len, a->mr->lkey, 0, 0);
	if (err) {
		report(0, name, "post_send: %s", strerror(err));
		return -1;
	}
	if (wc_ok(name, p->ca, id, IBV_WC_SEND, len, 0,
		     p->qa->qp_num, NULL) ||
	    wc_ok(name, p->cb, id, IBV_WC_RECV, len, want,
		     p->qb->qp_num, &wc))
		return -1;
	if (want && wc.imm_data != htonl(IMM)) {
		report(0, name, "imm_data %#x, want %#x", ntohl(wc.imm_data), IMM);
		return -1;
	}
	report(!memcmp(a->buf, b->buf + RECV_OFF, len), name,
	       "%u bytes (%u packets)%s%s: data %s", len,
	       (len + MTU_BYTES - 1) / MTU_BYTES + !len,
	       want ? ", imm checked" : "",
	       flags & IBV_SEND_INLINE ? ", inline" : "",
	       memcmp(a->buf, b->buf + RECV_OFF, len) ? "DIFFERS" : "equal");
	return 0;
}

static void test_create(struct side *a)
{
	struct ibv_qp_init_attr_ex ex = {
		.qp_type = IBV_QPT_UC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = a->pd,
		.send_cq = a->cq,
		.recv_cq = a->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp;
	int err;

	qp = ibv_create_qp_ex(a->ctx, &ex);
	report(qp && qp->qp_type == IBV_QPT_UC && qp->state == IBV_QPS_RESET,
	       "create-ex", "ibv_create_qp_ex(UC, SEND/SEND_WITH_IMM/WRITE/WRITE_WITH_IMM): %s",
	       qp ? "created" : strerror(errno));
	if (!qp)
		return;
	err = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (!err) {
		/* UC has no RNR timer or read/atomic resources (IBTA). */
		memset(&attr, 0, sizeof(attr));
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = IBV_MTU_1024;
		attr.dest_qp_num = 1234;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.dgid = a->gid;
		attr.ah_attr.grh.sgid_index = a->gid_index;
		attr.ah_attr.port_num = 1;
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = 12;
		err = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
		report(err == EINVAL, "rc-attrs-refused",
		       "INIT->RTR with MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER: %s (want %s)",
		       strerror(err), strerror(EINVAL));
	} else {
		report(0, "rc-attrs-refused", "RESET->INIT: %s", strerror(err));
	}
	ibv_destroy_qp(qp);
}

static void test_query(struct pair *p)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int err;

	err = ibv_query_qp(p->qa, &attr, IBV_QP_STATE | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_SQ_PSN | IBV_QP_RQ_PSN |
			   IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_CAP, &init);
	report(!err && attr.qp_state == IBV_QPS_RTS &&
	       attr.path_mtu == IBV_MTU_1024 &&
	       attr.dest_qp_num == p->qb->qp_num && attr.sq_psn == 0x1000 &&
	       attr.rq_psn == 0x2000 &&
	       (attr.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) &&
	       !memcmp(&attr.ah_attr.grh.dgid, &p->b->gid, 16) &&
	       init.qp_type == IBV_QPT_UC && init.cap.max_send_wr >= 64,
	       "query",
	       "err %d state %d mtu %d dest %u/%u sq_psn %#x rq_psn %#x access %#x type %d max_send_wr %u",
	       err, attr.qp_state, attr.path_mtu, attr.dest_qp_num,
	       p->qb->qp_num, attr.sq_psn, attr.rq_psn, attr.qp_access_flags,
	       init.qp_type, init.cap.max_send_wr);
}

static void test_writes(struct pair *p)
{
	struct side *a = p->a, *b = p->b;
	static const uint32_t lens[] = { 200, 6000 };
	struct ibv_wc wc;
	unsigned int i;
	int err;

	/* A plain WRITE completes nothing at b: the SEND after it comes first. */
	fill(a->buf, 8000, 0x31);
	memset(b->buf + WRITE_OFF, 0, 8000);
	postr(p->qb, 0xb100, b->buf + RECV_OFF, 16384, b->mr->lkey);
	err = one_sge_post(p->qa, 0xa100, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED,
			   a->buf, 8000, a->mr->lkey,
			   (uintptr_t)b->buf + WRITE_OFF, b->mr->rkey);
	if (!err)
		err = one_sge_post(p->qa, 0xa101, IBV_WR_SEND,
				   IBV_SEND_SIGNALED, a->buf, 16, a->mr->lkey,
				   0, 0);
	if (err) {
		report(0, "write-multi", "post_send: %s", strerror(err));
		return;
	}
	if (!wc_ok("write-multi", p->ca, 0xa100, IBV_WC_RDMA_WRITE, 0,
		      0, p->qa->qp_num, NULL) &&
	    !wc_ok("write-multi", p->ca, 0xa101, IBV_WC_SEND, 0, 0,
		      p->qa->qp_num, NULL) &&
	    !wc_ok("write-multi", p->cb, 0xb100, IBV_WC_RECV, 16, 0,
		      p->qb->qp_num, NULL))
		report(!memcmp(a->buf, b->buf + WRITE_OFF, 8000), "write-multi",
		       "8000 bytes in 8 packets, no completion at the responder, then a SEND: data %s",
		       memcmp(a->buf, b->buf + WRITE_OFF, 8000) ? "DIFFERS" :
								  "equal");

	for (i = 0; i < 2; i++) {
		const char *name = i ? "write-imm-multi" : "write-imm";
		uint32_t len = lens[i];

		fill(a->buf, len, (uint8_t)(0x40 + i));
		memset(b->buf + WRITE_OFF, 0, len);
		postr(p->qb, 0xb110 + i, NULL, 0, b->mr->lkey);
		err = one_sge_post(p->qa, 0xa110 + i,
				   IBV_WR_RDMA_WRITE_WITH_IMM,
				   IBV_SEND_SIGNALED, a->buf, len,
				   a->mr->lkey, (uintptr_t)b->buf + WRITE_OFF,
				   b->mr->rkey);
		if (err) {
			report(0, name, "post_send: %s", strerror(err));
			continue;
		}
		if (wc_ok(name, p->ca, 0xa110 + i, IBV_WC_RDMA_WRITE,
			     0, 0, p->qa->qp_num, NULL) ||
		    wc_ok(name, p->cb, 0xb110 + i,
			     IBV_WC_RECV_RDMA_WITH_IMM, len, IBV_WC_WITH_IMM,
			     p->qb->qp_num, &wc))
			continue;
		report(!memcmp(a->buf, b->buf + WRITE_OFF, len) &&
		       wc.imm_data == htonl(IMM), name,
		       "%u bytes, receive consumed (byte_len %u, imm %#x): data %s",
		       len, wc.byte_len, ntohl(wc.imm_data),
		       memcmp(a->buf, b->buf + WRITE_OFF, len) ? "DIFFERS" :
								 "equal");
	}
}

/* The ibv_wr_* API on a UC QP made with ibv_create_qp_ex. */
static void test_qp_ex(struct side *a, struct side *b)
{
	struct pair_spec spec = uc_spec();
	struct pair p = { .a = a, .b = b };
	struct ibv_qp_ex *x;
	struct ibv_wc wc;
	int err;

	spec.cqe = 64;
	spec.cap = (struct ibv_qp_cap){ 16, 16, 1, 1, 0 };
	spec.cap_b = (struct ibv_qp_cap){ 64, 64, 2, 2, 128 };
	spec.send_ops = IBV_QP_EX_WITH_SEND_WITH_IMM |
			IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	spec.psn_a = 7;
	spec.psn_b = 9;
	if (pair_open(&p, &spec)) {
		report(0, "qpex-write-imm", "setup: %s", strerror(errno));
		goto out;
	}
	x = ibv_qp_to_qp_ex(p.qa);
	fill(a->buf, 3000, 0x77);
	memset(b->buf + WRITE_OFF, 0, 3000);
	postr(p.qb, 0xb200, NULL, 0, b->mr->lkey);
	ibv_wr_start(x);
	x->wr_id = 0xa200;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(x, b->mr->rkey, (uintptr_t)b->buf + WRITE_OFF,
			      htonl(IMM));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 3000);
	err = ibv_wr_complete(x);
	if (err) {
		report(0, "qpex-write-imm", "ibv_wr_complete: %s", strerror(err));
		goto out;
	}
	if (!wc_ok("qpex-write-imm", p.ca, 0xa200, IBV_WC_RDMA_WRITE,
		      0, 0, p.qa->qp_num, NULL) &&
	    !wc_ok("qpex-write-imm", p.cb, 0xb200,
		      IBV_WC_RECV_RDMA_WITH_IMM, 3000, IBV_WC_WITH_IMM,
		      p.qb->qp_num, &wc))
		report(!memcmp(a->buf, b->buf + WRITE_OFF, 3000) &&
		       wc.imm_data == htonl(IMM), "qpex-write-imm",
		       "ibv_wr_rdma_write_imm, 3000 bytes: data %s, imm %#x",
		       memcmp(a->buf, b->buf + WRITE_OFF, 3000) ? "DIFFERS" :
								  "equal",
		       ntohl(wc.imm_data));

	fill(a->buf, 2500, 0x78);
	postr(p.qb, 0xb201, b->buf + RECV_OFF, 16384, b->mr->lkey);
	ibv_wr_start(x);
	x->wr_id = 0xa201;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htonl(IMM));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 2500);
	err = ibv_wr_complete(x);
	if (err)
		report(0, "qpex-send-imm", "ibv_wr_complete: %s", strerror(err));
	else if (!wc_ok("qpex-send-imm", p.ca, 0xa201, IBV_WC_SEND, 0, 0,
			p.qa->qp_num, NULL) &&
		 !wc_ok("qpex-send-imm", p.cb, 0xb201, IBV_WC_RECV, 2500,
			IBV_WC_WITH_IMM, p.qb->qp_num, &wc))
		report(!memcmp(a->buf, b->buf + RECV_OFF, 2500) &&
		       wc.imm_data == htonl(IMM), "qpex-send-imm",
		       "ibv_wr_send_imm, 2500 bytes: data %s, imm %#x",
		       memcmp(a->buf, b->buf + RECV_OFF, 2500) ? "DIFFERS" :
								 "equal",
		       ntohl(wc.imm_data));
out:
	pair_close(&p);
}

/* What the UC responder drops must not cost the QP anything. */
static void test_drops(struct pair *p)
{
	struct side *a = p->a, *b = p->b;
	long long no_recv = hw_counter(b->name, "rx_uc_no_recv");
	long long dropped = hw_counter(b->name, "rx_uc_dropped");
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;
	struct ibv_wc wc;
	int i, err, clean = 1;

	/* A SEND with no receive posted: lost, and nothing of it stays. */
	fill(a->buf, 3000, 0x51);
	err = one_sge_post(p->qa, 0xa300, IBV_WR_SEND, IBV_SEND_SIGNALED,
			   a->buf, 3000, a->mr->lkey, 0, 0);
	if (err) {
		report(0, "no-recv-dropped", "post_send: %s", strerror(err));
	} else if (wc_ok("no-recv-dropped", p->ca, 0xa300, IBV_WC_SEND, 0, 0,
			 p->qa->qp_num, NULL)) {
		/* reported */
	} else if (poll_within(p->cb, &wc, 300)) {
		/* A dropped UC message completes nothing. */
		report(0, "no-recv-dropped", "the responder completed wr_id %#llx status %s",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
	} else if (send_check(p, "no-recv-then-send", 0x301, IBV_WR_SEND, 0,
			      2500) == 0) {
		long long now = hw_counter(b->name, "rx_uc_no_recv");

		char delta[48] = "";

		if (no_recv >= 0)
			snprintf(delta, sizeof(delta), "; rx_uc_no_recv +%lld",
				 now - no_recv);
		report(no_recv < 0 || now == no_recv + 1, "no-recv-dropped",
		       "sender completed, nothing at the responder, the next SEND arrived whole%s",
		       delta);
	}

	/* A WRITE with a bad rkey: dropped, memory untouched, QP goes on. */
	memset(b->buf + WRITE_OFF, 0, 4096);
	fill(a->buf, 2048, 0x52);
	err = one_sge_post(p->qa, 0xa310, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED,
			   a->buf, 2048, a->mr->lkey,
			   (uintptr_t)b->buf + WRITE_OFF, b->mr->rkey ^ 0x80);
	if (err) {
		report(0, "bad-rkey-dropped", "post_send: %s", strerror(err));
	} else if (wc_ok("bad-rkey-dropped", p->ca, 0xa310, IBV_WC_RDMA_WRITE,
			 0, 0, p->qa->qp_num, NULL)) {
		/* reported */
	} else if (send_check(p, "bad-rkey-then-send", 0x311, IBV_WR_SEND, 0,
			      1500) == 0) {
		long long now = hw_counter(b->name, "rx_uc_dropped");
		char delta[48] = "";

		if (dropped >= 0)
			snprintf(delta, sizeof(delta), "; rx_uc_dropped +%lld",
				 now - dropped);
		for (i = 0; i < 4096; i++)
			if (b->buf[WRITE_OFF + i])
				clean = 0;
		err = ibv_query_qp(p->qb, &attr, IBV_QP_STATE, &init);
		report(clean && !err && attr.qp_state == IBV_QPS_RTS &&
		       (dropped < 0 || now == dropped + 1), "bad-rkey-dropped",
		       "WRITE through rkey %#x ^ 0x80: target %s, responder QP state %d, next SEND arrived%s",
		       b->mr->rkey, clean ? "untouched" : "WRITTEN",
		       attr.qp_state, delta);
	}
}

/*
 * A receive too small for the SEND completes in error, on a pair of its own
 * (a device that moves the QP to ERR for it spoils nothing else).
 */
static void test_too_small(struct side *a, struct side *b)
{
	struct pair pair, *p = &pair;
	struct ibv_wc wc;
	int err;

	if (pair_up(p, a, b)) {
		report(0, "recv-too-small", "setup: %s", strerror(errno));
		pair_close(p);
		return;
	}
	fill(a->buf, 3000, 0x53);
	postr(p->qb, 0xb320, b->buf + RECV_OFF, 1000, b->mr->lkey);
	err = one_sge_post(p->qa, 0xa320, IBV_WR_SEND, IBV_SEND_SIGNALED,
			   a->buf, 3000, a->mr->lkey, 0, 0);
	if (err) {
		report(0, "recv-too-small", "post_send: %s", strerror(err));
	} else if (wc_ok("recv-too-small", p->ca, 0xa320, IBV_WC_SEND, 0, 0,
			 p->qa->qp_num, NULL)) {
		/* reported */
	} else if (!poll_one(p->cb, &wc)) {
		report(0, "recv-too-small", "no completion for the 1000-byte receive");
	} else {
		report(wc.wr_id == 0xb320 && wc.status == IBV_WC_LOC_LEN_ERR &&
		       wc.qp_num == p->qb->qp_num, "recv-too-small",
		       "3000-byte SEND into 1000 bytes: wr_id %#llx status %s (want LOC_LEN_ERR)",
		       (unsigned long long)wc.wr_id,
		       ibv_wc_status_str(wc.status));
		send_check(p, "recv-too-small-then-send", 0x321, IBV_WR_SEND, 0,
			   3000);
	}
	pair_close(p);
}

/*
 * 100 two-packet SENDs in order, data checked.  UC has no RNR: a SEND that
 * reaches the responder before its receive WQE is lost.  The receive
 * doorbell goes to one device and the SEND to the other, so nothing orders
 * them; receives are therefore kept 16 ahead and a SEND goes out only for a
 * receive posted 8 receives earlier (the last 8 after a pause).
 */
static void test_many(struct pair *p)
{
	struct side *a = p->a, *b = p->b;
	const uint32_t len = 2000, n = 100, ahead = 16, rslot = 2048;
	long long no_recv = hw_counter(b->name, "rx_uc_no_recv");
	long long dropped = hw_counter(b->name, "rx_uc_dropped");
	uint32_t posted = 0, sent = 0, done = 0, errors = 0;
	long long end = now_ms() + 60000;
	uint8_t *expect = a->buf + 65536 - len, *got;
	struct ibv_wc wc;
	int paused = 0;

	while (done < n && now_ms() < end) {
		while (posted < n && posted - done < ahead &&
		       !postr(p->qb, posted,
			      b->buf + RECV_OFF + (posted % ahead) * rslot,
			      rslot, b->mr->lkey))
			posted++;
		if (posted == n && !paused) {
			usleep(20000);
			paused = 1;
		}
		while (sent < done + 4 && (sent + 8 < posted || paused) &&
		       sent < posted) {
			uint8_t *src = a->buf + (sent % 4) * 4096;

			fill(src, len, (uint8_t)(sent * 3));
			if (one_sge_post(p->qa, sent, IBV_WR_SEND,
					 IBV_SEND_SIGNALED, src, len,
					 a->mr->lkey, 0, 0))
				break;
			sent++;
		}
		while (ibv_poll_cq(p->ca, 1, &wc) > 0)
			if (wc.status != IBV_WC_SUCCESS)
				errors++;
		if (ibv_poll_cq(p->cb, 1, &wc) <= 0) {
			usleep(100);
			continue;
		}
		fill(expect, len, (uint8_t)(done * 3));
		got = b->buf + RECV_OFF + (done % ahead) * rslot;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != done ||
		    wc.byte_len != len || memcmp(expect, got, len)) {
			report(0, "many-sends",
			       "receive %u: wr_id %llu status %s byte_len %u, data %s (rx_uc_no_recv +%lld, rx_uc_dropped +%lld)",
			       done, (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), wc.byte_len,
			       memcmp(expect, got, len) ? "DIFFERS" : "equal",
			       no_recv < 0 ? 0 :
					     hw_counter(b->name, "rx_uc_no_recv") - no_recv,
			       dropped < 0 ? 0 :
					     hw_counter(b->name, "rx_uc_dropped") - dropped);
			return;
		}
		done++;
	}
	report(done == n && !errors, "many-sends",
	       "%u of %u SENDs of %u bytes (2 packets) received in order, data checked; %u send errors",
	       done, n, len, errors);
}

/* RDMA READ and atomics do not exist on UC. */
static void test_refused(struct side *a, struct side *b)
{
	static const struct {
		enum ibv_wr_opcode op;
		const char *name;
	} ops[] = {
		{ IBV_WR_RDMA_READ, "read-refused" },
		{ IBV_WR_ATOMIC_CMP_AND_SWP, "cmp-swap-refused" },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, "fetch-add-refused" },
	};
	struct ibv_send_wr wr, *bad_wr;
	struct pair p;
	struct ibv_sge sge;
	struct ibv_wc wc;
	char then[48];
	unsigned int i;
	int err, untouched;

	for (i = 0; i < 3; i++) {
		if (pair_up(&p, a, b)) {
			report(0, ops[i].name, "setup: %s", strerror(errno));
			pair_close(&p);
			return;
		}
		memset(b->buf + WRITE_OFF, 0x3c, 8);
		sge = (struct ibv_sge){ (uintptr_t)a->buf, 8, a->mr->lkey };
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0xa400 + i;
		wr.opcode = ops[i].op;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ops[i].op == IBV_WR_RDMA_READ) {
			wr.wr.rdma.remote_addr = (uintptr_t)b->buf + WRITE_OFF;
			wr.wr.rdma.rkey = b->mr->rkey;
		} else {
			wr.wr.atomic.remote_addr = (uintptr_t)b->buf + WRITE_OFF;
			wr.wr.atomic.rkey = b->mr->rkey;
			wr.wr.atomic.compare_add = 1;
		}
		bad_wr = NULL;
		err = ibv_post_send(p.qa, &wr, &bad_wr);
		untouched = 1;
		if (err) {
			/* Refused at post: the QP is untouched and still sends. */
			report(err == EINVAL && bad_wr == &wr, ops[i].name,
			       "ibv_post_send: %s, bad_wr %s", strerror(err),
			       bad_wr == &wr ? "the WR" : "WRONG");
			snprintf(then, sizeof(then), "%s-then-send",
				 ops[i].name);
			send_check(&p, then, 0x410 + i, IBV_WR_SEND, 0, 1200);
		} else if (!poll_one(p.ca, &wc)) {
			report(0, ops[i].name, "accepted, and no completion");
		} else {
			usleep(100000);
			untouched = !memcmp(b->buf + WRITE_OFF,
					    "\x3c\x3c\x3c\x3c\x3c\x3c\x3c\x3c", 8);
			report(wc.status != IBV_WC_SUCCESS &&
			       wc.wr_id == 0xa400 + i && untouched, ops[i].name,
			       "accepted at post, completed with %s; remote 8 bytes %s",
			       ibv_wc_status_str(wc.status),
			       untouched ? "unchanged" : "CHANGED");
		}
		pair_close(&p);
	}
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct pair p;
	int rc = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("uc/");
	if (sides_open(&a, &b, argv)) {
		rc = 1;
		goto out;
	}

	p.qa = uc_qp(&a, a.cq);
	if (!p.qa) {
		if (errno == EOPNOTSUPP)
			report_skip("all", "%s has no UC QPs (ibv_create_qp: %s)",
				    a.name, strerror(errno));
		else
			report(0, "create", "ibv_create_qp(UC) on %s: %s",
			       a.name, strerror(errno));
		goto out;
	}
	report(p.qa->qp_type == IBV_QPT_UC && p.qa->state == IBV_QPS_RESET,
	       "create", "ibv_create_qp(UC) on %s: QPN %u, state %d", a.name,
	       p.qa->qp_num, p.qa->state);
	ibv_destroy_qp(p.qa);

	test_create(&a);
	if (pair_up(&p, &a, &b)) {
		report(0, "connect", "%s <-> %s: %s", a.name, b.name,
		       strerror(errno));
		pair_close(&p);
		goto out;
	}
	report(1, "connect", "QP %u on %s <-> QP %u on %s, RTS, path MTU 1024",
	       p.qa->qp_num, a.name, p.qb->qp_num, b.name);
	test_query(&p);
	send_check(&p, "send", 0x10, IBV_WR_SEND, 0, 64);
	send_check(&p, "send-multi", 0x11, IBV_WR_SEND, 0, 5000);
	send_check(&p, "send-imm", 0x12, IBV_WR_SEND_WITH_IMM, 0, 100);
	send_check(&p, "send-imm-multi", 0x13, IBV_WR_SEND_WITH_IMM, 0, 3000);
	send_check(&p, "send-inline", 0x14, IBV_WR_SEND, IBV_SEND_INLINE, 100);
	send_check(&p, "send-zero", 0x15, IBV_WR_SEND, 0, 0);
	test_writes(&p);
	test_drops(&p);
	test_many(&p);
	pair_close(&p);
	test_too_small(&a, &b);
	test_qp_ex(&a, &b);
	test_refused(&a, &b);
out:
	side_close(&b);
	side_close(&a);
	return rc;
}
