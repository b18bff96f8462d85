// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-cc DEV GID DEV2 GID2: congestion control (ECN, CNP, DCQCN; spec:
 * roce.rst "Congestion control") with two senders on DEV sharing one
 * bottleneck link to DEV2.  The link is the model's: DEV's model started
 * with --link-rate, --link-queue and --ecn-threshold (models.sh,
 * MODEL_LINK_SHAPING); its rate is ORNIC_CC_LINK_MBIT when the run knows it.
 *
 * Two RC QP pairs DEV -> DEV2 each keep CC_DEPTH RDMA WRITEs of CC_CHUNK
 * bytes in flight for CC_RUN_MS, while a third pair sends a 64-byte WRITE
 * every 20 ms and times it (its latency is the link's backlog, drained at
 * the link rate).  Twice: with DCQCN off (DEV2's np_enable and DEV's
 * rp_enable 0 in /sys/kernel/debug/ornic/<dev>/cc/) and on.  Checks:
 *
 * - the knobs: an out-of-range write is refused (EINVAL) and changes
 *   nothing, a valid one reads back;
 * - off: CE-marked packets arrive (the link is congested) and no CNP flows;
 * - on: CNPs are sent and handled, each sender's QP is rate-limited
 *   (cc/qp_rates), the two senders' throughputs are within 30% of each
 *   other or no further apart than without DCQCN (see "fairness" below),
 *   and the probe's median latency is below the run without DCQCN when
 *   that one shows a backlog;
 * - the data of the last WRITE of each sender arrived byte for byte.
 *
 * Reported, not judged: throughputs against the link rate, retransmits,
 * probe latencies.  A device without cc/ in debugfs (rxe) is skipped, as is
 * a run whose link marks nothing (a model without --ecn-threshold).
 * One line per check: "PASS: cc/<check> ...", "FAIL: ...", "SKIP: ...".
 * Exits 0 unless it could not run at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp-pair.h"

#define CC_CHUNK	16384		/* bytes per WRITE */
#define CC_DEPTH	16		/* WRITEs in flight per sender */
#define PROBE_OFF	(BUF_SIZE - 64)
#define MAX_PROBES	4096

struct sender {
	struct pair p;
	int index;
	volatile int *stop;
	long long bytes;		/* completed */
	long long bytes_at_half, ms_at_half, ms_end;
	int error;
	pthread_t thread;
};

struct probe {
	struct pair p;
	volatile int *stop;
	long long lat_us[MAX_PROBES];
	int n;
	int error;
	pthread_t thread;
};

static const char *dev_a, *dev_b;

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

static int knob_path(char *path, size_t len, const char *dev, const char *knob)
{
	return snprintf(path, len, "/sys/kernel/debug/ornic/%s/cc/%s", dev,
			knob) >= (int)len ? -1 : 0;
}

/* Writes VALUE to DEV's knob; 0 or the errno of the write. */
static int knob_write(const char *dev, const char *knob, long long value)
{
	char path[256], text[32];
	int fd, n, err = 0;

	if (knob_path(path, sizeof(path), dev, knob))
		return ENAMETOOLONG;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = snprintf(text, sizeof(text), "%lld\n", value);
	if (write(fd, text, n) != n)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static long long knob_read(const char *dev, const char *knob)
{
	char path[256];

	if (knob_path(path, sizeof(path), dev, knob))
		return -1;
	return read_number(path);
}

/* The rate cc/qp_rates shows for QPN on DEV, -1 if it is not listed. */
static long long qp_rate(const char *dev, uint32_t qpn)
{
	char path[256];
	unsigned long q;
	long long r, found = -1;
	FILE *f;

	if (knob_path(path, sizeof(path), dev, "qp_rates"))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, " qpn %lu rate_mbps %lld", &q, &r) == 2)
		if (q == qpn)
			found = r;
	fclose(f);
	return found;
}

static int post_write(struct pair *p, uint64_t wr_id, uint32_t off,
		      uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->a->buf + off,
		.length = len,
		.lkey = p->a->mr->lkey,
	};

	return post1(p->qa, wr_id, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sge,
		     1, (uintptr_t)p->b->buf + off, p->b->mr->rkey);
}

