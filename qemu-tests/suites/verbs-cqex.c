// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-cqex DEV GID DEV2 GID2: extended CQs with completion timestamps,
 * and parent domains with the application's allocators, with data.
 *
 * - timestamps: ibv_query_device_ex reports the clock (hca_core_clock,
 *   completion_timestamp_mask); ibv_query_rt_values_ex reads it, moving
 *   forward at the rate it claims; CQs with IBV_WC_EX_WITH_COMPLETION_
 *   TIMESTAMP(_WALLCLOCK) carry, for SEND / RDMA WRITE / RDMA READ on both
 *   ends and for flushed receives, timestamps that rise in ring order and
 *   lie between the device clock read before posting and after polling; the
 *   wall-clock form lies between CLOCK_REALTIME before and after; data is
 *   checked byte for byte; wc_flags a software device cannot honour are
 *   refused with EOPNOTSUPP;
 * - parent domains: the alloc/free callbacks are called for the rings of
 *   CQs (IBV_CQ_INIT_ATTR_MASK_PD), QPs and SRQs created on the parent
 *   domain, the device really writes that memory, SEND through an SRQ,
 *   RDMA WRITE and READ move the right bytes, every buffer goes back to
 *   free exactly once; IBV_ALLOCATOR_USE_DEFAULT works, a failing allocator
 *   fails the creation and loses nothing, a domain in use cannot be
 *   deallocated.
 *
 * Checks print "PASS: cqex/<check> ..." / "FAIL: ..." / "SKIP: ..." lines;
 * the exit status is 1 when a check failed, 2 when nothing could run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "qp-pair.h"

#define MSG		1000
#define ITERS		12
/* How far a wall-clock timestamp may stray: the provider's calibration. */
#define WALL_SLACK_NS	50000000LL

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The device clock now, in its ticks; 0 when it cannot be read. */
static uint64_t dev_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	return (uint64_t)v.raw_clock.tv_sec * 1000000000ULL +
	       (uint64_t)v.raw_clock.tv_nsec;
}

/* One polled completion of an extended CQ. */
struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint64_t ts, wall;
};

/* Polls up to @max completions in one start/next/end pass (within POLL_MS). */
static int poll_ex(struct ibv_cq_ex *cq, struct cqe *out, int max,
		   uint64_t wc_flags)
{
	struct ibv_poll_cq_attr attr = {};
	long long end = now_ms() + POLL_MS;
	int n = 0, ret;

	do {
		ret = ibv_start_poll(cq, &attr);
		if (ret == ENOENT)
			usleep(100);
	} while (ret == ENOENT && now_ms() < end);
	if (ret)
		return 0;
	do {
		out[n].wr_id = cq->wr_id;
		out[n].status = cq->status;
		out[n].opcode = ibv_wc_read_opcode(cq);
		out[n].byte_len = ibv_wc_read_byte_len(cq);
		out[n].ts = wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP ?
			    ibv_wc_read_completion_ts(cq) : 0;
		out[n].wall =
			wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK ?
			ibv_wc_read_completion_wallclock_ns(cq) : 0;
		n++;
	} while (n < max && !ibv_next_poll(cq));
	ibv_end_poll(cq);
	return n;
}

/* Exactly @want completions within POLL_MS, over as many passes as needed. */
static int poll_n(struct ibv_cq_ex *cq, struct cqe *out, int want,
		  uint64_t wc_flags)
{
	int got = 0, n;

	while (got < want) {
		n = poll_ex(cq, out + got, want - got, wc_flags);
		if (!n)
			break;
		got += n;
	}
	return got;
}

/* --- completion timestamps --------------------------------------------- */

#define TS_FLAGS (IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP | \
		  IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

struct ts_end {
	struct side *s;
	struct ibv_device_attr_ex attr;
	struct ibv_cq_ex *cq;
	uint64_t last;		/* last timestamp seen on cq */
	long long wall_off;	/* largest distance of a wall stamp outside */
};

/*
 * @c must be a success of @op for @wr_id stamped within [@before, @after]
 * of the device clock (and of CLOCK_REALTIME for the wall-clock form), and
 * after the previous completion of the CQ.
 */
