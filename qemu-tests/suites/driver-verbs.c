// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * driver-verbs: the ornic driver's data-path verbs through the raw uverbs
 * write() ABI, without a provider library.
 *
 *   driver-verbs check /dev/infiniband/uverbsN IBDEV GID_INDEX
 *   driver-verbs hold  /dev/infiniband/uverbsN IBDEV GID_INDEX
 *
 * check: creates MRs (DIRECT and INDIRECT page lists), a CQ, RC and UD QPs
 * (RC driven RESET -> INIT -> RTR -> RTS with a loopback RoCEv2 address on
 * GID_INDEX, read back with QUERY_QP), an SRQ with a QP on it and an AH,
 * destroys them all, feeds the driver bad input that must fail with the
 * right errno, and moves real data: RDMA WRITEs of an RC QP looped back to
 * itself, WQEs written into the pinned SQ ring and doorbells rung through
 * the mapped doorbell page, CQEs polled from the pinned CQ ring, a
 * completion channel event for the armed CQ; a SEND into an SRQ (and its
 * limit event), a UD SEND through an AH, and a CQ overflow (CQ_ERR event).
 * Prints one "PASS|FAIL|SKIP: name details" line per check (test-report.h);
 * exits 0 only when all passed.
 * hold: creates one of everything, prints "held", waits for a line on
 * stdin (the test kills the process or removes the device meanwhile) and
 * exits 0 without cleaning up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "../../include/uapi/rdma/ornic-abi.h"
#include "../../include/ornic/ornic_hw.h"
#include "test-report.h"

/* IB QP types and attribute mask bits of the uverbs ABI. */
#define QPT_RC 2
#define QPT_UD 4
#define M_STATE (1u << 0)
#define M_EN_SQD_ASYNC (1u << 2)
#define M_ACCESS (1u << 3)
#define M_PKEY (1u << 4)
#define M_PORT (1u << 5)
#define M_QKEY (1u << 6)
#define M_AV (1u << 7)
#define M_MTU (1u << 8)
#define M_TIMEOUT (1u << 9)
#define M_RETRY (1u << 10)
#define M_RNR_RETRY (1u << 11)
#define M_RQ_PSN (1u << 12)
#define M_RD_ATOMIC (1u << 13)
#define M_ALT_PATH (1u << 14)
#define M_MIN_RNR (1u << 15)
#define M_SQ_PSN (1u << 16)
#define M_DEST_RD_ATOMIC (1u << 17)
#define M_DEST_QPN (1u << 20)
#define ACC_LOCAL_WRITE 1
#define ACC_REMOTE_WRITE 2
#define ACC_REMOTE_READ 4
#define ACC_MW_BIND 16
#define ACC_ZERO_BASED 32

static int fd;
static int async_fd = -1;
static volatile uint64_t *db_page;	/* the context's doorbell page */
static uint8_t gid[16];
static int gid_index;

/*
 * One write() command: header, core request, driver request.  The response
 * (core + driver) goes to @resp, whose address the core request's first
 * field must already hold when @resp_len is non-zero.  Returns 0 or errno.
 */
static int cmd(uint32_t op, const void *req, size_t req_len, const void *drv,
	       size_t drv_len, size_t resp_len)
{
	char buf[512];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = op,
		.in_words = (sizeof(hdr) + req_len + drv_len) / 4,
		.out_words = resp_len / 4,
	};
	size_t len = sizeof(hdr) + req_len + drv_len;

	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), req, req_len);
	if (drv_len)
		memcpy(buf + sizeof(hdr) + req_len, drv, drv_len);
	if (write(fd, buf, len) != (ssize_t)len)
		return errno;
	return 0;
}

static uint32_t pd_handle;

static int open_context(const char *path)
{
	struct {
		struct ib_uverbs_get_context_resp core;
		struct ornic_ibv_alloc_ucontext_resp drv;
	} cresp = {};
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		struct ornic_ibv_alloc_pd_resp drv;
	} presp = {};
	struct ib_uverbs_get_context creq = { .response = (uintptr_t)&cresp };
	struct ib_uverbs_alloc_pd preq = { .response = (uintptr_t)&presp };
	int err;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	err = cmd(IB_USER_VERBS_CMD_GET_CONTEXT, &creq, sizeof(creq), NULL, 0,
		  sizeof(cresp));
	if (!err)
		err = cmd(IB_USER_VERBS_CMD_ALLOC_PD, &preq, sizeof(preq), NULL,
			  0, sizeof(presp));
	if (err) {
		fprintf(stderr, "context/PD: %s\n", strerror(err));
		return -1;
	}
	pd_handle = presp.core.pd_handle;
	async_fd = cresp.core.async_fd;
	db_page = mmap(NULL, cresp.drv.db_page_size, PROT_WRITE, MAP_SHARED,
		       fd, cresp.drv.db_mmap_key);
	if (db_page == MAP_FAILED) {
		perror("mmap doorbell page");
		return -1;
	}
	return 0;
}

/* Page-aligned anonymous memory, never backed by huge pages. */
static void *pages(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 0, len);
	return p;
}

/* --- MR ------------------------------------------------------------------ */

struct mr_resp {
	struct ib_uverbs_reg_mr_resp core;
};

static int reg_mr(void *addr, uint64_t len, uint32_t access, uint32_t *handle,
		  uint32_t *lkey, uint32_t *rkey)
{
	struct mr_resp resp = {};
	struct ib_uverbs_reg_mr req = {
		.response = (uintptr_t)&resp,
		.start = (uintptr_t)addr,
		.length = len,
		.hca_va = (uintptr_t)addr,
		.pd_handle = pd_handle,
		.access_flags = access,
	};
	int err = cmd(IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req), NULL, 0,
		      sizeof(resp));

	if (!err) {
		*handle = resp.core.mr_handle;
		*lkey = resp.core.lkey;
		*rkey = resp.core.rkey;
	}
	return err;
}

static int dereg_mr(uint32_t handle)
{
	struct ib_uverbs_dereg_mr req = { .mr_handle = handle };

	return cmd(IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req), NULL, 0, 0);
}

static void check_mrs(void)
{
	uint32_t h, lkey, rkey;
	char *buf = pages(4 * 4096);
	size_t big = 8u << 20;	/* 2048 4 KiB pages: an INDIRECT list */
	char *bigbuf = pages(big);
	int err;

	err = reg_mr(buf + 100, 3 * 4096, ACC_LOCAL_WRITE | ACC_REMOTE_WRITE |
		     ACC_REMOTE_READ, &h, &lkey, &rkey);
	report(!err && lkey == rkey && lkey > 0xff, "mr-direct",
	       "12 KiB at page offset 100: %s lkey=%#x rkey=%#x",
	       strerror(err), lkey, rkey);
	if (!err) {
		err = dereg_mr(h);
		report(!err, "mr-dereg", "%s", strerror(err));
	}

	err = reg_mr(bigbuf, big, ACC_LOCAL_WRITE, &h, &lkey, &rkey);
	report(!err, "mr-indirect", "8 MiB (2048 pages): %s lkey=%#x",
	       strerror(err), lkey);
	if (!err)
		dereg_mr(h);

	err = reg_mr(buf, 0, ACC_LOCAL_WRITE, &h, &lkey, &rkey);
	report(err == EINVAL, "mr-len0-rejected", "length 0: %s",
	       strerror(err));
	/* The model has memory windows (ORNIC_CAP_MW): MW_BIND is taken. */
	err = reg_mr(buf, 4096, ACC_LOCAL_WRITE | ACC_MW_BIND, &h, &lkey,
		     &rkey);
	report(!err, "mr-access-mw-bind", "IB_ACCESS_MW_BIND: %s",
	       strerror(err));
	if (!err)
		dereg_mr(h);
	err = reg_mr(buf, 4096, ACC_LOCAL_WRITE | ACC_ZERO_BASED, &h, &lkey,
		     &rkey);
	report(err == EOPNOTSUPP, "mr-access-rejected",
	       "IB_ZERO_BASED: %s", strerror(err));
	munmap(bigbuf, big);
}