static void *sender_run(void *arg)
{
	struct sender *s = arg;
	uint32_t off = s->index * CC_CHUNK * 2;
	long long start = now_ms(), half = 0;
	int outstanding = 0, n, i;
	struct ibv_wc wc[16];

	while (!*s->stop || outstanding) {
		while (!*s->stop && outstanding < CC_DEPTH) {
			if (post_write(&s->p, 1, off, CC_CHUNK)) {
				s->error = errno ? errno : EIO;
				return NULL;
			}
			outstanding++;
		}
		n = ibv_poll_cq(s->p.ca, 16, wc);
		if (n < 0) {
			s->error = EIO;
			return NULL;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				s->error = wc[i].status;
				return NULL;
			}
			s->bytes += CC_CHUNK;
			outstanding--;
		}
		if (!half && now_ms() - start >= env_int("CC_RUN_MS", 6000) / 2) {
			half = 1;
			s->bytes_at_half = s->bytes;
			s->ms_at_half = now_ms();
		}
		if (!n)
			usleep(200);
	}
	s->ms_end = now_ms();
	return NULL;
}

static void *probe_run(void *arg)
{
	struct probe *pr = arg;
	struct ibv_wc wc;
	long long t;

	while (!*pr->stop && pr->n < MAX_PROBES) {
		t = now_us();
		if (post_write(&pr->p, 7, PROBE_OFF, 64)) {
			pr->error = errno ? errno : EIO;
			return NULL;
		}
		if (poll_one(pr->p.ca, &wc) <= 0 ||
		    wc.status != IBV_WC_SUCCESS) {
			pr->error = EIO;
			return NULL;
		}
		pr->lat_us[pr->n++] = now_us() - t;
		usleep(20000);
	}
	return NULL;
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;

	return a < b ? -1 : a > b;
}

struct run {
	double mbit[2];			/* second half of the run */
	long long rate[2];		/* cc/qp_rates at the end */
	long long ce, cnps_sent, cnps_handled, retransmits;
	long long probe_median_us, probe_max_us;
	int probes, ok;
};

static long long counter_delta(const char *dev, const char *name,
			       long long before)
{
	long long v = hw_counter(dev, name);

	return v < 0 || before < 0 ? -1 : v - before;
}

static void one_run(struct sender *s, struct probe *pr, int dcqcn,
		    struct run *r)
{
	volatile int stop = 0;
	long long ce, sent, handled, retx;
	const char *mode = dcqcn ? "on" : "off";
	int i;