static int check_stamp(const char *name, struct ts_end *e, const struct cqe *c,
		       uint64_t wr_id, enum ibv_wc_opcode op, uint64_t before,
		       uint64_t after, long long wall_before,
		       long long wall_after)
{
	char n[64];

	snprintf(n, sizeof(n), "ts-%s", name);
	if (c->status != IBV_WC_SUCCESS || c->wr_id != wr_id ||
	    c->opcode != op) {
		report(0, n, "status %s wr_id %llu opcode %d, want wr_id %llu opcode %d",
		       ibv_wc_status_str(c->status),
		       (unsigned long long)c->wr_id, c->opcode,
		       (unsigned long long)wr_id, op);
		return -1;
	}
	if (c->ts < before || c->ts > after || c->ts < e->last ||
	    (c->ts & ~e->attr.completion_timestamp_mask)) {
		report(0, n, "timestamp %llu not in [%llu, %llu] after %llu (mask %#llx)",
		       (unsigned long long)c->ts, (unsigned long long)before,
		       (unsigned long long)after, (unsigned long long)e->last,
		       (unsigned long long)e->attr.completion_timestamp_mask);
		return -1;
	}
	if ((long long)c->wall < wall_before &&
	    wall_before - (long long)c->wall > e->wall_off)
		e->wall_off = wall_before - (long long)c->wall;
	if ((long long)c->wall > wall_after &&
	    (long long)c->wall - wall_after > e->wall_off)
		e->wall_off = (long long)c->wall - wall_after;
	if ((long long)c->wall < wall_before - WALL_SLACK_NS ||
	    (long long)c->wall > wall_after + WALL_SLACK_NS) {
		report(0, n, "wall clock %llu not within %lld ns of [%lld, %lld]",
		       (unsigned long long)c->wall, WALL_SLACK_NS, wall_before,
		       wall_after);
		return -1;
	}
	e->last = c->ts;
	return 0;
}

/* The clock: reported, readable, moving forward at the rate it claims. */
static int ts_clock(struct ts_end *e)
{
	long long m0, m1, elapsed, ticks_ns;
	uint64_t d0, d1;

	d0 = dev_clock(e->s->ctx);
	m0 = monotonic_ns();
	usleep(200000);
	d1 = dev_clock(e->s->ctx);
	m1 = monotonic_ns();
	if (!d0 || !d1) {
		report(0, "ts-clock", "%s: ibv_query_rt_values_ex failed: %s",
		       e->s->name, strerror(errno));
		return -1;
	}
	/*
	 * In ns by hca_core_clock (kHz).  The two device reads lie inside
	 * [m0 - read, m1]: the device's interval is at most the host's plus
	 * one read, and at least most of it.
	 */
	ticks_ns = (long long)((d1 - d0) * 1000000ULL /
			       e->attr.hca_core_clock);
	elapsed = m1 - m0;
	report(d1 > d0 && ticks_ns <= elapsed + 20000000 &&
	       ticks_ns >= elapsed / 2, "ts-clock",
	       "%s: %llu kHz, mask %#llx; %lld ns of device clock in %lld ns",
	       e->s->name, (unsigned long long)e->attr.hca_core_clock,
	       (unsigned long long)e->attr.completion_timestamp_mask,
	       ticks_ns, elapsed);
	return 0;
}

/* What no software device can honour is refused, not faked. */
static void ts_refused_flags(struct side *s)
{
	static const struct {
		uint64_t flag;
		const char *name;
	} bad[] = {
		{ IBV_WC_EX_WITH_CVLAN, "cvlan" },
		{ IBV_WC_EX_WITH_FLOW_TAG, "flow-tag" },
		{ IBV_WC_EX_WITH_TM_INFO, "tm-info" },
	};
	char n[64];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = 16,
			.wc_flags = IBV_WC_STANDARD_FLAGS | bad[i].flag,
		};
		struct ibv_cq_ex *cq = ibv_create_cq_ex(s->ctx, &a);

		snprintf(n, sizeof(n), "ts-refuse-%s", bad[i].name);
		expect_errno(n, !cq, errno, EOPNOTSUPP, "wc_flags");
		if (cq)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	}
}

