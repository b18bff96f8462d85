// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-xrc DEV GID DEV2 GID2: XRC (eXtended Reliable Connected) between two
 * devices.  On DEV2 (the target side) one XRC domain holds two XRC SRQs,
 * each completing on its own CQ, and a target QP; a second domain holds a
 * third SRQ.  On DEV one initiator QP sends to each SRQ by its number:
 * data checked byte for byte, completions on each SRQ's CQ with the target
 * QP's number.  Then RDMA WRITE / READ / atomics / WRITE with immediate over
 * XRC, sharing the target QP with ibv_open_qp from a second context of the
 * same domain file, teardown in the wrong order refused with EBUSY, and a
 * send naming the other domain's SRQ failing (REM_INV_REQ_ERR, the target
 * QP in ERR, nothing received) while the first connection keeps working.
 * Last, type-2 memory windows on XRC (xrc.rst "Memory windows"): DEV2's own
 * initiator binds one (IBV_WR_BIND_MW, then ibv_wr_bind_mw), DEV writes and
 * reads through it via DEV2's target, LOCAL_INV and SEND_WITH_INV end it,
 * and its stale key fails one connection only (REM_ACCESS_ERR).
 * Prints "PASS|FAIL|SKIP: xrc/<check> ..." lines; SKIPs everything on a
 * device without IBV_DEVICE_XRC (rxe).  Exits 0 unless it could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "qp-pair.h"

#define PSN		0x123
#define MSG		3000	/* three packets at a 1024-byte MTU */
#define BIG		6000
/* Offsets in the 64 KiB buffers. */
#define OFF_SRQ1	0
#define OFF_SRQ2	8192
#define OFF_SRQ3	16384
#define OFF_WRITE	24576
#define OFF_ATOMIC	40960
#define OFF_SRC		45056
/* The MR windows are bound to, and the window inside it. */
#define OFF_MW_MR	53248
#define MW_MR_LEN	12288
#define OFF_MW		57344
#define MW_LEN		4096

/* The target side: one domain with two SRQs and a target QP, and a second
 * domain with one SRQ.
 */
struct target {
	struct side s;
	char path[64];
	int fd;
	struct ibv_xrcd *xrcd, *xrcd2;
	struct ibv_cq *cq1, *cq2, *cq3;
	struct ibv_srq *srq1, *srq2, *srq3;
	uint32_t srqn1, srqn2, srqn3;
	struct ibv_qp *tgt, *tgt2;
};

struct initiator {
	struct side s;
	struct ibv_cq *scq;
	struct ibv_qp *ini, *ini2;
};

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = O_CREAT,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xrc_srq(struct side *s, struct ibv_xrcd *xrcd,
			       struct ibv_cq *cq, uint32_t *srqn)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = s->pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(s->ctx, &a);

	if (srq && ibv_get_srq_num(srq, srqn)) {
		ibv_destroy_srq(srq);
		return NULL;
	}
	return srq;
}

static struct ibv_qp *target_qp(struct side *s, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};

	return ibv_create_qp_ex(s->ctx, &a);
}

static struct ibv_qp *initiator_qp(struct side *s, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = cq,
		.cap = { .max_send_wr = 32, .max_send_sge = 2 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = s->pd,
	};

	return ibv_create_qp_ex(s->ctx, &a);
}

/*
 * RESET -> INIT -> RTR -> RTS towards @remote's QP @dest_qpn, PSN both ways
 * PSN; the initiator grants no remote rights (qp_to_*() give each XRC half
 * what IB requires of it).
 */
static int xrc_connect(struct ibv_qp *qp, const struct side *local,
		       const struct side *remote, uint32_t dest_qpn)
{
	struct qp_path path = qp_path(local->gid_index, &remote->gid,
				      dest_qpn);

	path.sq_psn = PSN;
	path.rq_psn = PSN;
	if (qp->qp_type == IBV_QPT_XRC_SEND)
		path.access = 0;
	return qp_connect(qp, &path);
}

static int srq_recv(struct ibv_srq *srq, uint64_t wr_id, void *addr,
		    uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad_wr;

	return ibv_post_srq_recv(srq, &wr, &bad_wr);
}

/* One XRC send WR naming @srqn; @rdma/@atomic fill the opcode's segment. */
static int xrc_post(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
		    uint32_t srqn, void *addr, uint32_t len, uint32_t lkey,
		    uint64_t raddr, uint32_t rkey, uint64_t cmp_add,
		    uint64_t swap)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.sg_list = &sge, .num_sge = 1,
	}, *bad_wr;

	wr.qp_type.xrc.remote_srqn = srqn;
	if (op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp_add;
		wr.wr.atomic.swap = swap;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0x5eed0001);
	return ibv_post_send(qp, &wr, &bad_wr);
}

/* One completion expected on @cq; 0 when it has @status and @wr_id. */
static int expect_wc(const char *check, struct ibv_cq *cq, uint64_t wr_id,
		     enum ibv_wc_status status, struct ibv_wc *out)
{
	struct ibv_wc wc;