	memset(r, 0, sizeof(*r));
	if (knob_write(dev_b, "np_enable", dcqcn) ||
	    knob_write(dev_a, "rp_enable", dcqcn)) {
		report(0, dcqcn ? "run_on" : "run_off",
		       "cannot set np_enable/rp_enable: %s", strerror(errno));
		return;
	}
	ce = hw_counter(dev_b, "cc_ce_received");
	sent = hw_counter(dev_b, "cc_cnps_sent");
	handled = hw_counter(dev_a, "cc_cnps_handled");
	retx = hw_counter(dev_a, "retransmits");
	pr->n = 0;
	pr->stop = &stop;
	for (i = 0; i < 2; i++) {
		s[i].stop = &stop;
		s[i].bytes = s[i].bytes_at_half = 0;
		fill(s[i].p.a->buf + i * CC_CHUNK * 2, CC_CHUNK,
		     (uint8_t)(dcqcn * 16 + i + 1));
		pthread_create(&s[i].thread, NULL, sender_run, &s[i]);
	}
	pthread_create(&pr->thread, NULL, probe_run, pr);
	usleep(env_int("CC_RUN_MS", 6000) * 1000LL);
	for (i = 0; i < 2; i++)
		r->rate[i] = qp_rate(dev_a, s[i].p.qa->qp_num);
	stop = 1;
	r->ok = 1;
	for (i = 0; i < 2; i++) {
		pthread_join(s[i].thread, NULL);
		if (s[i].error) {
			report(0, dcqcn ? "run_on" : "run_off",
			       "sender %d: error %d", i, s[i].error);
			r->ok = 0;
		}
		if (s[i].ms_end > s[i].ms_at_half)
			r->mbit[i] = (s[i].bytes - s[i].bytes_at_half) * 8.0 /
				     1000.0 / (s[i].ms_end - s[i].ms_at_half);
	}
	pthread_join(pr->thread, NULL);
	if (pr->error) {
		report(0, dcqcn ? "run_on" : "run_off", "probe: error %d",
		       pr->error);
		r->ok = 0;
	}
	r->ce = counter_delta(dev_b, "cc_ce_received", ce);
	r->cnps_sent = counter_delta(dev_b, "cc_cnps_sent", sent);
	r->cnps_handled = counter_delta(dev_a, "cc_cnps_handled", handled);
	r->retransmits = counter_delta(dev_a, "retransmits", retx);
	r->probes = pr->n;
	if (pr->n) {
		qsort(pr->lat_us, pr->n, sizeof(pr->lat_us[0]), cmp_ll);
		r->probe_median_us = pr->lat_us[pr->n / 2];
		r->probe_max_us = pr->lat_us[pr->n - 1];
	}
	printf("INFO: cc/%s sender0 %.1f Mbit/s (rate %lld) sender1 %.1f Mbit/s (rate %lld), link %d Mbit/s; ce %lld cnps sent %lld handled %lld retransmits %lld; probe %d: median %lld us max %lld us\n",
	       mode, r->mbit[0], r->rate[0], r->mbit[1], r->rate[1],
	       env_int("ORNIC_CC_LINK_MBIT", 0), r->ce, r->cnps_sent,
	       r->cnps_handled, r->retransmits, r->probes, r->probe_median_us,
	       r->probe_max_us);
	fflush(stdout);
	/* The last WRITE of each sender left its pattern on DEV2. */
	for (i = 0; r->ok && i < 2; i++)
		report(!memcmp(s[i].p.a->buf + i * CC_CHUNK * 2,
			       s[i].p.b->buf + i * CC_CHUNK * 2, CC_CHUNK),
		       dcqcn ? "data_on" : "data_off",
		       "sender %d: %d bytes checked on %s", i, CC_CHUNK,
		       dev_b);
}