/* SEND a -> b, RDMA WRITE and READ a <-> b, stamps checked every time. */
static void ts_traffic(struct ts_end *ea, struct ts_end *eb)
{
	struct pair p = { .tag = "ts", .a = ea->s, .b = eb->s };
	struct side *a = ea->s, *b = eb->s;
	long long wall0, wall1;
	uint64_t a0, a1, b0, b1;
	struct cqe ca[8], cb[8];
	int i, ok = 1, batch;

	p.ca = ibv_cq_ex_to_cq(ea->cq);
	p.cb = ibv_cq_ex_to_cq(eb->cq);
	if (rc_pair(&p, NULL)) {
		report(0, "ts-qps", "RC QPs on timestamped CQs: %s",
		       strerror(errno));
		p.ca = p.cb = NULL;
		pair_close(&p);
		return;
	}
	for (i = 0; i < ITERS && ok; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)a->buf,
				       .length = MSG, .lkey = a->mr->lkey };
		uint8_t *dst = b->buf + 8192;
		enum ibv_wr_opcode op = i % 3 == 0 ? IBV_WR_SEND :
					i % 3 == 1 ? IBV_WR_RDMA_WRITE :
						     IBV_WR_RDMA_READ;
		enum ibv_wc_opcode wop = op == IBV_WR_SEND ? IBV_WC_SEND :
					 op == IBV_WR_RDMA_WRITE ?
					 IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ;

		fill(a->buf, MSG, (uint8_t)(i * 3 + 1));
		memset(dst, 0, MSG);
		if (op == IBV_WR_RDMA_READ) {
			/* READ pulls b's bytes into a's buffer. */
			fill(dst, MSG, (uint8_t)(i * 5 + 2));
			memset(a->buf, 0, MSG);
		}
		wall0 = realtime_ns();
		a0 = dev_clock(a->ctx);
		b0 = dev_clock(b->ctx);
		if (op == IBV_WR_SEND &&
		    postr(p.qb, 100 + i, dst, MSG, b->mr->lkey)) {
			ok = 0;
			break;
		}
		if (post1(p.qa, i, op, IBV_SEND_SIGNALED, &sge, 1,
			  (uintptr_t)dst, b->mr->rkey)) {
			report(0, "ts-post", "post %d: %s", i,
			       strerror(errno));
			ok = 0;
			break;
		}
		if (poll_n(ea->cq, ca, 1, TS_FLAGS) != 1 ||
		    (op == IBV_WR_SEND && poll_n(eb->cq, cb, 1, TS_FLAGS) != 1)) {
			report(0, "ts-traffic", "iteration %d: no completion within %d ms",
			       i, POLL_MS);
			ok = 0;
			break;
		}
		a1 = dev_clock(a->ctx);
		b1 = dev_clock(b->ctx);
		wall1 = realtime_ns();
		if (check_stamp("sender", ea, &ca[0], i, wop, a0, a1, wall0,
				wall1))
			ok = 0;
		if (op == IBV_WR_SEND &&
		    (check_stamp("receiver", eb, &cb[0], 100 + i, IBV_WC_RECV,
				 b0, b1, wall0, wall1) ||
		     cb[0].byte_len != MSG))
			ok = 0;
		if (memcmp(a->buf, dst, MSG)) {
			report(0, "ts-data", "iteration %d (%s): bytes differ",
			       i, op == IBV_WR_RDMA_READ ? "READ" : "SEND/WRITE");
			ok = 0;
		}
	}
	if (ok)
		report(1, "ts-traffic",
		       "%d SEND/WRITE/READ: data ok, sender and receiver stamps rising within the device clock reads, wall clock stamps at most %lld/%lld us outside CLOCK_REALTIME before/after (limit %lld ms)",
		       ITERS, ea->wall_off / 1000, eb->wall_off / 1000,
		       WALL_SLACK_NS / 1000000);

	/* A batch of WRITEs polled in one pass: stamps in ring order. */
	a0 = dev_clock(a->ctx);
	wall0 = realtime_ns();
	for (batch = 0; batch < 8; batch++) {
		struct ibv_sge sge = { .addr = (uintptr_t)a->buf + batch * 64,
				       .length = 64, .lkey = a->mr->lkey };

		if (post1(p.qa, 1000 + batch, IBV_WR_RDMA_WRITE,
			  IBV_SEND_SIGNALED, &sge, 1,
			  (uintptr_t)(b->buf + 16384 + batch * 64),
			  b->mr->rkey))
			break;
	}
	ok = batch == 8 && poll_n(ea->cq, ca, 8, TS_FLAGS) == 8;
	a1 = dev_clock(a->ctx);
	wall1 = realtime_ns();
	for (i = 0; ok && i < 8; i++)
		ok = !check_stamp("batch", ea, &ca[i], 1000 + i,
				  IBV_WC_RDMA_WRITE, a0, a1, wall0, wall1);
	if (ok)
		ok = !memcmp(a->buf, b->buf + 16384, 8 * 64);
	report(ok, "ts-batch",
	       "8 WRITEs polled in one pass: stamps %llu..%llu rising, data %s",
	       (unsigned long long)ca[0].ts, (unsigned long long)ca[7].ts,
	       ok ? "ok" : "checked");

	/* Flushed receives are stamped too, when the QP errors. */
	for (i = 0; i < 4; i++)
		postr(p.qb, 200 + i, b->buf + 32768 + i * 64, 64,
		      b->mr->lkey);
	b0 = dev_clock(b->ctx);
	wall0 = realtime_ns();
	ok = !to_err(p.qb) && poll_n(eb->cq, cb, 4, TS_FLAGS) == 4;
	b1 = dev_clock(b->ctx);
	wall1 = realtime_ns();
	for (i = 0; ok && i < 4; i++) {
		ok = cb[i].status == IBV_WC_WR_FLUSH_ERR &&
		     cb[i].wr_id == 200u + i && cb[i].ts >= b0 &&
		     cb[i].ts <= b1 && cb[i].ts >= eb->last;
		eb->last = cb[i].ts;
	}
	report(ok, "ts-flush",
	       "4 receives flushed by ERR: WR_FLUSH_ERR in order, stamps within [%llu, %llu]",
	       (unsigned long long)b0, (unsigned long long)b1);
	p.ca = p.cb = NULL;	/* the caller's */
	pair_close(&p);
}