/* --- CQ ------------------------------------------------------------------ */

struct cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct ornic_ibv_create_cq_resp drv;
};

#define CQ_USER_HANDLE 0xc0ffee01ULL

static int create_cq_ch(uint32_t cqe, const struct ornic_ibv_create_cq *drv,
			size_t drv_len, uint32_t *handle, struct cq_resp *resp,
			int channel)
{
	struct ib_uverbs_create_cq req = {
		.response = (uintptr_t)resp,
		.user_handle = CQ_USER_HANDLE,
		.cqe = cqe,
		.comp_channel = channel,
	};
	int err;

	memset(resp, 0, sizeof(*resp));
	err = cmd(IB_USER_VERBS_CMD_CREATE_CQ, &req, sizeof(req), drv,
		  drv_len, sizeof(*resp));
	if (!err)
		*handle = resp->core.cq_handle;
	return err;
}

static int create_cq(uint32_t cqe, const struct ornic_ibv_create_cq *drv,
		     size_t drv_len, uint32_t *handle, struct cq_resp *resp)
{
	return create_cq_ch(cqe, drv, drv_len, handle, resp, -1);
}

static int destroy_cq(uint32_t handle)
{
	struct ib_uverbs_destroy_cq_resp resp;
	struct ib_uverbs_destroy_cq req = {
		.response = (uintptr_t)&resp,
		.cq_handle = handle,
	};

	return cmd(IB_USER_VERBS_CMD_DESTROY_CQ, &req, sizeof(req), NULL, 0,
		   sizeof(resp));
}

/* A CQ of 64 entries on a fresh ring; exits on failure. */
static uint32_t good_cq(void)
{
	struct ornic_ibv_create_cq drv = {
		.log_depth = 6,
		.buf_addr = (uintptr_t)pages(4096),
		.buf_size = 4096,
	};
	struct cq_resp resp;
	uint32_t h;
	int err = create_cq(64, &drv, sizeof(drv), &h, &resp);

	if (err) {
		report(0, "cq-create", "%s", strerror(err));
		exit(1);
	}
	return h;
}

/*
 * A user CQ's ring is the provider's: the kernel's POLL_CQ and REQ_NOTIFY_CQ
 * commands must refuse it (they used to run the kernel CQ code on it).
 */
static void check_user_cq_not_kernel_polled(uint32_t h)
{
	struct {
		struct ib_uverbs_poll_cq_resp core;
		struct ib_uverbs_wc wc[4];
	} presp;
	struct ib_uverbs_poll_cq preq = {
		.response = (uintptr_t)&presp,
		.cq_handle = h,
		.ne = 4,
	};
	struct ib_uverbs_req_notify_cq nreq = { .cq_handle = h };
	int poll_err, notify_err;

	poll_err = cmd(IB_USER_VERBS_CMD_POLL_CQ, &preq, sizeof(preq), NULL, 0,
		       sizeof(presp));
	notify_err = cmd(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &nreq, sizeof(nreq),
			 NULL, 0, 0);
	report(poll_err == EOPNOTSUPP && notify_err == EOPNOTSUPP,
	       "cq-user-not-kernel-polled", "POLL_CQ: %s, REQ_NOTIFY_CQ: %s",
	       strerror(poll_err), strerror(notify_err));
}

static void check_cqs(void)
{
	struct ornic_ibv_create_cq drv = {
		.log_depth = 6,
		.buf_addr = (uintptr_t)pages(4096),
		.buf_size = 4096,
	};
	struct ornic_ibv_create_cq bad;
	struct cq_resp resp;
	void *gone;
	uint32_t h;
	int err;

	err = create_cq(50, &drv, sizeof(drv), &h, &resp);
	report(!err && resp.drv.cqn && resp.drv.log_depth == 6 &&
	       resp.core.cqe == 64, "cq-create",
	       "%s cqn=%u log_depth=%u cqe=%u", strerror(err), resp.drv.cqn,
	       resp.drv.log_depth, resp.core.cqe);
	if (!err)
		check_user_cq_not_kernel_polled(h);
	if (!err) {
		err = destroy_cq(h);
		report(!err, "cq-destroy", "%s", strerror(err));
	}

	gone = pages(4096);
	munmap(gone, 4096);
	bad = drv;
	bad.buf_addr = (uintptr_t)gone;
	err = create_cq(64, &bad, sizeof(bad), &h, &resp);
	report(err == EFAULT || err == ENOMEM, "cq-unmapped-ring-rejected",
	       "ring at an unmapped address: %s", strerror(err));

	bad = drv;
	bad.log_depth = 17;
	bad.buf_size = (uint64_t)ORNIC_CQE_SIZE << 17;
	err = create_cq(64, &bad, sizeof(bad), &h, &resp);
	report(err == EINVAL, "cq-depth-rejected", "log_depth 17: %s",
	       strerror(err));

	bad = drv;
	bad.buf_size = 1024;
	err = create_cq(64, &bad, sizeof(bad), &h, &resp);
	report(err == EINVAL, "cq-small-ring-rejected",
	       "1 KiB for 64 CQEs: %s", strerror(err));

	bad = drv;
	bad.buf_addr += 64;
	err = create_cq(64, &bad, sizeof(bad), &h, &resp);
	report(err == EINVAL, "cq-unaligned-ring-rejected",
	       "ring not page aligned: %s", strerror(err));

	err = create_cq(65, &drv, sizeof(drv), &h, &resp);
	report(err == EINVAL, "cq-cqe-above-depth-rejected",
	       "65 CQEs in 64 entries: %s", strerror(err));

	bad = drv;
	bad.comp_mask = 1 << 1;
	err = create_cq(64, &bad, sizeof(bad), &h, &resp);
	report(err == EOPNOTSUPP, "cq-comp-mask-rejected", "comp_mask 2: %s",
	       strerror(err));

	/* A consumer record needs 64 bytes past the entries (doorbells.rst). */
	bad = drv;
	bad.comp_mask = ORNIC_IBV_CREATE_CQ_DB_RECORD;
	bad.log_depth = 7;	/* 128 CQEs of 32 bytes: the whole page */
	err = create_cq(128, &bad, sizeof(bad), &h, &resp);
	report(err == EINVAL, "cq-record-needs-room",
	       "DB_RECORD, 4 KiB for 128 CQEs: %s", strerror(err));
	bad.buf_addr = (uintptr_t)pages(8192);
	bad.buf_size = 8192;
	err = create_cq(128, &bad, sizeof(bad), &h, &resp);
	report(!err &&
	       (resp.drv.comp_mask & ORNIC_IBV_CREATE_CQ_RESP_DB_RECORD),
	       "cq-record-create",
	       "DB_RECORD, 8 KiB for 128 CQEs: %s, resp comp_mask %#x",
	       strerror(err), resp.drv.comp_mask);
	if (!err)
		destroy_cq(h);

	err = create_cq(64, &drv, 8, &h, &resp);
	report(err == EINVAL, "cq-short-udata-rejected",
	       "8 bytes of driver data: %s", strerror(err));
}

