// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-resize DEV GID DEV2 GID2: changing objects after creation, with data.
 *
 * - ibv_resize_cq with completions pending: grow and shrink keep the
 *   unpolled CQEs in order with their fields, a shrink below them fails
 *   with EINVAL and loses nothing, the new ring wraps, arming survives;
 * - SRQ resize (ibv_modify_srq IBV_SRQ_MAX_WR) while receives are posted
 *   and SENDs are in flight: every receive completes in posting order with
 *   its data, grow and shrink, a shrink below the posted WQEs fails;
 * - ibv_rereg_mr of access, translation and PD between RDMA WRITEs: old
 *   rights and addresses stop working (remote access error, memory
 *   untouched) while a bystander QP keeps moving data, new ones work.
 *
 * Checks print "PASS: resize/<check> ..." / "FAIL: ..." / "SKIP: ..."
 * lines; the exit status is 1 when a check failed, 2 when nothing could run.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp-pair.h"

#define MSG		256
#define REGION		(4 * 4096)

/* Wait until @n bytes at @p equal @want (an RDMA WRITE landed), or 5 s. */
static int wait_bytes(const uint8_t *p, const uint8_t *want, size_t n)
{
	long long end = now_ms() + 5000;

	while (memcmp((const void *)p, want, n)) {
		if (now_ms() > end)
			return -1;
		usleep(1000);
	}
	return 0;
}

/* @count signaled RDMA WRITEs of MSG bytes, wr_id first.., a[i] -> b[i]. */
static int post_writes(struct pair *p, uint64_t first, int count, uint8_t seed)
{
	int i;

	for (i = 0; i < count; i++) {
		uint8_t *src = p->a->buf + (size_t)(i % 64) * MSG;
		struct ibv_sge sge = { .addr = (uintptr_t)src, .length = MSG,
				       .lkey = p->a->mr->lkey };

		fill(src, MSG, (uint8_t)(seed + i));
		if (post1(p->qa, first + i, IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sge, 1,
			  (uintptr_t)(p->b->buf + (size_t)(i % 64) * MSG),
			  p->b->mr->rkey))
			return -1;
	}
	/* Let the last one land and its completion come back. */
	i = count - 1;
	if (wait_bytes(p->b->buf + (size_t)(i % 64) * MSG,
		       p->a->buf + (size_t)(i % 64) * MSG, MSG))
		return -1;
	usleep(100000);
	return 0;
}

/* Poll @count WRITE completions first.. in order; data of batch checked. */
static int expect_writes(struct pair *p, const char *name, uint64_t first,
			 int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (check_wc("wc", name, p->ca, first + i,
			     IBV_WC_RDMA_WRITE, 0, 0, p->qa->qp_num, NULL))
			return -1;
	for (i = 0; i < count && i < 64; i++)
		if (memcmp(p->a->buf + (size_t)i * MSG,
			   p->b->buf + (size_t)i * MSG, MSG)) {
			report(0, name, "data of WRITE %d differs", i);
			return -1;
		}
	return 0;
}

