// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-mw DEV GID DEV2 GID2: memory windows, type 1 and type 2, between
 * two devices (spec: memory.rst "Memory windows", wqe.rst "BIND_MW").
 *
 * DEV2 owns a target region registered with LOCAL_WRITE | MW_BIND only (no
 * remote rights of its own): every remote access below goes through a
 * window.  Checked, byte for byte: RDMA WRITE and READ through a bound
 * window; a write beyond the window or needing a right the window lacks
 * fails with a remote access error and leaves the region untouched;
 * unbinding (type 1, length 0), LOCAL_INV, SEND_WITH_INV and dealloc end
 * access; a type-2 window used from another QP fails; an MR without
 * MW_BIND cannot be bound to (MW_BIND_ERR); an MR with a bound window
 * cannot be deregistered.  A control QP pair between the same devices
 * carries a checked SEND after every error.  A failed access puts the QP
 * pair in ERR, so the pair is made anew after each.
 *
 * One line per check: "PASS: mw/<check> ...", "FAIL: ...", "SKIP: ...".
 * Exit status 0 unless the tool could not run at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qp-pair.h"

#define WIN_OFF		4096u
#define WIN_LEN		4096u
#define T_SIZE		(16u * 4096u)
#define UNTOUCHED	0xeeu

static struct side sa, sb;
static uint8_t *target;		/* DEV2's region behind the windows */
static struct ibv_mr *tmr;	/* LOCAL_WRITE | MW_BIND */
static struct pair p, ctrl;

static uint64_t win_addr(void)
{
	return (uintptr_t)target + WIN_OFF;
}

/* A fresh RC pair DEV -> DEV2 in place of the old one (ERR after a NAK). */
static int renew(struct pair *q, const char *tag)
{
	pair_close(q);
	memset(q, 0, sizeof(*q));
	q->tag = tag;
	q->a = &sa;
	q->b = &sb;
	return rc_pair(q, NULL);
}

/* A signaled RDMA op of @len bytes from DEV's buffer at @loff. */
static int rdma(struct pair *q, enum ibv_wr_opcode op, uint32_t loff,
		uint32_t len, uint64_t raddr, uint32_t rkey,
		struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)sa.buf + loff,
			       .length = len, .lkey = sa.mr->lkey };

	if (post1(q->qa, 1, op, IBV_SEND_SIGNALED, &sge, 1, raddr, rkey))
		return -1;
	return poll_one(q->ca, wc) ? 0 : -1;
}

/* Waits for one completion on @cq: 0 and *wc, or -1 on timeout. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return poll_one(cq, wc) ? 0 : -1;
}

static int region_is(size_t off, size_t len, uint8_t v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (target[off + i] != v)
			return 0;
	return 1;
}

/* A checked SEND on the control pair: other QPs keep working. */
static void control(const char *after)
{
	char name[64];
	struct ibv_sge sge = { .addr = (uintptr_t)sa.buf + 60000,
			       .length = 256, .lkey = sa.mr->lkey };
	struct ibv_wc wc;
	int ok;

	snprintf(name, sizeof(name), "control-after-%s", after);
	fill(sa.buf + 60000, 256, (uint8_t)strlen(after));
	memset(sb.buf + 60000, 0, 256);
	ok = !postr(ctrl.qb, 2, sb.buf + 60000, 256, sb.mr->lkey) &&
	     !post1(ctrl.qa, 3, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge, 1, 0, 0) &&
	     !wait_wc(ctrl.ca, &wc) && wc.status == IBV_WC_SUCCESS &&
	     !wait_wc(ctrl.cb, &wc) && wc.status == IBV_WC_SUCCESS &&
	     wc.byte_len == 256 && !memcmp(sa.buf + 60000, sb.buf + 60000, 256);
	report(ok, name, "a SEND of 256 bytes on another QP pair %s",
	       ok ? "arrived intact" : "failed");
}

/*
 * A write through @rkey that must be refused: REM_ACCESS_ERR, the region
 * unchanged; then the control pair and a fresh main pair.
 */