/* --- QP ------------------------------------------------------------------ */

/* Async events name the QP by the user_handle given at creation. */
#define QP_USER_HANDLE 0x0a5e0001ULL
#define IB_EVENT_SQ_DRAINED_ 5

/*
 * RTS -> SQD with EN_SQD_ASYNC_NOTIFY: the device reports QP_SQ_DRAINED for
 * the empty SQ, the driver turns it into IB_EVENT_SQ_DRAINED on the QP and
 * uverbs queues it on the context's async fd.
 */
static void check_sq_drained(uint32_t qp);
static int create_ah(uint32_t *handle, uint32_t *index);
static int create_ah_to(const uint8_t *dgid, uint32_t *handle,
			uint32_t *index);

struct srq_resp {
	struct ib_uverbs_create_srq_resp core;
	struct ornic_ibv_create_srq_resp drv;
};

struct qp_resp {
	struct ib_uverbs_create_qp_resp core;
	struct ornic_ibv_create_qp_resp drv;
};

struct qp_req {
	uint8_t type;
	uint32_t cq, srq;
	int use_srq;
	uint32_t send_wr, recv_wr, send_sge, recv_sge, inl;
	struct ornic_ibv_create_qp drv;
};

static int create_qp(const struct qp_req *q, uint32_t *handle,
		     struct qp_resp *resp)
{
	struct ib_uverbs_create_qp req = {
		.response = (uintptr_t)resp,
		.user_handle = QP_USER_HANDLE,
		.pd_handle = pd_handle,
		.send_cq_handle = q->cq,
		.recv_cq_handle = q->cq,
		.srq_handle = q->srq,
		.max_send_wr = q->send_wr,
		.max_recv_wr = q->recv_wr,
		.max_send_sge = q->send_sge,
		.max_recv_sge = q->recv_sge,
		.max_inline_data = q->inl,
		.qp_type = q->type,
		.is_srq = q->use_srq ? 1 : 0,
	};
	int err;

	memset(resp, 0, sizeof(*resp));
	err = cmd(IB_USER_VERBS_CMD_CREATE_QP, &req, sizeof(req), &q->drv,
		  sizeof(q->drv), sizeof(*resp));
	if (!err)
		*handle = resp->core.qp_handle;
	return err;
}

static int destroy_qp(uint32_t handle)
{
	struct ib_uverbs_destroy_qp_resp resp;
	struct ib_uverbs_destroy_qp req = {
		.response = (uintptr_t)&resp,
		.qp_handle = handle,
	};

	return cmd(IB_USER_VERBS_CMD_DESTROY_QP, &req, sizeof(req), NULL, 0,
		   sizeof(resp));
}

static int modify_qp(struct ib_uverbs_modify_qp *m)
{
	return cmd(IB_USER_VERBS_CMD_MODIFY_QP, m, sizeof(*m), NULL, 0, 0);
}

static int query_qp(uint32_t handle, struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp req = {
		.response = (uintptr_t)resp,
		.qp_handle = handle,
		.attr_mask = ~0u,
	};

	memset(resp, 0, sizeof(*resp));
	return cmd(IB_USER_VERBS_CMD_QUERY_QP, &req, sizeof(req), NULL, 0,
		   sizeof(*resp));
}

static struct qp_req rc_req(uint32_t cq)
{
	struct qp_req q = {
		.type = QPT_RC, .cq = cq,
		.send_wr = 16, .recv_wr = 16, .send_sge = 2, .recv_sge = 2,
		.inl = 64,
	};

	/* 16 WRs x 2 blocks = 32 blocks each way. */
	q.drv.sq_log_depth = 5;
	q.drv.rq_log_depth = 5;
	q.drv.sq_buf_addr = (uintptr_t)pages(2 * 4096);
	q.drv.sq_buf_size = 2 * 4096;
	q.drv.rq_buf_addr = (uintptr_t)pages(2 * 4096);
	q.drv.rq_buf_size = 2 * 4096;
	return q;
}

static int to_init(uint32_t qp, int ud)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = qp,
		.attr_mask = M_STATE | M_PKEY | M_PORT |
			     (ud ? M_QKEY : M_ACCESS),
		.qp_state = 1, .port_num = 1, .qkey = 0x11111111,
		.qp_access_flags = ACC_REMOTE_WRITE | ACC_REMOTE_READ,
	};

	return modify_qp(&m);
}

/* INIT -> RTR -> RTS, looped back to QPN @qpn itself on gid_index. */
static int rc_up(uint32_t h, uint32_t qpn)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = h,
		.attr_mask = M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN |
			     M_DEST_RD_ATOMIC | M_MIN_RNR,
		.qp_state = 2, .path_mtu = 3, .dest_qp_num = qpn,
		.rq_psn = 100, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
	};
	int err = to_init(h, 0);

	memcpy(m.dest.dgid, gid, 16);
	m.dest.sgid_index = gid_index;
	m.dest.hop_limit = 64;
	m.dest.is_global = 1;
	m.dest.port_num = 1;
	if (!err)
		err = modify_qp(&m);
	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_STATE | M_SQ_PSN | M_TIMEOUT | M_RETRY | M_RNR_RETRY |
		      M_RD_ATOMIC;
	m.qp_state = 3;
	m.sq_psn = 100;
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	if (!err)
		err = modify_qp(&m);
	return err;
}

/* INIT -> RTR -> RTS of a UD QP, first send PSN @sq_psn. */
static int ud_up(uint32_t h, uint32_t sq_psn)
{
	struct ib_uverbs_modify_qp m = {
		.qp_handle = h, .attr_mask = M_STATE, .qp_state = 2,
	};
	int err = to_init(h, 1);

	if (!err)
		err = modify_qp(&m);
	m.attr_mask = M_STATE | M_SQ_PSN;
	m.qp_state = 3;
	m.sq_psn = sq_psn;
	if (!err)
		err = modify_qp(&m);
	return err;
}

/* @q receives from SRQ @srq: no RQ ring of its own. */
static void qp_req_on_srq(struct qp_req *q, uint32_t srq)
{
	q->use_srq = 1;
	q->srq = srq;
	q->drv.rq_buf_addr = 0;
	q->drv.rq_buf_size = 0;
	q->drv.rq_log_depth = 0;
}

/*
 * The objects of a data test: a CQ on a fresh ring, MRs, and a QP on the
 * CQ (rc_req()'s rings) in RTS, RC looped back to itself or UD.
 * loop_close() destroys what was made, the QP first.
 */
struct loop {
	uint32_t cq, cqn, qp, qpn;
	volatile struct ornic_cqe *cqes;	/* the CQ ring */
	struct qp_req req;			/* the QP's rings */
	uint32_t mr[3];
	int nmr, has_cq, has_qp;
};

/* A CQ of @cqe entries in a ring of 2^@log_depth, events to @channel (-1: none). */
static int loop_cq(struct loop *l, uint32_t cqe, uint32_t log_depth,
		   int channel)
{
	struct ornic_ibv_create_cq drv = {
		.log_depth = log_depth,
		.buf_addr = (uintptr_t)pages(4096),
		.buf_size = 4096,
	};
	struct cq_resp resp;
	int err = create_cq_ch(cqe, &drv, sizeof(drv), &l->cq, &resp,
			       channel);

	l->has_cq = !err;
	l->cqn = resp.drv.cqn;
	l->cqes = (volatile struct ornic_cqe *)(uintptr_t)drv.buf_addr;
	return err;
}