static void ts_tests(struct side *a, struct side *b)
{
	struct ts_end ea = { .s = a }, eb = { .s = b };
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = TS_FLAGS };

	if (ibv_query_device_ex(a->ctx, NULL, &ea.attr) ||
	    ibv_query_device_ex(b->ctx, NULL, &eb.attr)) {
		report(0, "ts-query", "ibv_query_device_ex: %s",
		       strerror(errno));
		return;
	}
	ts_refused_flags(a);
	if (!ea.attr.completion_timestamp_mask || !ea.attr.hca_core_clock ||
	    !eb.attr.completion_timestamp_mask || !eb.attr.hca_core_clock) {
		report_skip("ts", "the device reports no completion timestamp clock");
		return;
	}
	if (ts_clock(&ea) || ts_clock(&eb))
		return;
	ea.cq = ibv_create_cq_ex(a->ctx, &ca);
	eb.cq = ibv_create_cq_ex(b->ctx, &ca);
	report(ea.cq && eb.cq, "ts-create",
	       "CQs with COMPLETION_TIMESTAMP and _WALLCLOCK: %s",
	       ea.cq && eb.cq ? "created" : strerror(errno));
	if (ea.cq && eb.cq)
		ts_traffic(&ea, &eb);
	if (ea.cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(ea.cq));
	if (eb.cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(eb.cq));
}

/* --- parent domains ------------------------------------------------------ */

#define MAX_BUFS	32

/* The application's allocator: every buffer it handed out, and its fate. */
struct allocator {
	int allocs, frees, bad_frees;
	int fail_after;		/* >= 0: that many allocations succeed */
	int misalign;		/* hand out memory 64 bytes off alignment */
	int use_default;	/* answer IBV_ALLOCATOR_USE_DEFAULT */
	size_t min_alignment;
	struct {
		void *base, *ptr;
		size_t size;
		uint64_t type;
		int freed;
	} buf[MAX_BUFS];
	int nbuf;
};