	if (!poll_one(cq, &wc)) {
		report(0, check, "no completion for wr_id %#llx within %d ms",
		       (unsigned long long)wr_id, POLL_MS);
		return -1;
	}
	if (out)
		*out = wc;
	if (wc.wr_id != wr_id || wc.status != status) {
		report(0, check, "wr_id %#llx status %s (vendor_err %u); want wr_id %#llx status %s",
		       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		       wc.vendor_err, (unsigned long long)wr_id,
		       ibv_wc_status_str(status));
		return -1;
	}
	return 0;
}

/* No completion may arrive on @cq within a short while. */
static int quiet(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	return !poll_within(cq, &wc, 200);
}

static int setup_target(struct target *t)
{
	snprintf(t->path, sizeof(t->path), "/tmp/verbs-xrc-XXXXXX");
	t->fd = mkstemp(t->path);
	if (t->fd < 0)
		return -1;
	t->xrcd = open_xrcd(t->s.ctx, t->fd);
	t->xrcd2 = open_xrcd(t->s.ctx, -1);
	t->cq1 = ibv_create_cq(t->s.ctx, 16, NULL, NULL, 0);
	t->cq2 = ibv_create_cq(t->s.ctx, 16, NULL, NULL, 0);
	t->cq3 = ibv_create_cq(t->s.ctx, 16, NULL, NULL, 0);
	if (!t->xrcd || !t->xrcd2 || !t->cq1 || !t->cq2 || !t->cq3)
		return -1;
	t->srq1 = xrc_srq(&t->s, t->xrcd, t->cq1, &t->srqn1);
	t->srq2 = xrc_srq(&t->s, t->xrcd, t->cq2, &t->srqn2);
	t->srq3 = xrc_srq(&t->s, t->xrcd2, t->cq3, &t->srqn3);
	t->tgt = target_qp(&t->s, t->xrcd);
	t->tgt2 = target_qp(&t->s, t->xrcd);
	return t->srq1 && t->srq2 && t->srq3 && t->tgt && t->tgt2 ? 0 : -1;
}

static void objects(struct target *t, struct initiator *i)
{
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *bad_swr;
	struct ibv_recv_wr rwr = {}, *bad_rwr;
	int e_send, e_recv;

	if (t->srqn1 == t->srqn2 || t->srqn1 == t->srqn3 ||
	    t->srqn2 == t->srqn3) {
		report(0, "objects", "SRQ numbers %u %u %u not distinct", t->srqn1,
		       t->srqn2, t->srqn3);
		return;
	}
	/* A target has no queue, an initiator no receive queue. */
	e_send = ibv_post_send(t->tgt, &swr, &bad_swr);
	e_recv = ibv_post_recv(i->ini, &rwr, &bad_rwr);
	if (e_send != EINVAL || e_recv != EINVAL) {
		report(0, "objects", "post_send on a target: %d, post_recv on an initiator: %d; want EINVAL",
		       e_send, e_recv);
		return;
	}
	report(1, "objects", "2 domains, XRC SRQs %u %u (domain 1) %u (domain 2), target QPs %u %u, initiator QPs %u %u; target post_send and initiator post_recv refused",
	       t->srqn1, t->srqn2, t->srqn3, t->tgt->qp_num, t->tgt2->qp_num,
	       i->ini->qp_num, i->ini2->qp_num);
}

/* A completion for a receive from an XRC SRQ: on its CQ, from the target. */
static int check_recv(const char *check, struct ibv_cq *cq, uint64_t wr_id,
		      uint32_t qpn, uint32_t len, enum ibv_wc_opcode op,
		      int imm)
{
	struct ibv_wc wc;

	if (expect_wc(check, cq, wr_id, IBV_WC_SUCCESS, &wc))
		return -1;
	if (wc.qp_num != qpn || wc.byte_len != len || wc.opcode != op ||
	    !!(wc.wc_flags & IBV_WC_WITH_IMM) != imm ||
	    (imm && wc.imm_data != htonl(0x5eed0001))) {
		report(0, check, "qp %u byte_len %u opcode %d flags %#x imm %#x; want qp %u byte_len %u opcode %d",
		       wc.qp_num, wc.byte_len, wc.opcode, wc.wc_flags,
		       ntohl(wc.imm_data), qpn, len, op);
		return -1;
	}
	return 0;
}