/* @len bytes at @addr registered with @access; *@key is its lkey (= rkey). */
static int loop_mr(struct loop *l, void *addr, uint64_t len, uint32_t access,
		   uint32_t *key)
{
	uint32_t rkey;
	int err;

	if (l->nmr == (int)(sizeof(l->mr) / sizeof(l->mr[0])))
		return ENOMEM;
	err = reg_mr(addr, len, access, &l->mr[l->nmr], key, &rkey);
	if (!err)
		l->nmr++;
	return err;
}

/* A QP of @type (QPT_RC, QPT_UD) on the CQ, on SRQ @srq if non-zero, in RTS. */
static int loop_qp(struct loop *l, uint8_t type, uint32_t srq)
{
	struct qp_resp resp;
	int err;

	l->req = rc_req(l->cq);
	l->req.type = type;
	if (srq)
		qp_req_on_srq(&l->req, srq);
	err = create_qp(&l->req, &l->qp, &resp);
	if (err)
		return err;
	l->has_qp = 1;
	l->qpn = resp.drv.qpn;
	return type == QPT_UD ? ud_up(l->qp, 0) : rc_up(l->qp, l->qpn);
}

/* Tears down what the loop holds; the QP's destroy status. */
static int loop_close(struct loop *l)
{
	int err = 0;

	if (l->has_qp)
		err = destroy_qp(l->qp);
	while (l->nmr)
		dereg_mr(l->mr[--l->nmr]);
	if (l->has_cq)
		destroy_cq(l->cq);
	l->has_qp = l->has_cq = 0;
	return err;
}

/* Wait up to 5 s for CQE @i of a first pass over @cqes. */
static int cqe_ready(volatile struct ornic_cqe *cqes, int i)
{
	int n;

	for (n = 0; n < 500 && !(cqes[i].owner & ORNIC_CQE_OWNER_PHASE); n++)
		usleep(10000);
	__sync_synchronize();
	return cqes[i].owner & ORNIC_CQE_OWNER_PHASE;
}

/* The send queue's WQE block @i. */
static struct ornic_send_wqe *sq_wqe(const struct loop *l, int i)
{
	return (struct ornic_send_wqe *)(uintptr_t)l->req.drv.sq_buf_addr + i;
}

/* A signaled WQE of @opcode with one SGE (2 blocks) at @w. */
static void wqe_one_sge(struct ornic_send_wqe *w, uint8_t opcode,
			uint64_t wr_id, const void *addr, uint32_t len,
			uint32_t lkey)
{
	struct ornic_sge *sge = (struct ornic_sge *)(w + 1);

	w->opcode = opcode;
	w->flags = ORNIC_WQE_FLAG_SIGNALED;
	w->num_blocks = 2;
	w->num_sge = 1;
	w->wr_id = wr_id;
	sge->addr = (uintptr_t)addr;
	sge->length = len;
	sge->lkey = lkey;
}

/* A receive WQE of one SGE at @r. */
static void rwqe_one_sge(struct ornic_recv_wqe *r, uint64_t wr_id,
			 const void *addr, uint32_t len, uint32_t lkey)
{
	r->wr_id = wr_id;
	r->num_blocks = 1;
	r->num_sge = 1;
	r->sge[0].addr = (uintptr_t)addr;
	r->sge[0].length = len;
	r->sge[0].lkey = lkey;
}

static void check_rc(uint32_t cq)
{
	struct ib_uverbs_query_qp_resp q;
	struct ib_uverbs_modify_qp m;
	struct qp_req req = rc_req(cq);
	struct qp_resp resp;
	uint32_t h, qpn;
	int err;

	err = create_qp(&req, &h, &resp);
	report(!err && resp.drv.qpn >= 2 && resp.core.max_send_wr >= 16 &&
	       resp.core.max_send_sge >= 2 && resp.core.max_inline_data >= 64,
	       "qp-rc-create",
	       "%s qpn=%u caps send %u wr/%u sge/%u inline, recv %u wr/%u sge",
	       strerror(err), resp.drv.qpn, resp.core.max_send_wr,
	       resp.core.max_send_sge, resp.core.max_inline_data,
	       resp.core.max_recv_wr, resp.core.max_recv_sge);
	if (err)
		return;
	qpn = resp.drv.qpn;

	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_STATE | M_SQ_PSN;
	m.qp_state = 3;
	err = modify_qp(&m);
	report(err == EINVAL, "qp-bad-transition-rejected", "RESET -> RTS: %s",
	       strerror(err));

	err = to_init(h, 0);
	report(!err, "qp-rc-init", "%s", strerror(err));

	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN |
		      M_DEST_RD_ATOMIC | M_MIN_RNR;
	m.qp_state = 2;
	m.path_mtu = 3;	/* 1024 */
	m.dest_qp_num = qpn;	/* loopback to itself */
	m.rq_psn = 0x123456;
	m.max_dest_rd_atomic = 1;
	m.min_rnr_timer = 12;
	memcpy(m.dest.dgid, gid, 16);
	m.dest.sgid_index = gid_index;
	m.dest.hop_limit = 64;
	m.dest.traffic_class = 0;
	m.dest.is_global = 1;
	m.dest.port_num = 1;
	err = modify_qp(&m);
	report(!err, "qp-rc-rtr", "loopback AV on GID %d: %s", gid_index,
	       strerror(err));

	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_STATE | M_SQ_PSN | M_TIMEOUT | M_RETRY | M_RNR_RETRY |
		      M_RD_ATOMIC;
	m.qp_state = 3;
	m.sq_psn = 0x654321;
	m.timeout = 14;
	m.retry_cnt = 7;
	m.rnr_retry = 7;
	m.max_rd_atomic = 1;
	err = modify_qp(&m);
	report(!err, "qp-rc-rts", "%s", strerror(err));

	err = query_qp(h, &q);
	report(!err && q.qp_state == 3 && q.dest_qp_num == qpn &&
	       q.sq_psn == 0x654321 && q.rq_psn == 0x123456 &&
	       q.path_mtu == 3 && q.timeout == 14 &&
	       !memcmp(q.dest.dgid, gid, 16) && q.dest.sgid_index == gid_index,
	       "qp-rc-query",
	       "%s state=%u dest_qpn=%u sq_psn=%#x rq_psn=%#x mtu=%u timeout=%u sgid_index=%u",
	       strerror(err), q.qp_state, q.dest_qp_num, q.sq_psn, q.rq_psn,
	       q.path_mtu, q.timeout, q.dest.sgid_index);

	check_sq_drained(h);

	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_ALT_PATH;
	err = modify_qp(&m);
	report(err == EOPNOTSUPP || err == EINVAL, "qp-alt-path-rejected",
	       "IB_QP_ALT_PATH: %s", strerror(err));

	memset(&m, 0, sizeof(m));
	m.qp_handle = h;
	m.attr_mask = M_STATE;
	m.qp_state = 6;
	err = modify_qp(&m);
	report(!err, "qp-rc-err", "SQD -> ERR: %s", strerror(err));

	err = destroy_qp(h);
	report(!err, "qp-rc-destroy", "%s", strerror(err));
}