static void cq_tests(struct side *a, struct side *b)
{
	struct pair p = { .tag = "cq", .a = a, .b = b };
	struct ibv_cq *cq;
	struct ibv_cq *ev_cq;
	struct pollfd pfd;
	void *ev_ctx;
	int err, i;

	p.ca = ibv_create_cq(a->ctx, 16, NULL, a->ch, 0);
	if (!p.ca || rc_pair(&p, NULL)) {
		report(0, "cq-setup", "RC pair: %s", strerror(errno));
		pair_close(&p);
		return;
	}
	cq = p.ca;
	err = ibv_resize_cq(cq, 16);
	if (err == EOPNOTSUPP || err == ENOSYS) {
		report_skip("cq", "ibv_resize_cq not supported by this device");
		pair_close(&p);
		return;
	}
	report(!err && cq->cqe >= 16, "cq-same-size",
	       "resize to 16: %s, cqe %d", strerror(err), cq->cqe);

	/* Grow with 7 of 10 completions unpolled. */
	if (post_writes(&p, 100, 10, 1)) {
		report(0, "cq-grow", "WRITEs did not land");
		goto out;
	}
	if (expect_writes(&p, "cq-grow-before", 100, 3))
		goto out;
	err = ibv_resize_cq(cq, 100);
	report(!err && cq->cqe >= 100, "cq-grow",
	       "16 -> 100 with 7 pending: %s, cqe %d", strerror(err),
	       cq->cqe);
	if (!err && !expect_writes(&p, "cq-grow-pending", 103, 7))
		report(1, "cq-grow-pending",
		       "7 unpolled CQEs after the resize in order, fields and data intact");

	/* Shrink below the unpolled CQEs: EINVAL, nothing lost. */
	if (post_writes(&p, 200, 12, 2)) {
		report(0, "cq-shrink-refused", "WRITEs did not land");
		goto out;
	}
	err = ibv_resize_cq(cq, 2);
	report(err == EINVAL, "cq-shrink-refused",
	       "100 -> 2 with 12 pending: %s (want EINVAL)", strerror(err));
	if (!expect_writes(&p, "cq-shrink-refused-intact", 200, 12))
		report(1, "cq-shrink-refused-intact",
		       "all 12 CQEs still there in order");

	/* Shrink with pending CQEs that fit, then wrap the small ring. */
	if (post_writes(&p, 300, 2, 3)) {
		report(0, "cq-shrink", "WRITEs did not land");
		goto out;
	}
	err = ibv_resize_cq(cq, 4);
	report(!err && cq->cqe >= 4, "cq-shrink",
	       "100 -> 4 with 2 pending: %s, cqe %d", strerror(err),
	       cq->cqe);
	if (err || expect_writes(&p, "cq-shrink-pending", 300, 2))
		goto out;
	for (i = 0; i < 8; i++)
		if (post_writes(&p, 400 + 3 * i, 3, (uint8_t)(4 + i)) ||
		    expect_writes(&p, "cq-shrink-wrap", 400 + 3 * i, 3))
			goto out;
	report(1, "cq-shrink-wrap",
	       "24 WRITEs in batches of 3 through the shrunk CQ, in order");

	/* Arming survives a resize. */
	if (ibv_req_notify_cq(cq, 0)) {
		report(0, "cq-armed", "req_notify_cq failed");
		goto out;
	}
	err = ibv_resize_cq(cq, 32);
	if (!err)
		err = post_writes(&p, 500, 1, 9) ? EIO : 0;
	pfd.fd = a->ch->fd;
	pfd.events = POLLIN;
	if (!err && poll(&pfd, 1, 5000) == 1 &&
	    !ibv_get_cq_event(a->ch, &ev_cq, &ev_ctx) && ev_cq == cq) {
		ibv_ack_cq_events(cq, 1);
		report(!expect_writes(&p, "cq-armed", 500, 1), "cq-armed",
		       "armed, resized, the next CQE raised a completion event");
	} else {
		report(0, "cq-armed", "no completion event (%s)",
		       strerror(err));
	}

	/* Bad sizes. */
	err = ibv_resize_cq(cq, 0);
	report(err == EINVAL, "cq-bad-size", "0 CQEs: %s (want EINVAL)",
	       strerror(err));
	err = ibv_resize_cq(cq, a->attr.max_cqe + 1);
	report(err == EINVAL, "cq-too-big",
	       "max_cqe + 1: %s (want EINVAL)", strerror(err));
out:
	pair_close(&p);
}

/* The receive of message @n lands at b->buf + n * MSG (n < 200). */
static int srq_post(struct side *b, struct ibv_srq *srq, uint64_t n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)(b->buf + n * MSG),
			       .length = MSG, .lkey = b->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = n, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int srq_send(struct pair *p, uint64_t n)
{
	uint8_t *src = p->a->buf + n * MSG;
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = MSG,
			       .lkey = p->a->mr->lkey };

	fill(src, MSG, (uint8_t)(n * 3 + 1));
	return post1(p->qa, n, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge, 1, 0, 0);
}