static void *app_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type)
{
	struct allocator *al = pd_context;
	void *base;

	(void)pd;
	al->allocs++;
	if (al->use_default)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (al->fail_after == 0 || al->nbuf == MAX_BUFS)
		return NULL;
	if (al->fail_after > 0)
		al->fail_after--;
	if (!al->min_alignment || alignment < al->min_alignment)
		al->min_alignment = alignment;
	if (posix_memalign(&base, alignment ? alignment : 64,
			   size + (al->misalign ? 64 : 0)))
		return NULL;
	memset(base, 0xa5, size); /* the provider must not assume zeroes */
	al->buf[al->nbuf].base = base;
	al->buf[al->nbuf].ptr = (uint8_t *)base + (al->misalign ? 64 : 0);
	al->buf[al->nbuf].size = size;
	al->buf[al->nbuf].type = resource_type;
	al->buf[al->nbuf].freed = 0;
	return al->buf[al->nbuf++].ptr;
}

static void app_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type)
{
	struct allocator *al = pd_context;
	int i;

	(void)pd;
	al->frees++;
	for (i = 0; i < al->nbuf; i++) {
		if (al->buf[i].ptr != ptr || al->buf[i].freed)
			continue;
		if (al->buf[i].type != resource_type)
			break;
		al->buf[i].freed = 1;
		free(al->buf[i].base);
		return;
	}
	al->bad_frees++;
}

/* Buffers handed out since @first that are still held. */
static int live_bufs(const struct allocator *al, int first)
{
	int i, n = 0;

	for (i = first; i < al->nbuf; i++)
		n += !al->buf[i].freed;
	return n;
}

/* Some byte of buffers first..first+count-1 is neither 0xa5 (our fill) nor 0. */
static int written(const struct allocator *al, int first, int count)
{
	int i;
	size_t j;

	for (i = first; i < first + count && i < al->nbuf; i++)
		for (j = 0; j < al->buf[i].size; j++)
			if (((uint8_t *)al->buf[i].ptr)[j] != 0 &&
			    ((uint8_t *)al->buf[i].ptr)[j] != 0xa5)
				return 1;
	return 0;
}

static struct ibv_pd *parent_domain(struct side *s, struct allocator *al)
{
	struct ibv_parent_domain_init_attr attr = {
		.pd = s->pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = app_alloc,
		.free = app_free,
		.pd_context = al,
	};

	return ibv_alloc_parent_domain(s->ctx, &attr);
}

static struct ibv_cq_ex *pd_cq(struct side *s, struct ibv_pd *pdom)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
		.parent_domain = pdom,
	};

	return ibv_create_cq_ex(s->ctx, &a);
}

static struct ibv_qp *pd_qp(struct ibv_pd *pdom, struct ibv_cq_ex *cq,
			    struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pdom, &a);
}

/* One step of an object's creation: the allocator calls it made. */
static void count_step(const char *name, const struct allocator *al,
		       int before, int want, int ok)
{
	char n[64];

	snprintf(n, sizeof(n), "pd-%s", name);
	report(ok && al->nbuf - before == want, n,
	       "%s; allocator called for %d ring(s) (want %d), alignment %zu",
	       ok ? "created" : strerror(errno), al->nbuf - before, want,
	       al->min_alignment);
}

/*
 * a: CQ and RC QP on a's parent domain; b: CQ, SRQ and RC QP (on the SRQ)
 * on b's.  Rings come from the allocators; SEND, WRITE and READ checked.
 */