static void check_sq_drained(uint32_t qp)
{
	struct ib_uverbs_async_event_desc ev = {};
	struct ib_uverbs_modify_qp m = {
		.qp_handle = qp,
		.attr_mask = M_STATE | M_EN_SQD_ASYNC,
		.qp_state = 4,	/* SQD */
		.en_sqd_async_notify = 1,
	};
	struct pollfd pfd = { .fd = async_fd, .events = POLLIN };
	int err = modify_qp(&m);

	report(!err, "qp-rc-sqd", "RTS -> SQD with EN_SQD_ASYNC_NOTIFY: %s",
	       strerror(err));
	if (err)
		return;
	if (poll(&pfd, 1, 5000) != 1) {
		/* Reported by the model's transport engine, once it has one. */
		report_skip("async-sq-drained", "no event within 5 s (the device model does not report QP_SQ_DRAINED)");
		return;
	}
	err = read(async_fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : errno;
	report(!err && ev.event_type == IB_EVENT_SQ_DRAINED_ &&
	       ev.element == QP_USER_HANDLE, "async-sq-drained",
	       "%s event %u for handle %#llx", strerror(err), ev.event_type,
	       (unsigned long long)ev.element);
}

static void doorbell(uint32_t offset, uint32_t qn, uint64_t flags,
		     uint32_t index)
{
	/* WQEs and CQ state in memory before the doorbell. */
	__sync_synchronize();
	db_page[offset / 8] = ORNIC_DB_VALUE(qn, flags, index);
}

/*
 * Real data through the driver's page lists: an RC QP looped back to
 * itself RDMA-WRITEs 4 KiB between two MRs; the CQE lands in the pinned
 * CQ ring and, the CQ being armed, a completion event reaches the
 * completion channel (COMPLETION EQE -> ib_cq comp_handler).
 */
static void check_data(void)
{
	struct ib_uverbs_create_comp_channel_resp chresp = {};
	struct ib_uverbs_create_comp_channel ch = {
		.response = (uintptr_t)&chresp,
	};
	struct ib_uverbs_comp_event_desc ev = {};
	uint32_t skey, dkey, bkey;
	char *src = pages(4096), *dst = pages(4096);
	size_t big = 8u << 20, boff = (5u << 20) + 100;
	char *bigbuf = pages(big);
	volatile struct ornic_cqe *cqes;
	struct ornic_send_wqe *wqe;
	struct loop l = {};
	struct pollfd pfd;
	int err, i, ready;

	err = cmd(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &ch, sizeof(ch), NULL,
		  0, sizeof(chresp));
	if (!err)
		err = loop_cq(&l, 64, 6, chresp.fd);
	for (i = 0; i < 4096; i++)
		src[i] = (char)(i * 7 + 3);
	if (!err)
		err = loop_mr(&l, src, 4096, ACC_LOCAL_WRITE, &skey);
	if (!err)
		err = loop_mr(&l, dst, 4096, ACC_LOCAL_WRITE | ACC_REMOTE_WRITE,
			      &dkey);
	if (!err)
		err = loop_mr(&l, bigbuf, big, ACC_LOCAL_WRITE | ACC_REMOTE_WRITE,
			      &bkey);
	if (!err)
		err = loop_qp(&l, QPT_RC, 0);
	if (err) {
		report(0, "data-setup", "%s", strerror(err));
		goto out;
	}
	cqes = l.cqes;

	wqe = sq_wqe(&l, 0);
	wqe_one_sge(wqe, ORNIC_WQE_OP_RDMA_WRITE, 0x1234, src, 4096, skey);
	wqe->rdma.remote_addr = (uintptr_t)dst;
	wqe->rdma.rkey = dkey;
	/* Blocks 2-3: into the 2048-page (INDIRECT) MR, across a page. */
	memcpy(wqe + 2, wqe, 2 * sizeof(*wqe));
	wqe[2].wr_id = 0x5678;
	wqe[2].rdma.remote_addr = (uintptr_t)bigbuf + boff;
	wqe[2].rdma.rkey = bkey;
	doorbell(ORNIC_DB_CQ, l.cqn, ORNIC_DB_FLAG_ARM_NEXT, 0);
	doorbell(ORNIC_DB_SQ, l.qpn, 0, 4);

	/* The wait first: the details read the CQE too. */
	ready = cqe_ready(cqes, 0);
	report(ready &&
	       cqes[0].status == ORNIC_CQE_SUCCESS && cqes[0].wr_id == 0x1234 &&
	       cqes[0].opcode == ORNIC_CQE_OP_RDMA_WRITE &&
	       !memcmp(src, dst, 4096), "data-rdma-write-loopback",
	       "4 KiB RDMA WRITE between two MRs: CQE %s status %u opcode %#x wr_id %#llx, data %s",
	       (cqes[0].owner & 1) ? "seen" : "missing", cqes[0].status,
	       cqes[0].opcode, (unsigned long long)cqes[0].wr_id,
	       memcmp(src, dst, 4096) ? "differs" : "matches");

	ready = cqe_ready(cqes, 1);
	report(ready &&
	       cqes[1].status == ORNIC_CQE_SUCCESS && cqes[1].wr_id == 0x5678 &&
	       !memcmp(src, bigbuf + boff, 4096) && !bigbuf[boff - 1] &&
	       !bigbuf[boff + 4096], "data-indirect-mr",
	       "4 KiB RDMA WRITE at 5 MiB + 100 of the 8 MiB MR: CQE %s status %u wr_id %#llx, data %s",
	       (cqes[1].owner & 1) ? "seen" : "missing", cqes[1].status,
	       (unsigned long long)cqes[1].wr_id,
	       memcmp(src, bigbuf + boff, 4096) ? "differs" : "matches");

	pfd = (struct pollfd){ .fd = (int)chresp.fd, .events = POLLIN };
	err = poll(&pfd, 1, 5000) == 1 &&
	      read(chresp.fd, &ev, sizeof(ev)) == sizeof(ev) ? 0 : ETIMEDOUT;
	report(!err && ev.cq_handle == CQ_USER_HANDLE, "data-comp-event",
	       "completion channel event for the armed CQ: %s (cq handle %#llx)",
	       strerror(err), (unsigned long long)ev.cq_handle);
out:
	loop_close(&l);
	if (chresp.fd)
		close(chresp.fd);
	munmap(bigbuf, big);
}

/*
 * A CQ of two entries gets three completions it never has room for: the
 * device reports CQ_ERROR (overflow), the driver turns it into
 * IB_EVENT_CQ_ERR on the CQ, uverbs queues it on the async fd.
 */
static void check_cq_overflow(void)
{
	struct ib_uverbs_async_event_desc ev;
	char *src = pages(4096), *dst = pages(4096);
	uint32_t skey, dkey;
	struct ornic_send_wqe *wqe;
	struct loop l = {};
	struct pollfd pfd;
	char seen[128] = "";
	int err, i, found = 0;

	err = loop_cq(&l, 2, 1, -1);
	if (!err)
		err = loop_mr(&l, src, 4096, ACC_LOCAL_WRITE, &skey);
	if (!err)
		err = loop_mr(&l, dst, 4096, ACC_LOCAL_WRITE | ACC_REMOTE_WRITE,
			      &dkey);
	if (!err)
		err = loop_qp(&l, QPT_RC, 0);
	if (err) {
		report(0, "cq-overflow-setup", "%s", strerror(err));
		loop_close(&l);
		return;
	}
	for (i = 0; i < 3; i++) {
		wqe = sq_wqe(&l, 2 * i);
		wqe_one_sge(wqe, ORNIC_WQE_OP_RDMA_WRITE, i, src, 64, skey);
		wqe->rdma.remote_addr = (uintptr_t)dst;
		wqe->rdma.rkey = dkey;
	}
	doorbell(ORNIC_DB_SQ, l.qpn, 0, 6);

	pfd = (struct pollfd){ .fd = async_fd, .events = POLLIN };
	while (!found && poll(&pfd, 1, 5000) == 1 &&
	       read(async_fd, &ev, sizeof(ev)) == sizeof(ev)) {
		snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
			 " %u/%#llx", ev.event_type,
			 (unsigned long long)ev.element);
		found = ev.event_type == 0 /* IB_EVENT_CQ_ERR */ &&
			ev.element == CQ_USER_HANDLE;
	}
	report(found, "async-cq-err",
	       "3 completions into a 2-entry CQ: events (type/handle)%s",
	       seen[0] ? seen : " none");
	loop_close(&l);
}