/*
 * Both completions of message @n and its data.  The receive's GRH flag is
 * not checked: rxe sets it on RC receives, ornic does not.
 */
static int srq_done(struct pair *p, const char *name, uint64_t n)
{
	struct ibv_wc wc;

	if (check_wc("wc", name, p->ca, n, IBV_WC_SEND, 0, 0,
		     p->qa->qp_num, NULL))
		return -1;
	if (!poll_one(p->cb, &wc)) {
		report(0, name, "no receive completion for %llu",
		       (unsigned long long)n);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != n ||
	    wc.opcode != IBV_WC_RECV || wc.byte_len != MSG ||
	    (wc.wc_flags & IBV_WC_WITH_IMM) || wc.qp_num != p->qb->qp_num) {
		report(0, name, "receive: status %s wr_id %llu opcode %d byte_len %u flags %#x qp %u; want wr_id %llu RECV %u bytes qp %u",
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len,
		       wc.wc_flags, wc.qp_num, (unsigned long long)n, MSG,
		       p->qb->qp_num);
		return -1;
	}
	if (memcmp(p->a->buf + n * MSG, p->b->buf + n * MSG, MSG)) {
		report(0, name, "data of message %llu differs",
		       (unsigned long long)n);
		return -1;
	}
	return 0;
}

static void srq_tests(struct side *a, struct side *b)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct pair p = { .tag = "srq", .a = a, .b = b };
	struct ibv_srq_attr attr;
	struct ibv_srq *srq;
	uint64_t n;
	int err;

	if (!(b->attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE)) {
		report_skip("srq", "device does not report IBV_DEVICE_SRQ_RESIZE");
		return;
	}
	srq = ibv_create_srq(b->pd, &init);
	if (!srq || rc_pair(&p, srq)) {
		report(0, "srq-setup", "SRQ + RC pair: %s",
		       strerror(errno));
		goto out;
	}
	memset(b->buf, 0, BUF_SIZE);
	for (n = 0; n < 6; n++)
		if (srq_post(b, srq, n))
			goto post_failed;
	/* Three SENDs in flight while the SRQ grows to 64. */
	for (n = 0; n < 3; n++)
		if (srq_send(&p, n))
			goto post_failed;
	attr.max_wr = 64;
	err = ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR);
	memset(&attr, 0, sizeof(attr));
	if (!err)
		err = ibv_query_srq(srq, &attr);
	report(!err && attr.max_wr >= 64, "srq-grow",
	       "8 -> 64 with 6 posted and 3 SENDs in flight: %s, max_wr %u",
	       strerror(err), attr.max_wr);
	if (err)
		goto out;
	for (n = 6; n < 50; n++) /* more than the old ring held */
		if (srq_post(b, srq, n))
			goto post_failed;
	for (n = 0; n < 50; n++)
		if ((n >= 3 && srq_send(&p, n)) ||
		    srq_done(&p, "srq-grow-traffic", n))
			goto out;
	report(1, "srq-grow-traffic",
	       "50 receives completed in posting order with their data");

	/* Shrink below the posted WQEs: refused. */
	for (n = 50; n < 60; n++)
		if (srq_post(b, srq, n))
			goto post_failed;
	attr.max_wr = 2;
	err = ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR);
	report(err == EINVAL, "srq-shrink-refused",
	       "64 -> 2 with 10 posted: %s (want EINVAL)", strerror(err));
	for (n = 50; n < 60; n++)
		if (srq_send(&p, n) || srq_done(&p, "srq-shrink-refused", n))
			goto out;

	/* Shrink with 2 posted, then wrap the small ring. */
	for (n = 60; n < 62; n++)
		if (srq_post(b, srq, n))
			goto post_failed;
	attr.max_wr = 4;
	err = ibv_modify_srq(srq, &attr, IBV_SRQ_MAX_WR);
	memset(&attr, 0, sizeof(attr));
	if (!err)
		err = ibv_query_srq(srq, &attr);
	report(!err && attr.max_wr >= 4, "srq-shrink",
	       "64 -> 4 with 2 posted: %s, max_wr %u", strerror(err),
	       attr.max_wr);
	if (err)
		goto out;
	for (n = 60; n < 80; n++) {
		if (n + 2 < 80 && srq_post(b, srq, n + 2))
			goto post_failed;
		if (srq_send(&p, n) || srq_done(&p, "srq-shrink-traffic", n))
			goto out;
	}
	report(1, "srq-shrink-traffic",
	       "20 more receives through the shrunk SRQ, in order with data");
	goto out;