static void refused_write(const char *name, uint64_t raddr, uint32_t rkey,
			  uint32_t len, const char *what)
{
	struct ibv_wc wc = {};
	int ok;

	memset(target, UNTOUCHED, T_SIZE);
	fill(sa.buf, len, 0x31);
	ok = !rdma(&p, IBV_WR_RDMA_WRITE, 0, len, raddr, rkey, &wc) &&
	     wc.status == IBV_WC_REM_ACCESS_ERR;
	report(ok && region_is(0, T_SIZE, UNTOUCHED), name,
	       "%s: write of %u bytes -> %s, region %s", what, len,
	       ibv_wc_status_str(wc.status),
	       region_is(0, T_SIZE, UNTOUCHED) ? "untouched" : "CHANGED");
	control(name);
	if (renew(&p, "mw"))
		report(0, name, "could not make a new QP pair");
}

/* A write through the window then a read back, both checked. */
static int write_read(const char *name, uint32_t rkey)
{
	struct ibv_wc wc = {};
	int ok;

	memset(target, 0, T_SIZE);
	fill(sa.buf, WIN_LEN, (uint8_t)rkey);
	ok = !rdma(&p, IBV_WR_RDMA_WRITE, 0, WIN_LEN, win_addr(), rkey, &wc) &&
	     wc.status == IBV_WC_SUCCESS &&
	     !memcmp(target + WIN_OFF, sa.buf, WIN_LEN) &&
	     region_is(0, WIN_OFF, 0) &&
	     region_is(WIN_OFF + WIN_LEN, T_SIZE - WIN_OFF - WIN_LEN, 0);
	if (ok) {
		memset(sa.buf + 32768, 0, 2000);
		ok = !rdma(&p, IBV_WR_RDMA_READ, 32768, 2000, win_addr() + 1000,
			   rkey, &wc) && wc.status == IBV_WC_SUCCESS &&
		     wc.opcode == IBV_WC_RDMA_READ && wc.byte_len == 2000 &&
		     !memcmp(sa.buf + 32768, target + WIN_OFF + 1000, 2000);
	}
	report(ok, name, "RDMA WRITE of %u bytes and READ of 2000 through rkey %#x: %s",
	       WIN_LEN, rkey, ok ? "data intact, nothing outside the window" :
	       ibv_wc_status_str(wc.status));
	return ok ? 0 : -1;
}

/* A bind completion on DEV2's side of the main pair. */
static int bind_done(const char *name, enum ibv_wc_status want)
{
	struct ibv_wc wc = {};
	int ok = !wait_wc(p.cb, &wc) && wc.status == want &&
		 (want != IBV_WC_SUCCESS || (wc.opcode == IBV_WC_BIND_MW &&
					     wc.wr_id == 0xb1d));

	report(ok, name, "bind completion: %s, opcode %d, wr_id %#llx",
	       ibv_wc_status_str(wc.status), wc.opcode,
	       (unsigned long long)wc.wr_id);
	return ok ? 0 : -1;
}

static int bind1(struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
		 uint64_t len, unsigned int rights)
{
	struct ibv_mw_bind b = {
		.wr_id = 0xb1d,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = addr, .length = len,
			       .mw_access_flags = rights },
	};

	return ibv_bind_mw(p.qb, mw, &b);
}

/* Type 2: IBV_WR_BIND_MW with the next variant; returns the new rkey. */
static uint32_t bind2(struct ibv_qp *qp, struct ibv_mw *mw, uint32_t *cur,
		      unsigned int rights)
{
	struct ibv_send_wr wr = {}, *bad;

	wr.wr_id = 0xb1d;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(*cur);
	wr.bind_mw.bind_info.mr = tmr;
	wr.bind_mw.bind_info.addr = win_addr();
	wr.bind_mw.bind_info.length = WIN_LEN;
	wr.bind_mw.bind_info.mw_access_flags = rights;
	if (ibv_post_send(qp, &wr, &bad))
		return 0;
	*cur = wr.bind_mw.rkey;
	return *cur;
}