/*
 * SEND into an SRQ: an RC QP looped back to itself receives from an SRQ
 * holding two WQEs with the limit armed at two; the first receive leaves
 * one, so the device reports SRQ_LIMIT, which must reach the async fd as
 * IB_EVENT_SRQ_LIMIT_REACHED on the SRQ.
 */
#define SRQ_USER_HANDLE 0x5a0001ULL

static void check_srq_data(void)
{
	struct srq_resp sresp = {};
	struct ornic_ibv_create_srq sdrv = {
		.log_depth = 6,
		.buf_addr = (uintptr_t)pages(4096),
		.buf_size = 4096,
	};
	struct ib_uverbs_create_srq sreq = {
		.response = (uintptr_t)&sresp,
		.user_handle = SRQ_USER_HANDLE,
		.pd_handle = pd_handle,
		.max_wr = 16,
		.max_sge = 1,
		.srq_limit = 2,
	};
	struct ornic_recv_wqe *rwqe = (void *)(uintptr_t)sdrv.buf_addr;
	char *src = pages(4096), *rbuf = pages(4096);
	struct ib_uverbs_async_event_desc ev;
	struct ib_uverbs_destroy_srq dreq;
	struct ib_uverbs_destroy_srq_resp dr;
	volatile struct ornic_cqe *cqes;
	uint32_t skey, rkey;
	struct loop l = {};
	struct pollfd pfd;
	int err, i, srq = 0, found = 0;

	strcpy(src, "through the shared receive queue");
	err = loop_cq(&l, 64, 6, -1);
	if (!err)
		err = cmd(IB_USER_VERBS_CMD_CREATE_SRQ, &sreq, sizeof(sreq),
			  &sdrv, sizeof(sdrv), sizeof(sresp));
	srq = !err;
	if (!err)
		err = loop_mr(&l, src, 4096, 0, &skey);
	if (!err)
		err = loop_mr(&l, rbuf, 4096, ACC_LOCAL_WRITE, &rkey);
	if (!err)
		err = loop_qp(&l, QPT_RC, sresp.core.srq_handle);
	if (err) {
		report(0, "srq-data-setup", "%s", strerror(err));
		goto out;
	}
	cqes = l.cqes;
	for (i = 0; i < 2; i++)
		rwqe_one_sge(&rwqe[i], 0x700 + i, rbuf + 2048 * i, 2048, rkey);
	doorbell(ORNIC_DB_SRQ, sresp.drv.srqn, 0, 2);

	wqe_one_sge(sq_wqe(&l, 0), ORNIC_WQE_OP_SEND, 0x600, src, 64, skey);
	doorbell(ORNIC_DB_SQ, l.qpn, 0, 2);

	/* Two CQEs, send and receive, in either order. */
	err = !(cqe_ready(cqes, 0) && cqe_ready(cqes, 1));
	i = cqes[0].opcode == ORNIC_CQE_OP_RECV ? 0 : 1;
	report(!err && cqes[i].opcode == ORNIC_CQE_OP_RECV &&
	       cqes[i].status == ORNIC_CQE_SUCCESS && cqes[i].wr_id == 0x700 &&
	       cqes[i].byte_len == 64 && !memcmp(rbuf, src, 64),
	       "data-srq-receive",
	       "64-byte SEND into the SRQ: %s, recv CQE status %u wr_id %#llx byte_len %u, data %s",
	       err ? "CQEs missing" : "2 CQEs", cqes[i].status,
	       (unsigned long long)cqes[i].wr_id, cqes[i].byte_len,
	       memcmp(rbuf, src, 64) ? "differs" : "matches");

	pfd = (struct pollfd){ .fd = async_fd, .events = POLLIN };
	while (!found && poll(&pfd, 1, 5000) == 1 &&
	       read(async_fd, &ev, sizeof(ev)) == sizeof(ev))
		found = ev.event_type == 15 /* IB_EVENT_SRQ_LIMIT_REACHED */ &&
			ev.element == SRQ_USER_HANDLE;
	report(found, "async-srq-limit",
	       "one of two SRQ WQEs left with the limit at two: %s",
	       found ? "IB_EVENT_SRQ_LIMIT_REACHED on the SRQ" : "no event");
out:
	loop_close(&l);
	if (srq) {
		dreq = (struct ib_uverbs_destroy_srq){ .response = (uintptr_t)&dr,
			.srq_handle = sresp.core.srq_handle };
		cmd(IB_USER_VERBS_CMD_DESTROY_SRQ, &dreq, sizeof(dreq), NULL, 0,
		    sizeof(dr));
	}
}

/*
 * A UD SEND through an AH: the UD QP sends to itself by the AH index the
 * driver returned; the receive gets the 40-byte GRH area, then the data.
 */
static void check_ud_data(void)
{
	char *src = pages(4096), *rbuf = pages(4096);
	volatile struct ornic_cqe *cqes;
	struct ib_uverbs_destroy_ah dah;
	struct ornic_send_wqe *wqe;
	uint32_t ahh, ah, skey, rkey;
	struct loop l = {};
	int err, i, has_ah = 0;

	strcpy(src, "a datagram through an address handle");
	err = loop_cq(&l, 64, 6, -1);
	if (!err)
		err = loop_mr(&l, src, 4096, 0, &skey);
	if (!err)
		err = loop_mr(&l, rbuf, 4096, ACC_LOCAL_WRITE, &rkey);
	if (!err)
		err = loop_qp(&l, QPT_UD, 0);
	if (!err)
		err = create_ah(&ahh, &ah);
	has_ah = !err;
	if (err) {
		report(0, "ud-data-setup", "%s", strerror(err));
		goto out;
	}
	cqes = l.cqes;

	rwqe_one_sge((struct ornic_recv_wqe *)(uintptr_t)l.req.drv.rq_buf_addr,
		     0x800, rbuf, 4096, rkey);
	doorbell(ORNIC_DB_RQ, l.qpn, 0, 1);

	wqe = sq_wqe(&l, 0);
	wqe_one_sge(wqe, ORNIC_WQE_OP_SEND, 0x801, src, 100, skey);
	wqe->ud.ah = ah;
	wqe->ud.remote_qpn = l.qpn;
	wqe->ud.qkey = 0x11111111;
	doorbell(ORNIC_DB_SQ, l.qpn, 0, 2);

	err = !(cqe_ready(cqes, 0) && cqe_ready(cqes, 1));
	i = cqes[0].opcode == ORNIC_CQE_OP_RECV ? 0 : 1;
	report(!err && cqes[i].opcode == ORNIC_CQE_OP_RECV &&
	       cqes[i].status == ORNIC_CQE_SUCCESS &&
	       cqes[i].src_qp == l.qpn &&
	       (cqes[i].flags & ORNIC_CQE_FLAG_GRH) &&
	       !memcmp(rbuf + 40, src, 100), "data-ud-ah",
	       "100-byte UD SEND via AH %u to QPN %u: %s, recv CQE status %u src_qp %u byte_len %u flags %#x, data %s",
	       ah, l.qpn, err ? "CQEs missing" : "2 CQEs",
	       cqes[i].status, cqes[i].src_qp, cqes[i].byte_len,
	       cqes[i].flags, memcmp(rbuf + 40, src, 100) ? "differs" :
	       "matches");
out:
	loop_close(&l);
	if (has_ah) {
		dah.ah_handle = ahh;
		cmd(IB_USER_VERBS_CMD_DESTROY_AH, &dah, sizeof(dah), NULL, 0, 0);
	}
}