static void pd_traffic(struct side *a, struct side *b)
{
	struct allocator al_a = { .fail_after = -1 }, al_b = { .fail_after = -1 };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 32, .max_sge = 1 } };
	struct ibv_pd *pa, *pb;
	struct ibv_cq_ex *cqa = NULL, *cqb = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_mr *mra = NULL;
	struct cqe c[2];
	int i, ok, mark;

	pa = parent_domain(a, &al_a);
	if (!pa) {
		if (errno == EOPNOTSUPP)
			report_skip("pd", "ibv_alloc_parent_domain: not supported");
		else
			report(0, "pd-alloc", "ibv_alloc_parent_domain: %s",
			       strerror(errno));
		return;
	}
	pb = parent_domain(b, &al_b);
	if (!pb) {
		report(0, "pd-alloc", "second parent domain: %s",
		       strerror(errno));
		ibv_dealloc_pd(pa);
		return;
	}
	report(al_a.allocs == 0, "pd-alloc",
	       "parent domains over both PDs, no allocation yet");

	mark = al_a.nbuf;
	cqa = pd_cq(a, pa);
	count_step("cq", &al_a, mark, 1, !!cqa);
	mark = al_b.nbuf;
	cqb = pd_cq(b, pb);
	count_step("cq2", &al_b, mark, 1, !!cqb);
	mark = al_b.nbuf;
	srq = cqb ? ibv_create_srq(pb, &sa) : NULL;
	count_step("srq", &al_b, mark, 1, !!srq);
	mark = al_a.nbuf;
	qa = cqa ? pd_qp(pa, cqa, NULL) : NULL;
	count_step("qp", &al_a, mark, 2, !!qa);
	mark = al_b.nbuf;
	qb = cqb && srq ? pd_qp(pb, cqb, srq) : NULL;
	count_step("qp-srq", &al_b, mark, 1, !!qb);
	/* An MR on the parent domain is an MR of its PD. */
	mra = ibv_reg_mr(pa, a->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (!qa || !qb || !mra ||
	    connect_qp(qa, a, &b->gid, qb->qp_num) ||
	    connect_qp(qb, b, &a->gid, qa->qp_num)) {
		report(0, "pd-connect", "objects on parent domains: %s",
		       strerror(errno));
		goto out;
	}

	ok = 1;
	for (i = 0; i < ITERS && ok; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)a->buf,
				       .length = MSG, .lkey = mra->lkey };
		uint8_t *dst = b->buf + 4096 + (i % 4) * 2048;
		enum ibv_wr_opcode op = i % 3 == 0 ? IBV_WR_SEND :
					i % 3 == 1 ? IBV_WR_RDMA_WRITE :
						     IBV_WR_RDMA_READ;

		fill(a->buf, MSG, (uint8_t)(i * 7 + 3));
		memset(dst, 0, MSG);
		if (op == IBV_WR_RDMA_READ) {
			fill(dst, MSG, (uint8_t)(i * 11 + 4));
			memset(a->buf, 0, MSG);
		}
		if (op == IBV_WR_SEND) {
			struct ibv_sge rs = { .addr = (uintptr_t)dst,
					      .length = MSG,
					      .lkey = b->mr->lkey };
			struct ibv_recv_wr rw = { .wr_id = 500 + i,
						  .sg_list = &rs,
						  .num_sge = 1 }, *bad;

			if (ibv_post_srq_recv(srq, &rw, &bad))
				ok = 0;
		}
		if (!ok || post1(qa, i, op, IBV_SEND_SIGNALED, &sge, 1,
				 (uintptr_t)dst, b->mr->rkey) ||
		    poll_n(cqa, c, 1, IBV_WC_STANDARD_FLAGS) != 1 ||
		    c[0].status != IBV_WC_SUCCESS || c[0].wr_id != (uint64_t)i ||
		    (op == IBV_WR_SEND &&
		     (poll_n(cqb, c + 1, 1, IBV_WC_STANDARD_FLAGS) != 1 ||
		      c[1].status != IBV_WC_SUCCESS ||
		      c[1].wr_id != 500u + i || c[1].byte_len != MSG))) {
			report(0, "pd-traffic", "iteration %d (op %d) failed: %s",
			       i, op, ibv_wc_status_str(c[0].status));
			ok = 0;
		} else if (memcmp(a->buf, dst, MSG)) {
			report(0, "pd-traffic", "iteration %d (op %d): bytes differ",
			       i, op);
			ok = 0;
		}
	}
	if (ok)
		report(1, "pd-traffic",
		       "%d SEND (via SRQ) / WRITE / READ on parent-domain queues: data ok",
		       ITERS);
	/*
	 * The device wrote CQEs into our CQ rings, the provider WQEs into the
	 * SRQ ring and one of the QP's two rings (its SQ), in the order the
	 * allocators were called: a: CQ, QP; b: CQ, SRQ, QP.
	 */
	report(written(&al_a, 0, 1) && written(&al_b, 0, 1) &&
	       written(&al_b, 1, 1) && written(&al_a, 1, 2), "pd-memory",
	       "CQ, SRQ and QP rings in the allocators' buffers hold the queues' entries");
	report(ibv_dealloc_pd(pa) == EBUSY && ibv_dealloc_pd(a->pd) == EBUSY,
	       "pd-busy",
	       "parent domain with queues and its PD both refuse deallocation");