static void sends(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;

	memset(tb, 0, OFF_WRITE);
	fill(ib + OFF_SRC, MSG, 0x31);
	fill(ib + OFF_SRC + 8192, 700, 0x52);
	if (srq_recv(t->srq1, 0x101, tb + OFF_SRQ1, 8192, t->s.mr->lkey) ||
	    srq_recv(t->srq2, 0x202, tb + OFF_SRQ2, 8192, t->s.mr->lkey)) {
		report(0, "send-srq", "post_srq_recv failed");
		return;
	}
	/* To SRQ 2 first: each message goes where its WR says. */
	if (xrc_post(i->ini, 1, IBV_WR_SEND, t->srqn2, ib + OFF_SRC + 8192,
		     700, i->s.mr->lkey, 0, 0, 0, 0) ||
	    xrc_post(i->ini, 2, IBV_WR_SEND, t->srqn1, ib + OFF_SRC, MSG,
		     i->s.mr->lkey, 0, 0, 0, 0)) {
		report(0, "send-srq", "ibv_post_send failed: %s", strerror(errno));
		return;
	}
	if (expect_wc("send-srq", i->scq, 1, IBV_WC_SUCCESS, NULL) ||
	    expect_wc("send-srq", i->scq, 2, IBV_WC_SUCCESS, NULL))
		return;
	if (check_recv("send-srq2", t->cq2, 0x202, t->tgt->qp_num, 700,
		       IBV_WC_RECV, 0) ||
	    check_recv("send-srq1", t->cq1, 0x101, t->tgt->qp_num, MSG,
		       IBV_WC_RECV, 0))
		return;
	if (memcmp(tb + OFF_SRQ2, ib + OFF_SRC + 8192, 700) ||
	    memcmp(tb + OFF_SRQ1, ib + OFF_SRC, MSG)) {
		report(0, "send-srq", "received data differs");
		return;
	}
	if (!quiet(t->cq1) || !quiet(t->cq2) || !quiet(t->cq3)) {
		report(0, "send-srq", "an extra completion on an SRQ's CQ");
		return;
	}
	report(1, "send-srq1", "%u B (3 packets) into SRQ %u, completion on its CQ from target QP %u, data checked",
	       MSG, t->srqn1, t->tgt->qp_num);
	report(1, "send-srq2", "700 B into SRQ %u, completion on its own CQ, data checked; SRQ 3's CQ quiet",
	       t->srqn2);
}

static void send_imm(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;

	memset(tb + OFF_SRQ2, 0, 8192);
	fill(ib + OFF_SRC, BIG, 0x77);
	if (srq_recv(t->srq2, 0x203, tb + OFF_SRQ2, 8192, t->s.mr->lkey) ||
	    xrc_post(i->ini, 3, IBV_WR_SEND_WITH_IMM, t->srqn2, ib + OFF_SRC,
		     BIG, i->s.mr->lkey, 0, 0, 0, 0)) {
		report(0, "send-imm", "post failed: %s", strerror(errno));
		return;
	}
	if (expect_wc("send-imm", i->scq, 3, IBV_WC_SUCCESS, NULL) ||
	    check_recv("send-imm", t->cq2, 0x203, t->tgt->qp_num, BIG,
		       IBV_WC_RECV, 1))
		return;
	if (memcmp(tb + OFF_SRQ2, ib + OFF_SRC, BIG)) {
		report(0, "send-imm", "received data differs");
		return;
	}
	report(1, "send-imm", "%u B SEND with immediate into SRQ %u, immediate and data checked",
	       BIG, t->srqn2);
}

static void rdma(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;
	uint64_t raddr = (uintptr_t)(tb + OFF_WRITE);

	fill(ib + OFF_SRC, 8192, 0x13);
	memset(tb + OFF_WRITE, 0, 8192);
	/* WRITE and READ name an SRQ too (its PD checks the rkey). */
	if (xrc_post(i->ini, 4, IBV_WR_RDMA_WRITE, t->srqn1, ib + OFF_SRC, 8192,
		     i->s.mr->lkey, raddr, t->s.mr->rkey, 0, 0) ||
	    expect_wc("write", i->scq, 4, IBV_WC_SUCCESS, NULL))
		return;
	if (memcmp(tb + OFF_WRITE, ib + OFF_SRC, 8192)) {
		report(0, "write", "written data differs");
		return;
	}
	report(1, "write", "8192 B RDMA WRITE over XRC into the target's MR, data checked");

	fill(tb + OFF_WRITE, 4096, 0x99);
	memset(ib + OFF_SRC, 0, 4096);
	if (xrc_post(i->ini, 5, IBV_WR_RDMA_READ, t->srqn2, ib + OFF_SRC, 4096,
		     i->s.mr->lkey, raddr, t->s.mr->rkey, 0, 0) ||
	    expect_wc("read", i->scq, 5, IBV_WC_SUCCESS, NULL))
		return;
	if (memcmp(tb + OFF_WRITE, ib + OFF_SRC, 4096)) {
		report(0, "read", "read data differs");
		return;
	}
	if (!quiet(t->cq1) || !quiet(t->cq2)) {
		report(0, "read", "WRITE/READ consumed a receive WQE");
		return;
	}
	report(1, "read", "4096 B RDMA READ over XRC, data checked; no receive consumed");
}