static void check_ud(uint32_t cq)
{
	struct qp_req req = rc_req(cq);
	struct qp_resp resp;
	uint32_t h;
	int err;

	req.type = QPT_UD;
	err = create_qp(&req, &h, &resp);
	report(!err, "qp-ud-create", "%s qpn=%u", strerror(err),
	       resp.drv.qpn);
	if (err)
		return;
	err = ud_up(h, 7);
	report(!err, "qp-ud-rts", "RESET -> INIT -> RTR -> RTS: %s",
	       strerror(err));
	err = destroy_qp(h);
	report(!err, "qp-ud-destroy", "%s", strerror(err));
}

static void check_qp_bad(uint32_t cq)
{
	struct qp_req req = rc_req(cq);
	struct qp_resp resp;
	uint32_t h;
	int err;

	req.send_sge = 1000;
	err = create_qp(&req, &h, &resp);
	report(err == EINVAL, "qp-too-many-sges-rejected",
	       "max_send_sge 1000: %s", strerror(err));

	req = rc_req(cq);
	req.send_wr = 1000;
	err = create_qp(&req, &h, &resp);
	report(err == EINVAL, "qp-ring-too-small-rejected",
	       "1000 send WRs in a 32-block SQ: %s", strerror(err));

	req = rc_req(cq);
	req.drv.sq_log_depth = 15;
	req.drv.sq_buf_size = 64u << 15;
	err = create_qp(&req, &h, &resp);
	report(err == EINVAL, "qp-depth-rejected", "sq_log_depth 15: %s",
	       strerror(err));

	req = rc_req(cq);
	req.drv.rq_buf_addr = 0;
	err = create_qp(&req, &h, &resp);
	report(err == EINVAL, "qp-no-rq-rejected",
	       "no RQ ring without an SRQ: %s", strerror(err));

	req = rc_req(cq);
	req.inl = 100000;
	err = create_qp(&req, &h, &resp);
	report(err == EINVAL, "qp-inline-rejected",
	       "max_inline_data 100000: %s", strerror(err));
}

/* --- SRQ ------------------------------------------------------------------ */

static int create_srq(uint32_t max_wr, uint32_t limit, uint32_t *handle,
		      struct srq_resp *resp)
{
	struct ornic_ibv_create_srq drv = {
		.log_depth = 6,
		.buf_addr = (uintptr_t)pages(4096),
		.buf_size = 4096,
	};
	struct ib_uverbs_create_srq req = {
		.response = (uintptr_t)resp,
		.pd_handle = pd_handle,
		.max_wr = max_wr,
		.max_sge = 3,
		.srq_limit = limit,
	};
	int err;

	memset(resp, 0, sizeof(*resp));
	err = cmd(IB_USER_VERBS_CMD_CREATE_SRQ, &req, sizeof(req), &drv,
		  sizeof(drv), sizeof(*resp));
	if (!err)
		*handle = resp->core.srq_handle;
	return err;
}

static void check_srq(uint32_t cq)
{
	struct ib_uverbs_query_srq_resp qr;
	struct ib_uverbs_modify_srq mod;
	struct ib_uverbs_destroy_srq_resp dr;
	struct ib_uverbs_destroy_srq dreq;
	struct ib_uverbs_query_srq qreq;
	struct srq_resp resp;
	struct qp_resp qresp;
	struct qp_req req;
	uint32_t h, qh;
	int err;

	err = create_srq(32, 4, &h, &resp);
	report(!err && resp.drv.srqn && resp.core.max_wr >= 32,
	       "srq-create", "%s srqn=%u max_wr=%u max_sge=%u", strerror(err),
	       resp.drv.srqn, resp.core.max_wr, resp.core.max_sge);
	if (err)
		return;

	mod = (struct ib_uverbs_modify_srq){ .srq_handle = h,
		.attr_mask = 2 /* IB_SRQ_LIMIT */, .srq_limit = 8 };
	err = cmd(IB_USER_VERBS_CMD_MODIFY_SRQ, &mod, sizeof(mod), NULL, 0, 0);
	qreq = (struct ib_uverbs_query_srq){ .response = (uintptr_t)&qr,
		.srq_handle = h };
	if (!err)
		err = cmd(IB_USER_VERBS_CMD_QUERY_SRQ, &qreq, sizeof(qreq),
			  NULL, 0, sizeof(qr));
	report(!err && qr.srq_limit == 8, "srq-limit",
	       "modify + query: %s limit=%u", strerror(err), qr.srq_limit);

	/*
	 * IB_SRQ_MAX_WR without the provider's new ring (no driver data):
	 * EINVAL where the device resizes (ORNIC_CAP_RESIZE), EOPNOTSUPP
	 * where it cannot.
	 */
	mod.attr_mask = 1;
	mod.max_wr = 64;
	err = cmd(IB_USER_VERBS_CMD_MODIFY_SRQ, &mod, sizeof(mod), NULL, 0, 0);
	report(err == EINVAL || err == EOPNOTSUPP, "srq-resize-without-ring",
	       "%s (want EINVAL, or EOPNOTSUPP without resize)",
	       strerror(err));

	req = rc_req(cq);
	qp_req_on_srq(&req, h);
	err = create_qp(&req, &qh, &qresp);
	report(!err, "qp-on-srq", "RC QP with the SRQ: %s qpn=%u",
	       strerror(err), qresp.drv.qpn);
	if (!err)
		destroy_qp(qh);

	dreq = (struct ib_uverbs_destroy_srq){ .response = (uintptr_t)&dr,
		.srq_handle = h };
	err = cmd(IB_USER_VERBS_CMD_DESTROY_SRQ, &dreq, sizeof(dreq), NULL, 0,
		  sizeof(dr));
	report(!err, "srq-destroy", "%s", strerror(err));
}

/* --- AH ------------------------------------------------------------------ */

static int create_ah(uint32_t *handle, uint32_t *index)
{
	return create_ah_to(gid, handle, index);
}

static int create_ah_to(const uint8_t *dgid, uint32_t *handle,
			uint32_t *index)
{
	struct {
		struct ib_uverbs_create_ah_resp core;
		struct ornic_ibv_create_ah_resp drv;
	} resp = {};
	struct ib_uverbs_create_ah req = {
		.response = (uintptr_t)&resp,
		.pd_handle = pd_handle,
	};
	int err;

	memcpy(req.attr.grh.dgid, dgid, 16);
	req.attr.grh.sgid_index = gid_index;
	req.attr.grh.hop_limit = 64;
	req.attr.is_global = 1;
	req.attr.port_num = 1;
	err = cmd(IB_USER_VERBS_CMD_CREATE_AH, &req, sizeof(req), NULL, 0,
		  sizeof(resp));
	if (!err) {
		*handle = resp.core.ah_handle;
		*index = resp.drv.ah;
	}
	return err;
}