out:
	if (mra)
		ibv_dereg_mr(mra);
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (srq)
		ibv_destroy_srq(srq);
	if (cqa)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqa));
	if (cqb)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqb));
	report(!live_bufs(&al_a, 0) && !live_bufs(&al_b, 0) &&
	       al_a.frees == al_a.nbuf && al_b.frees == al_b.nbuf &&
	       !al_a.bad_frees && !al_b.bad_frees, "pd-free",
	       "a: %d allocated, %d freed; b: %d allocated, %d freed; %d unknown or mistyped frees",
	       al_a.nbuf, al_a.frees, al_b.nbuf, al_b.frees,
	       al_a.bad_frees + al_b.bad_frees);
	report(!ibv_dealloc_pd(pa) && !ibv_dealloc_pd(pb), "pd-dealloc",
	       "both parent domains deallocated once their queues are gone");
}

/* IBV_ALLOCATOR_USE_DEFAULT, failing and misaligned allocators. */
static void pd_allocator_cases(struct side *s)
{
	struct allocator al = { .fail_after = -1 };
	struct ibv_pd *pdom = parent_domain(s, &al);
	struct ibv_cq_ex *cq = NULL;
	struct ibv_qp *qp;
	int frees;

	if (!pdom)
		return;	/* pd_traffic reported why */

	al.use_default = 1;
	cq = pd_cq(s, pdom);
	qp = cq ? pd_qp(pdom, cq, NULL) : NULL;
	report(cq && qp && al.allocs == 3 && al.nbuf == 0, "pd-default",
	       "IBV_ALLOCATOR_USE_DEFAULT: CQ and QP created on the provider's memory after %d calls",
	       al.allocs);
	if (qp)
		ibv_destroy_qp(qp);
	report(al.frees == 0, "pd-default-free",
	       "the provider's own rings are not handed to free (%d calls)",
	       al.frees);
	al.use_default = 0;

	/* The SQ ring comes, the RQ ring does not: the SQ goes back. */
	al.fail_after = 1;
	al.allocs = 0;
	errno = 0;
	qp = cq ? pd_qp(pdom, cq, NULL) : NULL;
	report(!qp && errno == ENOMEM && al.allocs == 2 && al.nbuf == 1 &&
	       al.frees == 1 && !live_bufs(&al, 0), "pd-alloc-fails",
	       "allocator failing on the 2nd ring: QP refused (%s), the 1st ring freed (%d frees)",
	       qp ? "created" : strerror(errno), al.frees);
	if (qp)
		ibv_destroy_qp(qp);

	/* Memory not aligned as asked: refused, and returned. */
	al.fail_after = -1;
	al.misalign = 1;
	frees = al.frees;
	errno = 0;
	qp = cq ? pd_qp(pdom, cq, NULL) : NULL;
	report(!qp && errno == EINVAL && al.frees == frees + 1 &&
	       !live_bufs(&al, 0), "pd-misaligned",
	       "allocator returning misaligned memory: QP refused (%s), memory returned",
	       qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	report(!ibv_dealloc_pd(pdom) && !al.bad_frees, "pd-cases-dealloc",
	       "parent domain deallocated, no unknown frees");
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};

	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("cqex/");
	if (sides_open(&a, &b, argv))
		return 2;
	ts_tests(&a, &b);
	pd_traffic(&a, &b);
	pd_allocator_cases(&a);
	side_close(&a);
	side_close(&b);
	return report_failures() ? 1 : 0;
}