static void atomics(struct target *t, struct initiator *i)
{
	uint64_t *remote = (uint64_t *)(t->s.buf + OFF_ATOMIC);
	uint64_t *local = (uint64_t *)(i->s.buf + OFF_ATOMIC);
	uint64_t raddr = (uintptr_t)remote;

	if (i->s.attr.atomic_cap == IBV_ATOMIC_NONE) {
		report_skip("atomic", "device has no atomics");
		return;
	}
	*remote = 40;
	*local = 0;
	if (xrc_post(i->ini, 6, IBV_WR_ATOMIC_FETCH_AND_ADD, t->srqn1, local,
		     8, i->s.mr->lkey, raddr, t->s.mr->rkey, 2, 0) ||
	    expect_wc("atomic", i->scq, 6, IBV_WC_SUCCESS, NULL))
		return;
	if (*local != 40 || *remote != 42) {
		report(0, "atomic", "fetch-add: got %llu, remote %llu; want 40, 42",
		       (unsigned long long)*local, (unsigned long long)*remote);
		return;
	}
	if (xrc_post(i->ini, 7, IBV_WR_ATOMIC_CMP_AND_SWP, t->srqn2, local, 8,
		     i->s.mr->lkey, raddr, t->s.mr->rkey, 42, 7) ||
	    expect_wc("atomic", i->scq, 7, IBV_WC_SUCCESS, NULL))
		return;
	if (*local != 42 || *remote != 7) {
		report(0, "atomic", "cmp-swap: got %llu, remote %llu; want 42, 7",
		       (unsigned long long)*local, (unsigned long long)*remote);
		return;
	}
	report(1, "atomic", "fetch-add 40+2 and compare-swap 42->7 over XRC, values checked");
}

static void write_imm(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;

	fill(ib + OFF_SRC, 2000, 0x21);
	memset(tb + OFF_WRITE, 0, 2000);
	if (srq_recv(t->srq1, 0x104, tb + OFF_SRQ1, 16, t->s.mr->lkey) ||
	    xrc_post(i->ini, 8, IBV_WR_RDMA_WRITE_WITH_IMM, t->srqn1,
		     ib + OFF_SRC, 2000, i->s.mr->lkey,
		     (uintptr_t)(tb + OFF_WRITE), t->s.mr->rkey, 0, 0)) {
		report(0, "write-imm", "post failed: %s", strerror(errno));
		return;
	}
	if (expect_wc("write-imm", i->scq, 8, IBV_WC_SUCCESS, NULL) ||
	    check_recv("write-imm", t->cq1, 0x104, t->tgt->qp_num, 2000,
		       IBV_WC_RECV_RDMA_WITH_IMM, 1))
		return;
	if (memcmp(tb + OFF_WRITE, ib + OFF_SRC, 2000)) {
		report(0, "write-imm", "written data differs");
		return;
	}
	report(1, "write-imm", "2000 B WRITE with immediate: data in the MR, completion on SRQ %u's CQ",
	       t->srqn1);
}

/* Another context opens the domain's file and the target QP by number. */
static void open_qp(struct target *t, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = list ? find_dev(list, name) : NULL;
	struct ibv_context *ctx = dev ? ibv_open_device(dev) : NULL;
	struct ibv_qp_open_attr oa = {};
	struct ibv_xrcd *xrcd = NULL;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp *qp = NULL;

	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		report(0, "open-qp", "second context: %s", strerror(errno));
		return;
	}
	xrcd = open_xrcd(ctx, t->fd);
	if (!xrcd) {
		report(0, "open-qp", "ibv_open_xrcd of the same file: %s",
		       strerror(errno));
		goto out;
	}
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = t->tgt->qp_num;
	oa.qp_type = IBV_QPT_XRC_RECV;
	oa.xrcd = xrcd;
	qp = ibv_open_qp(ctx, &oa);
	if (!qp) {
		report(0, "open-qp", "ibv_open_qp(%u): %s", oa.qp_num,
		       strerror(errno));
		goto out;
	}
	if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) ||
	    qa.qp_state != IBV_QPS_RTS) {
		report(0, "open-qp", "the opened QP does not query as RTS");
		goto out;
	}
	report(1, "open-qp", "a second context opened the domain file and target QP %u (RTS)",
	       qp->qp_num);
out:
	if (qp && ibv_destroy_qp(qp))
		report(0, "open-qp", "closing the opened QP: %s", strerror(errno));
	if (xrcd && ibv_close_xrcd(xrcd))
		report(0, "open-qp", "closing the second XRCD handle: %s",
		       strerror(errno));
	ibv_close_device(ctx);
}

/* Objects in use cannot go: the domain with SRQs/QPs, an SRQ's CQ. */
static void busy(struct target *t)
{
	int e_xrcd = ibv_close_xrcd(t->xrcd);
	int e_cq = ibv_destroy_cq(t->cq1);

	if (e_xrcd != EBUSY || e_cq != EBUSY) {
		report(0, "teardown-order", "close_xrcd with SRQs/QPs: %d, destroy of an XRC SRQ's CQ: %d; want EBUSY (%d)",
		       e_xrcd, e_cq, EBUSY);
		if (!e_xrcd)
			t->xrcd = NULL;
		if (!e_cq)
			t->cq1 = NULL;
		return;
	}
	report(1, "teardown-order", "closing a domain with SRQs and target QPs and destroying an XRC SRQ's CQ refused with EBUSY");
}