static const uint8_t ll6[16] = { 0xfe, 0x80, [8] = 0x02, [11] = 0xff,
				  [12] = 0xfe, [15] = 0x01 };

static void check_ah(void)
{
	struct ib_uverbs_destroy_ah d;
	uint32_t h, index = 0;
	int err;

	err = create_ah(&h, &index);
	report(!err && index >= 1, "ah-create", "%s ah=%u", strerror(err),
	       index);
	if (err)
		return;
	d.ah_handle = h;
	err = cmd(IB_USER_VERBS_CMD_DESTROY_AH, &d, sizeof(d), NULL, 0, 0);
	report(!err, "ah-destroy", "%s", strerror(err));

	/* An IPv6 (link-local) destination from an IPv4 source GID. */
	err = create_ah_to(ll6, &h, &index);
	report(err == EINVAL, "ah-family-mismatch-rejected",
	       "IPv4 source GID, IPv6 destination (core address resolution or driver): %s",
	       strerror(err));
}

/* --- main -------------------------------------------------------------- */

static int read_gid(const char *ibdev, int index)
{
	char path[256], line[64];
	unsigned int w[8];
	FILE *f;
	int i;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/gids/%d", ibdev, index);
	f = fopen(path, "r");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2],
		   &w[3], &w[4], &w[5], &w[6], &w[7]) != 8) {
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	fclose(f);
	for (i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i] & 0xff;
	}
	return 0;
}

static int hold(void)
{
	struct qp_req req;
	struct qp_resp qresp;
	struct srq_resp sresp;
	uint32_t h, lkey, rkey, cq, srq, idx;
	char line[16];
	int err;

	cq = good_cq();
	err = reg_mr(pages(4 * 4096), 4 * 4096, ACC_LOCAL_WRITE, &h, &lkey,
		     &rkey);
	req = rc_req(cq);
	if (!err)
		err = create_qp(&req, &h, &qresp);
	if (!err)
		err = to_init(h, 0);
	if (!err)
		err = create_srq(16, 0, &srq, &sresp);
	if (!err) {
		req = rc_req(cq);
		qp_req_on_srq(&req, srq);
		err = create_qp(&req, &h, &qresp);
	}
	if (!err)
		err = create_ah(&h, &idx);
	if (err) {
		fprintf(stderr, "hold: %s\n", strerror(err));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	printf("released\n");
	return 0;
}

/*
 * traffic N (N <= 16): an RC QP looped back to itself, created and brought
 * to RTS, prints "qpn=Q" and waits for a line on stdin (time to bind it to
 * an RDMA counter by hand); then N signaled 4 KiB RDMA WRITEs, each checked
 * by its CQE and its data, print "done wqes=N bytes=B" and wait for a line
 * again (time to read counters, restrack and debugfs with the QP alive).
 */
static int traffic(int n)
{
	char *src = pages(4096), *dst = pages(16 * 4096);
	volatile struct ornic_cqe *cqes;
	struct ornic_send_wqe *wqe;
	uint32_t skey, dkey;
	struct loop l = {};
	char line[16];
	int err, i, ok = 1;

	if (n < 1 || n > 16)
		return 2;
	for (i = 0; i < 4096; i++)
		src[i] = (char)(i * 13 + 1);
	err = loop_cq(&l, 64, 6, -1);
	if (!err)
		err = loop_mr(&l, src, 4096, ACC_LOCAL_WRITE, &skey);
	if (!err)
		err = loop_mr(&l, dst, 16 * 4096,
			      ACC_LOCAL_WRITE | ACC_REMOTE_WRITE, &dkey);
	if (!err)
		err = loop_qp(&l, QPT_RC, 0);
	if (err) {
		fprintf(stderr, "traffic: setup: %s\n", strerror(err));
		return 1;
	}
	cqes = l.cqes;
	printf("qpn=%u\n", l.qpn);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	/* 2 blocks per WQE, 32 blocks in the SQ: 16 WQEs in one pass. */
	for (i = 0; i < n; i++) {
		wqe = sq_wqe(&l, 2 * i);
		memset(wqe, 0, 2 * sizeof(*wqe));
		wqe_one_sge(wqe, ORNIC_WQE_OP_RDMA_WRITE, 0x7000 + i, src, 4096,
			    skey);
		wqe->rdma.remote_addr = (uintptr_t)dst + i * 4096;
		wqe->rdma.rkey = dkey;
	}
	doorbell(ORNIC_DB_SQ, l.qpn, 0, 2 * n);
	for (i = 0; i < n; i++) {
		if (!cqe_ready(cqes, i) || cqes[i].status != ORNIC_CQE_SUCCESS ||
		    cqes[i].wr_id != (uint64_t)(0x7000 + i) ||
		    memcmp(src, dst + i * 4096, 4096)) {
			fprintf(stderr, "traffic: WRITE %d: CQE %s status %u\n",
				i, (cqes[i].owner & 1) ? "seen" : "missing",
				cqes[i].status);
			ok = 0;
			break;
		}
	}
	if (!ok)
		return 1;
	printf("done wqes=%d bytes=%d\n", n, n * 4096);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	err = loop_close(&l);
	printf("released %s\n", strerror(err));
	return err ? 1 : 0;
}

/*
 * oversized: one create_qp with 100000 send WRs and one create_cq of 200000
 * CQEs in a 2^17 ring, both above the device's limits: each must fail with
 * EINVAL (the driver logs the value and the limit, which the caller checks).
 */
static int oversized(void)
{
	struct ornic_ibv_create_cq cdrv = {
		.log_depth = 17,
		.buf_addr = (uintptr_t)pages((size_t)ORNIC_CQE_SIZE << 17),
		.buf_size = (uint64_t)ORNIC_CQE_SIZE << 17,
	};
	uint32_t cq = good_cq(), h;
	struct qp_req req = rc_req(cq);
	struct qp_resp qresp;
	struct cq_resp cresp;
	int err;

	req.send_wr = 100000;
	err = create_qp(&req, &h, &qresp);
	report(err == EINVAL, "oversized-qp-rejected", "max_send_wr 100000: %s",
	       strerror(err));
	err = create_cq(200000, &cdrv, sizeof(cdrv), &h, &cresp);
	report(err == EINVAL, "oversized-cq-rejected",
	       "200000 CQEs in 2^17: %s", strerror(err));
	destroy_cq(cq);
	return report_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint32_t cq;

	if (argc != 5 && !(argc == 6 && !strcmp(argv[1], "traffic"))) {
		fprintf(stderr,
			"usage: %s check|hold|oversized|traffic /dev/infiniband/uverbsN IBDEV GID_INDEX [N]\n",
			argv[0]);
		return 2;
	}
	gid_index = atoi(argv[4]);
	if (read_gid(argv[3], gid_index) || open_context(argv[2]))
		return 1;
	if (!strcmp(argv[1], "hold"))
		return hold();
	if (!strcmp(argv[1], "traffic"))
		return traffic(atoi(argv[5]));
	if (!strcmp(argv[1], "oversized"))
		return oversized();

	check_mrs();
	check_cqs();
	cq = good_cq();
	check_rc(cq);
	check_ud(cq);
	check_qp_bad(cq);
	check_srq(cq);
	check_ah();
	check_data();
	check_cq_overflow();
	check_srq_data();
	check_ud_data();
	report(!destroy_cq(cq), "cq-destroy-after-qps",
	       "the CQ of the QP checks, after their QPs");
	return report_failures() ? 1 : 0;
}