post_failed:
	report(0, "srq-post", "posting failed: %s", strerror(errno));
out:
	pair_close(&p);
	if (srq)
		ibv_destroy_srq(srq);
}

/* An RDMA WRITE of MSG bytes to @raddr/@rkey; its completion status. */
static int write_status(struct pair *p, uint64_t wr_id, uint64_t raddr,
			uint32_t rkey, uint8_t seed)
{
	struct ibv_sge sge = { .addr = (uintptr_t)p->a->buf, .length = MSG,
			       .lkey = p->a->mr->lkey };
	struct ibv_wc wc;

	fill(p->a->buf, MSG, seed);
	if (post1(p->qa, wr_id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sge, 1,
		  raddr, rkey) || !poll_one(p->ca, &wc))
		return -1;
	return wc.status;
}

/* The bystander pair still writes verified data into b's main buffer. */
static void bystander(struct pair *q, const char *name, uint8_t seed)
{
	int st = write_status(q, 7, (uintptr_t)q->b->buf, q->b->mr->rkey, seed);

	report(st == IBV_WC_SUCCESS && !memcmp(q->a->buf, q->b->buf, MSG), name,
	       "bystander QP: %s, data %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st),
	       memcmp(q->a->buf, q->b->buf, MSG) ? "differs" : "intact");
}

/* A fresh RC pair after a failed WRITE moved the QP to ERR. */
static int renew(struct pair *p)
{
	pair_close(p);
	return rc_pair(p, NULL);
}