/*
 * The second connection names SRQ 3, of the other domain: an invalid
 * request.  Its initiator gets REM_INV_REQ_ERR, its target goes to ERR,
 * SRQ 3 receives nothing; the first connection keeps working.
 */
static void wrong_domain(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_wc wc;

	memset(tb + OFF_SRQ3, 0, 4096);
	fill(ib + OFF_SRC, 512, 0x44);
	if (srq_recv(t->srq3, 0x301, tb + OFF_SRQ3, 4096, t->s.mr->lkey) ||
	    xrc_post(i->ini2, 9, IBV_WR_SEND, t->srqn3, ib + OFF_SRC, 512,
		     i->s.mr->lkey, 0, 0, 0, 0)) {
		report(0, "wrong-domain", "post failed: %s", strerror(errno));
		return;
	}
	if (expect_wc("wrong-domain", i->scq, 9, IBV_WC_REM_INV_REQ_ERR, &wc))
		return;
	if (ibv_query_qp(t->tgt2, &qa, IBV_QP_STATE, &qi) ||
	    qa.qp_state != IBV_QPS_ERR) {
		report(0, "wrong-domain", "target QP %u not in ERR", t->tgt2->qp_num);
		return;
	}
	if (!quiet(t->cq3) || tb[OFF_SRQ3] != 0) {
		report(0, "wrong-domain", "SRQ %u of the other domain received",
		       t->srqn3);
		return;
	}
	report(1, "wrong-domain", "SEND naming SRQ %u of another domain: REM_INV_REQ_ERR (vendor_err %u), target QP %u in ERR, nothing received",
	       t->srqn3, wc.vendor_err, t->tgt2->qp_num);

	/* The first connection and domain 1's SRQs are unaffected. */
	memset(tb + OFF_SRQ1, 0, 4096);
	fill(ib + OFF_SRC, 1500, 0x66);
	if (srq_recv(t->srq1, 0x105, tb + OFF_SRQ1, 4096, t->s.mr->lkey) ||
	    xrc_post(i->ini, 10, IBV_WR_SEND, t->srqn1, ib + OFF_SRC, 1500,
		     i->s.mr->lkey, 0, 0, 0, 0)) {
		report(0, "others-keep-working", "post failed: %s", strerror(errno));
		return;
	}
	if (expect_wc("others-keep-working", i->scq, 10, IBV_WC_SUCCESS, NULL) ||
	    check_recv("others-keep-working", t->cq1, 0x105, t->tgt->qp_num,
		       1500, IBV_WC_RECV, 0))
		return;
	if (memcmp(tb + OFF_SRQ1, ib + OFF_SRC, 1500)) {
		report(0, "others-keep-working", "received data differs");
		return;
	}
	report(1, "others-keep-working", "the first initiator/target pair still delivers into SRQ %u, data checked",
	       t->srqn1);
}

/* An SRQ number beyond 24 bits is refused at the post. */
static void bad_srqn(struct initiator *i)
{
	int err = xrc_post(i->ini, 11, IBV_WR_SEND, 0x1000000, i->s.buf, 8,
			   i->s.mr->lkey, 0, 0, 0, 0);

	if (err != EINVAL) {
		report(0, "bad-srqn", "post naming SRQ 0x1000000 returned %d, want EINVAL",
		       err);
		return;
	}
	report(1, "bad-srqn", "a send naming an SRQ number above 24 bits refused with EINVAL");
}

/* What the memory-window checks make on both sides. */
struct mw_objs {
	struct ibv_xrcd *xrcd_i;	/* on the initiator's device */
	struct ibv_qp *tgt_i;		/* ... connected to ini_t */
	struct ibv_cq *scq_t;
	struct ibv_qp *ini_t;		/* the target device's own initiator */
	struct ibv_qp *ini3, *tgt3;	/* a connection to fail */
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	uint32_t rkey;			/* the window's key of its last bind */
};

/* One local operation's completion on @cq: @wr_id, success, @op. */
static int expect_local(const char *check, struct ibv_cq *cq, uint64_t wr_id,
			enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	if (expect_wc(check, cq, wr_id, IBV_WC_SUCCESS, &wc))
		return -1;
	if (wc.opcode != op) {
		report(0, check, "completion opcode %d, want %d", wc.opcode, op);
		return -1;
	}
	return 0;
}