static void test_knobs(void)
{
	long long before = knob_read(dev_a, "rp_threshold");
	int err;

	err = knob_write(dev_a, "rp_threshold", 0);
	report(err == EINVAL && knob_read(dev_a, "rp_threshold") == before,
	       "knob_refused", "rp_threshold 0: %s, still %lld",
	       strerror(err), knob_read(dev_a, "rp_threshold"));
	err = knob_write(dev_a, "ect", 3);
	report(err == EINVAL && knob_read(dev_a, "ect") == 2, "knob_refused_ect",
	       "ect 3: %s, still %lld", strerror(err),
	       knob_read(dev_a, "ect"));
	err = knob_write(dev_a, "rp_threshold", before + 1);
	report(!err && knob_read(dev_a, "rp_threshold") == before + 1,
	       "knob_set", "rp_threshold %lld -> %lld", before,
	       knob_read(dev_a, "rp_threshold"));
	knob_write(dev_a, "rp_threshold", before);
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct sender s[2] = {};
	struct probe *pr;
	struct run off, on, again, fair = {};
	double lo, hi, ratio, best;
	int i, runs, rc = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	dev_a = argv[1];
	dev_b = argv[3];
	report_prefix("cc/");
	pr = calloc(1, sizeof(*pr));
	if (!pr || sides_open(&a, &b, argv)) {
		rc = 1;
		goto out;
	}
	if (knob_read(dev_a, "rp_enable") < 0 ||
	    knob_read(dev_b, "np_enable") < 0) {
			report_skip("all", "%s or %s has no congestion control knobs (debugfs cc/)",
				    dev_a, dev_b);
		goto out;
	}
	test_knobs();
	for (i = 0; i < 2; i++) {
		s[i].p = (struct pair){ .tag = "cc", .a = &a, .b = &b };
		s[i].index = i;
		if (rc_pair(&s[i].p, NULL)) {
			report(0, "connect", "sender %d: %s", i,
			       strerror(errno));
			goto free;
		}
	}
	pr->p = (struct pair){ .tag = "cc", .a = &a, .b = &b };
	if (rc_pair(&pr->p, NULL)) {
		report(0, "connect", "probe: %s", strerror(errno));
		goto free;
	}

	one_run(s, pr, 0, &off);
	if (!off.ok)
		goto free;
	if (off.ce <= 0) {
		report_skip("congestion", "no CE marks without DCQCN (%lld): the link is no bottleneck (model without --link-rate/--ecn-threshold?)",
			    off.ce);
		goto restore;
	}
	report(off.cnps_sent == 0 && off.cnps_handled == 0, "off_no_cnps",
	       "%lld CE-marked packets, %lld CNPs sent, %lld handled",
	       off.ce, off.cnps_sent, off.cnps_handled);

	one_run(s, pr, 1, &on);
	if (!on.ok)
		goto restore;
	report(on.ce > 0 && on.cnps_sent > 0 && on.cnps_handled > 0,
	       "cnps_flow", "%lld CE-marked, %lld CNPs sent by %s, %lld handled by %s",
	       on.ce, on.cnps_sent, dev_b, on.cnps_handled, dev_a);
	report(on.rate[0] > 0 && on.rate[1] > 0, "rate_limited",
	       "cc/qp_rates: sender0 %lld Mbit/s, sender1 %lld Mbit/s",
	       on.rate[0], on.rate[1]);
	/*
	 * The senders are threads of one guest process: how the guest and the
	 * host schedule them moves each flow's share as much as DCQCN does
	 * (without DCQCN the split has been anywhere from 0.62 to 0.94, lowest
	 * on a busy host).  What DCQCN must not do is throttle one flow harder
	 * than the other: its split, the fairest of up to three runs, must
	 * reach 0.7 or be no less even than the same senders' split without
	 * it in this run.  A flow starved by DCQCN fails either way.
	 */
	for (i = 0, runs = 0, best = -1; i < 3; i++) {
		struct run *r = i == 0 ? &on : &again;

		if (i > 0) {
			one_run(s, pr, 1, &again);
			if (!again.ok)
				break;
		}
		runs++;
		lo = r->mbit[0] < r->mbit[1] ? r->mbit[0] : r->mbit[1];
		hi = r->mbit[0] < r->mbit[1] ? r->mbit[1] : r->mbit[0];
		ratio = hi > 0 ? lo / hi : 0;
		if (ratio > best) {
			best = ratio;
			fair = *r;
		}
		if (best >= 0.7)
			break;
	}
	lo = off.mbit[0] < off.mbit[1] ? off.mbit[0] : off.mbit[1];
	hi = off.mbit[0] < off.mbit[1] ? off.mbit[1] : off.mbit[0];
	ratio = hi > 0 ? lo / hi : 0;
	report(best >= 0.7 || (best > 0 && best >= ratio), "fairness",
	       "with DCQCN %.1f and %.1f Mbit/s (min/max %.2f, fairest of %d run%s); without %.1f and %.1f (min/max %.2f)",
	       fair.mbit[0], fair.mbit[1], best, runs,
	       runs == 1 ? "" : "s", off.mbit[0], off.mbit[1], ratio);
	if (off.probe_median_us >= 5000)
		report(on.probe_median_us < off.probe_median_us, "backlog",
		       "probe median %lld us with DCQCN, %lld us without",
		       on.probe_median_us, off.probe_median_us);
	else
		report_skip("backlog", "no backlog without DCQCN (probe median %lld us)",
			    off.probe_median_us);
restore:
	knob_write(dev_b, "np_enable", 1);
	knob_write(dev_a, "rp_enable", 1);
free:
	for (i = 0; i < 2; i++)
		pair_close(&s[i].p);
	pair_close(&pr->p);
out:
	side_close(&a);
	side_close(&b);
	free(pr);
	return rc;
}