static void mr_tests(struct side *a, struct side *b)
{
	struct pair p = { .tag = "mr", .a = a, .b = b };
	struct pair q = { .tag = "mr-by", .a = a, .b = b };
	uint8_t *r1, *r2, *snap;
	struct ibv_pd *pd2 = NULL;
	struct ibv_mr *mr = NULL;
	int st, err;

	r1 = aligned_alloc(4096, REGION);
	r2 = aligned_alloc(4096, REGION);
	snap = malloc(REGION);
	if (!r1 || !r2 || !snap || rc_pair(&p, NULL) || rc_pair(&q, NULL)) {
		report(0, "mr-setup", "buffers or RC pairs: %s",
		       strerror(errno));
		goto out;
	}
	memset(r1, 0, REGION);
	memset(r2, 0, REGION);
	mr = ibv_reg_mr(b->pd, r1, REGION,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		report(0, "mr-setup", "reg_mr: %s", strerror(errno));
		goto out;
	}
	st = write_status(&p, 1, (uintptr_t)r1 + 512, mr->rkey, 1);
	report(st == IBV_WC_SUCCESS && !memcmp(a->buf, r1 + 512, MSG),
	       "mr-write", "WRITE into the MR: %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st));

	/* Access: remote write taken away. */
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	if (err && errno == EOPNOTSUPP) {
		report_skip("mr", "ibv_rereg_mr not supported by this device");
		goto out;
	}
	if (err) {
		report(0, "mr-access-revoked", "rereg: %d errno %s", err,
		       strerror(errno));
		goto out;
	}
	memcpy(snap, r1, REGION);
	st = write_status(&p, 2, (uintptr_t)r1 + 512, mr->rkey, 2);
	report(st == IBV_WC_REM_ACCESS_ERR && !memcmp(snap, r1, REGION),
	       "mr-access-revoked",
	       "WRITE after rereg to local-only: %s (want remote access error), memory %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st),
	       memcmp(snap, r1, REGION) ? "CHANGED" : "untouched");
	bystander(&q, "mr-access-bystander", 3);

	/* Access given back: the same (returned) keys work again. */
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (err || renew(&p)) {
		report(0, "mr-access-restored", "rereg: %d errno %s", err,
		       strerror(errno));
		goto out;
	}
	st = write_status(&p, 3, (uintptr_t)r1 + 1024, mr->rkey, 4);
	report(st == IBV_WC_SUCCESS && !memcmp(a->buf, r1 + 1024, MSG),
	       "mr-access-restored", "WRITE after remote write given back: %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st));

	/* Translation: the MR moves to r2; r1 is no longer reachable. */
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, r2,
			   REGION, 0);
	if (err) {
		report(0, "mr-translation", "rereg: %d errno %s", err,
		       strerror(errno));
		goto out;
	}
	memcpy(snap, r1, REGION);
	st = write_status(&p, 4, (uintptr_t)r2 + 2048, mr->rkey, 5);
	report(st == IBV_WC_SUCCESS && !memcmp(a->buf, r2 + 2048, MSG) &&
	       !memcmp(snap, r1, REGION), "mr-translation",
	       "WRITE to the new range: %s, data %s, old pages %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st),
	       memcmp(a->buf, r2 + 2048, MSG) ? "differs" : "intact",
	       memcmp(snap, r1, REGION) ? "CHANGED" : "untouched");
	st = write_status(&p, 5, (uintptr_t)r1 + 512, mr->rkey, 6);
	report(st == IBV_WC_REM_ACCESS_ERR && !memcmp(snap, r1, REGION),
	       "mr-old-address",
	       "WRITE to the old range: %s (want remote access error), old pages %s",
	       st < 0 ? "no completion" : ibv_wc_status_str(st),
	       memcmp(snap, r1, REGION) ? "CHANGED" : "untouched");
	bystander(&q, "mr-translation-bystander", 7);

	/* PD: the MR leaves the QP's PD, then comes back. */
	pd2 = ibv_alloc_pd(b->ctx);
	if (!pd2 || renew(&p)) {
		report(0, "mr-pd", "second PD or RC pair failed");
		goto out;
	}
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	memcpy(snap, r2, REGION);
	st = err ? -1 : write_status(&p, 6, (uintptr_t)r2, mr->rkey, 8);
	report(!err && st == IBV_WC_REM_ACCESS_ERR && !memcmp(snap, r2, REGION),
	       "mr-pd", "WRITE after rereg to another PD: %s (want remote access error)",
	       err ? strerror(errno) : st < 0 ? "no completion" :
	       ibv_wc_status_str(st));
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, b->pd, NULL, 0, 0);
	st = err || renew(&p) ? -1 :
	     write_status(&p, 7, (uintptr_t)r2, mr->rkey, 9);
	report(st == IBV_WC_SUCCESS && !memcmp(a->buf, r2, MSG),
	       "mr-pd-back", "WRITE after rereg back to the QP's PD: %s",
	       st < 0 ? "failed" : ibv_wc_status_str(st));

	/* Bad rights are refused and the MR keeps working. */
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_REMOTE_WRITE);
	st = write_status(&p, 8, (uintptr_t)r2 + 4096, mr->rkey, 10);
	report(err && st == IBV_WC_SUCCESS && !memcmp(a->buf, r2 + 4096, MSG),
	       "mr-bad-access",
	       "remote write without local write: %s; the MR then: %s",
	       err ? "refused" : "ACCEPTED",
	       st < 0 ? "no completion" : ibv_wc_status_str(st));
out:
	if (mr)
		ibv_dereg_mr(mr);
	pair_close(&p);
	pair_close(&q);
	if (pd2)
		ibv_dealloc_pd(pd2);
	free(r1);
	free(r2);
	free(snap);
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};

	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("resize/");
	if (sides_open(&a, &b, argv))
		return 2;
	cq_tests(&a, &b);
	srq_tests(&a, &b);
	mr_tests(&a, &b);
	side_close(&a);
	side_close(&b);
	return report_failures() ? 1 : 0;
}