static int mw_setup(struct target *t, struct initiator *i, struct mw_objs *m)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND,
		.cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = t->s.pd,
		.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_SEND,
	};

	m->xrcd_i = open_xrcd(i->s.ctx, -1);
	m->tgt_i = m->xrcd_i ? target_qp(&i->s, m->xrcd_i) : NULL;
	m->scq_t = ibv_create_cq(t->s.ctx, 16, NULL, NULL, 0);
	a.send_cq = m->scq_t;
	m->ini_t = m->scq_t ? ibv_create_qp_ex(t->s.ctx, &a) : NULL;
	m->tgt3 = target_qp(&t->s, t->xrcd);
	m->ini3 = initiator_qp(&i->s, i->scq);
	if (!m->tgt_i || !m->ini_t || !m->tgt3 || !m->ini3)
		return -1;
	if (xrc_connect(m->ini_t, &t->s, &i->s, m->tgt_i->qp_num) ||
	    xrc_connect(m->tgt_i, &i->s, &t->s, m->ini_t->qp_num) ||
	    xrc_connect(m->ini3, &i->s, &t->s, m->tgt3->qp_num) ||
	    xrc_connect(m->tgt3, &t->s, &i->s, m->ini3->qp_num))
		return -1;
	m->mr = ibv_reg_mr(t->s.pd, t->s.buf + OFF_MW_MR, MW_MR_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	m->mw = m->mr ? ibv_alloc_mw(t->s.pd, IBV_MW_TYPE_2) : NULL;
	if (!m->mw)
		return -1;
	m->rkey = m->mw->rkey;
	return 0;
}

static void mw_teardown(struct mw_objs *m)
{
	struct ibv_qp *qps[] = { m->ini_t, m->tgt_i, m->ini3, m->tgt3 };
	int ok = 1;
	size_t n;

	if (m->mw && ibv_dealloc_mw(m->mw))
		ok = 0;
	if (m->mr && ibv_dereg_mr(m->mr))
		ok = 0;
	for (n = 0; n < 4; n++)
		if (qps[n] && ibv_destroy_qp(qps[n]))
			ok = 0;
	if (m->scq_t && ibv_destroy_cq(m->scq_t))
		ok = 0;
	if (m->xrcd_i && ibv_close_xrcd(m->xrcd_i))
		ok = 0;
	if (!ok)
		report(0, "mw2-teardown", "a destroy failed: %s", strerror(errno));
}

/* BIND_MW of the window over [OFF_MW, +MW_LEN) by ibv_post_send. */
static int mw_post_bind(struct mw_objs *m, uint64_t wr_id, uint8_t *tbuf)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad_wr;

	m->rkey = ibv_inc_rkey(m->rkey);
	wr.bind_mw.mw = m->mw;
	wr.bind_mw.rkey = m->rkey;
	wr.bind_mw.bind_info.mr = m->mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(tbuf + OFF_MW);
	wr.bind_mw.bind_info.length = MW_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					       IBV_ACCESS_REMOTE_READ;
	return ibv_post_send(m->ini_t, &wr, &bad_wr);
}

/* The same through the ibv_wr_* API. */
static int mw_wr_bind(struct mw_objs *m, uint64_t wr_id, uint8_t *tbuf)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(m->ini_t);
	struct ibv_mw_bind_info info = {
		.mr = m->mr, .addr = (uintptr_t)(tbuf + OFF_MW),
		.length = MW_LEN,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	m->rkey = ibv_inc_rkey(m->rkey);
	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, m->mw, m->rkey, &info);
	return ibv_wr_complete(x);
}

static int mw_wr_local_inv(struct mw_objs *m, uint64_t wr_id)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(m->ini_t);

	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(x, m->rkey);
	return ibv_wr_complete(x);
}

/*
 * A WRITE of MW_LEN bytes into the window under @rkey, then a READ of them
 * back, from the first initiator under SRQs 1 and 2: data checked.
 */
static int mw_write_read(const char *check, struct target *t,
			 struct initiator *i, uint32_t rkey, uint64_t wr_id,
			 uint8_t seed)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;
	uint64_t raddr = (uintptr_t)(tb + OFF_MW);

	fill(ib + OFF_SRC, MW_LEN, seed);
	memset(tb + OFF_MW, 0, MW_LEN);
	memset(ib + OFF_SRC + MW_LEN, 0, MW_LEN);
	if (xrc_post(i->ini, wr_id, IBV_WR_RDMA_WRITE, t->srqn1, ib + OFF_SRC,
		     MW_LEN, i->s.mr->lkey, raddr, rkey, 0, 0) ||
	    xrc_post(i->ini, wr_id + 1, IBV_WR_RDMA_READ, t->srqn2,
		     ib + OFF_SRC + MW_LEN, MW_LEN, i->s.mr->lkey, raddr,
		     rkey, 0, 0)) {
		report(0, check, "post failed: %s", strerror(errno));
		return -1;
	}
	if (expect_wc(check, i->scq, wr_id, IBV_WC_SUCCESS, NULL) ||
	    expect_wc(check, i->scq, wr_id + 1, IBV_WC_SUCCESS, NULL))
		return -1;
	if (memcmp(tb + OFF_MW, ib + OFF_SRC, MW_LEN) ||
	    memcmp(ib + OFF_SRC + MW_LEN, ib + OFF_SRC, MW_LEN)) {
		report(0, check, "data through the window differs");
		return -1;
	}
	return 0;
}