static void type1_tests(void)
{
	const unsigned int rw = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mw *mw = ibv_alloc_mw(sb.pd, IBV_MW_TYPE_1);
	struct ibv_mr *plain;
	uint32_t first;
	int err;

	report(mw != NULL, "type1-alloc", "ibv_alloc_mw(TYPE_1): %s",
	       mw ? "ok" : strerror(errno));
	if (!mw)
		return;
	first = mw->rkey;
	err = bind1(mw, tmr, win_addr(), WIN_LEN, rw);
	report(!err && mw->rkey != first, "type1-bind",
	       "ibv_bind_mw: %s, rkey %#x -> %#x", err ? strerror(err) : "posted",
	       first, mw->rkey);
	if (err || bind_done("type1-bind-wc", IBV_WC_SUCCESS))
		goto out;
	write_read("type1-write-read", mw->rkey);
	refused_write("type1-beyond-window", win_addr() + WIN_LEN - 32,
		      mw->rkey, 64, "32 bytes past the window, inside the MR");
	refused_write("type1-before-window", win_addr() - 8, mw->rkey, 16,
		      "8 bytes before the window");

	/* An MR with a bound window stays (ornic: BUSY, rxe: EINVAL). */
	err = ibv_dereg_mr(tmr);
	report(err != 0, "dereg-mr-with-bound-window",
	       "ibv_dereg_mr: %s", err ? strerror(err) : "SUCCEEDED");
	if (!err) {
		tmr = NULL;
		goto out;
	}

	/* Rebind read-only: a write needs a right the window lacks. */
	if (bind1(mw, tmr, win_addr(), WIN_LEN, IBV_ACCESS_REMOTE_READ) ||
	    bind_done("type1-rebind-read-only", IBV_WC_SUCCESS))
		goto out;
	refused_write("type1-missing-right", win_addr(), mw->rkey, 64,
		      "REMOTE_WRITE on a read-only window");

	/* Unbind with length 0: the key gives nothing any more. */
	if (bind1(mw, tmr, win_addr(), WIN_LEN, rw) ||
	    bind_done("type1-rebind", IBV_WC_SUCCESS) ||
	    write_read("type1-rebound-write-read", mw->rkey))
		goto out;
	first = mw->rkey;
	if (bind1(mw, tmr, win_addr(), 0, 0) ||
	    bind_done("type1-unbind", IBV_WC_SUCCESS))
		goto out;
	refused_write("type1-after-unbind", win_addr(), first, 64,
		      "the key of a window unbound by a zero-length bind");

	/* An MR without MW_BIND cannot carry a window. */
	plain = ibv_reg_mr(sb.pd, target, T_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (plain) {
		if (!bind1(mw, plain, win_addr(), WIN_LEN, rw))
			bind_done("bind-mr-without-mw-bind", IBV_WC_MW_BIND_ERR);
		else
			report(1, "bind-mr-without-mw-bind",
			       "refused at post time");
		control("bind-mr-without-mw-bind");
		renew(&p, "mw");
		ibv_dereg_mr(plain);
	}
out:
	err = ibv_dealloc_mw(mw);
	report(!err, "type1-dealloc", "ibv_dealloc_mw: %s",
	       err ? strerror(err) : "ok");
}

static void type2_tests(void)
{
	const unsigned int rw = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mw *mw = ibv_alloc_mw(sb.pd, IBV_MW_TYPE_2);
	struct pair other = {};
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_wc wc = {};
	uint32_t key = 0, cur;
	int err, ok;

	report(mw != NULL, "type2-alloc", "ibv_alloc_mw(TYPE_2): %s",
	       mw ? "ok" : strerror(errno));
	if (!mw)
		return;
	cur = mw->rkey;

	/* Bound through p.qb: usable from p.qa, not from another QP. */
	key = bind2(p.qb, mw, &cur, rw);
	if (!key || bind_done("type2-bind", IBV_WC_SUCCESS) ||
	    write_read("type2-write-read", key))
		goto out;
	if (!renew(&other, "mw-other")) {
		memset(target, UNTOUCHED, T_SIZE);
		ok = !rdma(&other, IBV_WR_RDMA_WRITE, 0, 64, win_addr(), key,
			   &wc) && wc.status == IBV_WC_REM_ACCESS_ERR;
		report(ok && region_is(0, T_SIZE, UNTOUCHED), "type2-other-qp",
		       "write through the window from a QP it is not bound to: %s, region %s",
		       ibv_wc_status_str(wc.status),
		       region_is(0, T_SIZE, UNTOUCHED) ? "untouched" : "CHANGED");
		pair_close(&other);
		control("type2-other-qp");
		write_read("type2-own-qp-still-works", key);
	}

	/* LOCAL_INV from DEV2's QP. */
	wr.wr_id = 0x1a;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = key;
	err = ibv_post_send(p.qb, &wr, &bad);
	ok = !err && !wait_wc(p.cb, &wc) && wc.status == IBV_WC_SUCCESS &&
	     wc.opcode == IBV_WC_LOCAL_INV && wc.wr_id == 0x1a;
	report(ok, "type2-local-inv", "LOCAL_INV of %#x: %s, opcode %d", key,
	       err ? strerror(err) : ibv_wc_status_str(wc.status), wc.opcode);
	refused_write("type2-after-local-inv", win_addr(), key, 64,
		      "a window invalidated by LOCAL_INV");

	/* SEND_WITH_INV from DEV, received on the window's QP. */
	key = bind2(p.qb, mw, &cur, rw);
	if (!key || bind_done("type2-rebind", IBV_WC_SUCCESS) ||
	    write_read("type2-rebound-write-read", key))
		goto out;
	{
		struct ibv_sge sge = { .addr = (uintptr_t)sa.buf, .length = 64,
				       .lkey = sa.mr->lkey };
		struct ibv_send_wr s = { .wr_id = 0x5e, .opcode = IBV_WR_SEND_WITH_INV,
					 .send_flags = IBV_SEND_SIGNALED,
					 .sg_list = &sge, .num_sge = 1 };
		struct ibv_wc rwc = {};

		s.invalidate_rkey = key;
		ok = !postr(p.qb, 0x5f, sb.buf, 256, sb.mr->lkey) &&
		     !ibv_post_send(p.qa, &s, &bad) && !wait_wc(p.ca, &wc) &&
		     wc.status == IBV_WC_SUCCESS && !wait_wc(p.cb, &rwc) &&
		     rwc.status == IBV_WC_SUCCESS &&
		     (rwc.wc_flags & IBV_WC_WITH_INV) &&
		     rwc.invalidated_rkey == key && rwc.byte_len == 64;
		report(ok, "type2-send-with-inv",
		       "SEND_WITH_INV of %#x: send %s, receive %s flags %#x rkey %#x",
		       key, ibv_wc_status_str(wc.status),
		       ibv_wc_status_str(rwc.status), rwc.wc_flags,
		       rwc.invalidated_rkey);
	}
	refused_write("type2-after-send-with-inv", win_addr(), key, 64,
		      "a window invalidated by SEND_WITH_INV");

	/* Dealloc of a bound window. */
	key = bind2(p.qb, mw, &cur, rw);
	if (!key || bind_done("type2-bind-before-dealloc", IBV_WC_SUCCESS) ||
	    write_read("type2-write-before-dealloc", key))
		goto out;
	err = ibv_dealloc_mw(mw);
	report(!err, "type2-dealloc-bound", "ibv_dealloc_mw of a bound window: %s",
	       err ? strerror(err) : "ok");
	if (err)
		goto out;
	mw = NULL;
	refused_write("type2-after-dealloc", win_addr(), key, 64,
		      "the key of a deallocated window");
	err = ibv_dereg_mr(tmr);
	report(!err, "dereg-mr-after-windows", "ibv_dereg_mr: %s",
	       err ? strerror(err) : "ok");
	if (!err)
		tmr = NULL;
out:
	if (mw)
		ibv_dealloc_mw(mw);
}

int main(int argc, char **argv)
{
	struct ibv_device_attr_ex ax = {};

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("mw/");
	if (sides_open(&sa, &sb, argv))
		return 1;
	if (ibv_query_device_ex(sb.ctx, NULL, &ax) ||
	    !(ax.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW)) {
		report_skip("all", "%s reports no IBV_DEVICE_MEM_WINDOW", sb.name);
		return 0;
	}
	target = aligned_alloc(4096, T_SIZE);
	tmr = target ? ibv_reg_mr(sb.pd, target, T_SIZE,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_MW_BIND) : NULL;
	report(tmr != NULL, "reg-mr-mw-bind",
	       "MR with LOCAL_WRITE | MW_BIND and no remote right: %s",
	       tmr ? "ok" : strerror(errno));
	if (!tmr)
		return 0;
	if (renew(&p, "mw") || renew(&ctrl, "mw-control")) {
		fprintf(stderr, "cannot connect QP pairs\n");
		return 1;
	}
	control("setup");
	type1_tests();
	if (ax.orig_attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B)
		type2_tests();
	else
		report_skip("type2", "%s reports no IBV_DEVICE_MEM_WINDOW_TYPE_2B",
			    sb.name);
	control("end");
	pair_close(&p);
	pair_close(&ctrl);
	if (tmr)
		ibv_dereg_mr(tmr);
	printf("verbs-mw: %d failed checks\n", report_failures());
	return 0;
}
