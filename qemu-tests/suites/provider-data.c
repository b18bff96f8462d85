// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider-data: data moving through the ornic provider (needs the model's
 * packet engine), between two QPs on one device ("loop") or on two devices
 * ("cross"); linked into provider-verbs.
 *
 * RC: SEND (two SGEs), SEND_WITH_IMM inline, RDMA_WRITE (unsignaled ones
 * retired by a signaled one), RDMA_WRITE_WITH_IMM, RDMA_READ,
 * ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP; SRQ receive; UD SEND with an AH
 * (GRH, byte_len + 40, src_qp); many WQEs through a small SQ (ring wrap,
 * retirement), sq_sig_all; four posting threads on one QP; round-trip time;
 * ARM_SOLICITED.  Data and every wc field checked.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "provider-data.h"
#include "qp-pair.h"

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
	pair_close(&p);
	if (srq)
		ibv_destroy_srq(srq);
}

static void test_data_ud(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	struct pair_spec spec = pair_spec(IBV_QPT_UD);
	struct ibv_qp *qa, *qb;
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
	spec.cap = (struct ibv_qp_cap){ 8, 8, 1, 1, 0 };
	if (a->gid_index < 0 || b->gid_index < 0 || pair_open(&p, &spec) ||
	    !(ah = ibv_create_ah(a->pd, &aa))) {
		report(0, n, "UD setup: %s", strerror(errno));
		goto out;
	}
	qa = p.qa;
	qb = p.qb;
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
	pair_close(&p);
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
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
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
	spec.cap = ia.cap;
	spec.cap_b = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	if (pair_open(&p, &spec))
		goto setup;
	ia.cap = p.cap_a;
	ia.send_cq = ia.recv_cq = p.ca;
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
	pair_close(&p);
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
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct poster t[THREADS];
	pthread_t th[THREADS];
	int next[THREADS] = {}, i, got = 0, order = 1, started = 0, perr = 0;
	long long end;
	struct ibv_wc wc[16];
	char n[64];

	snprintf(n, sizeof(n), "%s-threads", tag);
	spec.cap = (struct ibv_qp_cap){ 32, 32, 1, 1, 0 };
	spec.cap_b = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	if (pair_open(&p, &spec))
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
	pair_close(&p);
	return;
fail:
	report(0, n, "setup: %s", strerror(errno));
	pair_close(&p);
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
	pair_close(&p);
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
	pair_close(&p);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

void data_tests(struct side *a, struct side *b, const char *tag)
{
	struct pair p = { .tag = tag, .a = a, .b = b };
	char n[64];

	snprintf(n, sizeof(n), "%s-connect", tag);
	if (rc_pair(&p, NULL)) {
		report(0, n, "RC pair %s -> %s: %s", a->name, b->name,
		       strerror(errno));
		pair_close(&p);
		return;
	}
	report(1, n, "RC QP %u on %s <-> QP %u on %s in RTS", p.qa->qp_num,
	       a->name, p.qb->qp_num, b->name);
	test_data_rc(&p);
	pair_close(&p);
	test_data_srq(a, b, tag);
	test_data_ud(a, b, tag);
	test_data_wrap(a, b, tag);
	test_data_threads(a, b, tag);
	test_data_rtt(a, b, tag);
	test_data_solicited(a, b, tag);
}