static int qp_state_is(struct ibv_qp *qp, enum ibv_qp_state want)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;

	return !ibv_query_qp(qp, &qa, IBV_QP_STATE, &qi) &&
	       qa.qp_state == want;
}

/*
 * Type-2 windows through XRC: the target device's own initiator binds one
 * on its MR; the initiator device reaches it through the target QP.
 */
static void mw2(struct target *t, struct initiator *i)
{
	uint8_t *tb = t->s.buf, *ib = i->s.buf;
	struct mw_objs m = {};
	uint32_t stale;
	struct ibv_wc wc;

	if (!(t->s.attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B)) {
		report_skip("mw2", "%s reports no IBV_DEVICE_MEM_WINDOW_TYPE_2B",
			    t->s.name);
		return;
	}
	if (mw_setup(t, i, &m)) {
		report(0, "mw2-bind", "setup: %s", strerror(errno));
		goto out;
	}
	if (mw_post_bind(&m, 0x501, tb)) {
		report(0, "mw2-bind", "IBV_WR_BIND_MW on XRC_SEND QP %u: %s",
		       m.ini_t->qp_num, strerror(errno));
		goto out;
	}
	if (expect_local("mw2-bind", m.scq_t, 0x501, IBV_WC_BIND_MW) ||
	    mw_write_read("mw2-bind", t, i, m.rkey, 0x502, 0x3c))
		goto out;
	report(1, "mw2-bind", "type-2 window bound by IBV_WR_BIND_MW on XRC_SEND QP %u; %u B RDMA WRITE and READ through it via target QP %u, data checked",
	       m.ini_t->qp_num, MW_LEN, t->tgt->qp_num);

	if (mw_wr_local_inv(&m, 0x503) ||
	    expect_local("mw2-local-inv", m.scq_t, 0x503, IBV_WC_LOCAL_INV))
		goto out;
	if (mw_wr_bind(&m, 0x504, tb) ||
	    expect_local("mw2-wr-bind", m.scq_t, 0x504, IBV_WC_BIND_MW) ||
	    mw_write_read("mw2-wr-bind", t, i, m.rkey, 0x505, 0x4d))
		goto out;
	report(1, "mw2-wr-bind", "ibv_wr_local_inv then ibv_wr_bind_mw on the XRC_SEND QP: the new key %#x works through the target",
	       m.rkey);

	/* SEND_WITH_INV taken by the target under SRQ 1 ends the window. */
	fill(ib + OFF_SRC, 256, 0x5e);
	if (srq_recv(t->srq1, 0x106, tb + OFF_SRQ1, 4096, t->s.mr->lkey)) {
		report(0, "mw2-send-inv", "post_srq_recv failed");
		goto out;
	}
	{
		struct ibv_sge sge = { .addr = (uintptr_t)(ib + OFF_SRC),
				       .length = 256, .lkey = i->s.mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x506, .opcode = IBV_WR_SEND_WITH_INV,
			.send_flags = IBV_SEND_SIGNALED,
			.sg_list = &sge, .num_sge = 1,
			.invalidate_rkey = m.rkey,
		}, *bad_wr;

		wr.qp_type.xrc.remote_srqn = t->srqn1;
		if (ibv_post_send(i->ini, &wr, &bad_wr)) {
			report(0, "mw2-send-inv", "post failed: %s",
			       strerror(errno));
			goto out;
		}
	}
	if (expect_wc("mw2-send-inv", i->scq, 0x506, IBV_WC_SUCCESS, NULL) ||
	    expect_wc("mw2-send-inv", t->cq1, 0x106, IBV_WC_SUCCESS, &wc))
		goto out;
	if (!(wc.wc_flags & IBV_WC_WITH_INV) || wc.invalidated_rkey != m.rkey) {
		report(0, "mw2-send-inv", "receive flags %#x invalidated key %#x; want WITH_INV of %#x",
		       wc.wc_flags, wc.invalidated_rkey, m.rkey);
		goto out;
	}
	report(1, "mw2-send-inv", "SEND with invalidate of %#x through target QP %u: the receive reports it",
	       m.rkey, t->tgt->qp_num);

	/*
	 * The invalidated key on a third connection: REM_ACCESS_ERR, nothing
	 * written, that target in ERR; the first connection, the target
	 * device's initiator and a new binding keep working.
	 */
	stale = m.rkey;
	memset(tb + OFF_MW, 0xee, MW_LEN);
	fill(ib + OFF_SRC, 512, 0x6f);
	if (xrc_post(m.ini3, 0x507, IBV_WR_RDMA_WRITE, t->srqn1, ib + OFF_SRC,
		     512, i->s.mr->lkey, (uintptr_t)(tb + OFF_MW), stale, 0,
		     0) ||
	    expect_wc("mw2-invalidated-key", i->scq, 0x507,
		      IBV_WC_REM_ACCESS_ERR, NULL))
		goto out;
	if (tb[OFF_MW] != 0xee || tb[OFF_MW + 511] != 0xee) {
		report(0, "mw2-invalidated-key", "the refused WRITE changed the window's memory");
		goto out;
	}
	if (!qp_state_is(m.tgt3, IBV_QPS_ERR) ||
	    !qp_state_is(t->tgt, IBV_QPS_RTS) ||
	    !qp_state_is(m.ini_t, IBV_QPS_RTS)) {
		report(0, "mw2-invalidated-key", "QP states: the failed target not in ERR, or another QP left RTS");
		goto out;
	}
	if (mw_post_bind(&m, 0x508, tb) ||
	    expect_local("mw2-invalidated-key", m.scq_t, 0x508,
			 IBV_WC_BIND_MW) ||
	    mw_write_read("mw2-invalidated-key", t, i, m.rkey, 0x509, 0x7a))
		goto out;
	report(1, "mw2-invalidated-key", "the invalidated key %#x: REM_ACCESS_ERR, memory untouched, only target QP %u in ERR; the first connection reaches the rebound window (%#x)",
	       stale, m.tgt3->qp_num, m.rkey);
	/* Free again, so that the MR can go. */
	if (mw_wr_local_inv(&m, 0x50b) ||
	    expect_local("mw2-teardown", m.scq_t, 0x50b, IBV_WC_LOCAL_INV))
		goto out;
out:
	mw_teardown(&m);
}

static void teardown(struct target *t, struct initiator *i)
{
	struct ibv_qp *qps[] = { i->ini, i->ini2, t->tgt, t->tgt2 };
	struct ibv_srq *srqs[] = { t->srq1, t->srq2, t->srq3 };
	struct ibv_cq *cqs[] = { t->cq1, t->cq2, t->cq3, i->scq };
	int ok = 1;
	size_t n;

	for (n = 0; n < 4; n++)
		if (qps[n] && ibv_destroy_qp(qps[n]))
			ok = 0;
	for (n = 0; n < 3; n++)
		if (srqs[n] && ibv_destroy_srq(srqs[n]))
			ok = 0;
	if (t->xrcd && ibv_close_xrcd(t->xrcd))
		ok = 0;
	if (t->xrcd2 && ibv_close_xrcd(t->xrcd2))
		ok = 0;
	for (n = 0; n < 4; n++)
		if (cqs[n] && ibv_destroy_cq(cqs[n]))
			ok = 0;
	if (t->fd >= 0) {
		close(t->fd);
		unlink(t->path);
	}
	if (ok)
		report(1, "teardown", "QPs, SRQs, domains and CQs destroyed in order");
	else
		report(0, "teardown", "a destroy failed: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct initiator i = {};
	struct target t = { .fd = -1 };
	struct ibv_device_attr_ex ax = {};

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("xrc/");
	if (sides_open(&i.s, &t.s, argv))
		return 2;
	if (ibv_query_device_ex(t.s.ctx, NULL, &ax) ||
	    !(ax.orig_attr.device_cap_flags & IBV_DEVICE_XRC)) {
		report_skip("all", "%s does not advertise IBV_DEVICE_XRC", argv[3]);
		return 0;
	}
	if (setup_target(&t)) {
		report(0, "setup", "target side objects: %s", strerror(errno));
		goto out;
	}
	i.scq = ibv_create_cq(i.s.ctx, 64, NULL, NULL, 0);
	i.ini = i.scq ? initiator_qp(&i.s, i.scq) : NULL;
	i.ini2 = i.scq ? initiator_qp(&i.s, i.scq) : NULL;
	if (!i.ini || !i.ini2 ||
	    xrc_connect(i.ini, &i.s, &t.s, t.tgt->qp_num) ||
	    xrc_connect(t.tgt, &t.s, &i.s, i.ini->qp_num) ||
	    xrc_connect(i.ini2, &i.s, &t.s, t.tgt2->qp_num) ||
	    xrc_connect(t.tgt2, &t.s, &i.s, i.ini2->qp_num)) {
		report(0, "setup", "initiator QPs / connecting: %s", strerror(errno));
		goto out;
	}
	report(1, "setup", "%s -> %s: 2 initiator/target connections (MTU 1024)",
	       argv[1], argv[3]);
	objects(&t, &i);
	sends(&t, &i);
	send_imm(&t, &i);
	rdma(&t, &i);
	atomics(&t, &i);
	write_imm(&t, &i);
	open_qp(&t, argv[3]);
	busy(&t);
	bad_srqn(&i);
	wrong_domain(&t, &i);
	mw2(&t, &i);
out:
	teardown(&t, &i);
	side_close(&i.s);
	side_close(&t.s);
	return 0;
}
