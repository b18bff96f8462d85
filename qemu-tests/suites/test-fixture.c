// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The devices and helpers of the libibverbs test tools; see test-fixture.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "test-fixture.h"

struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

int side_open(struct side *s, struct ibv_device *dev)
{
	int i;

	s->name = ibv_get_device_name(dev);
	s->ctx = ibv_open_device(dev);
	if (!s->ctx)
		return -1;
	if (ibv_query_device(s->ctx, &s->attr))
		return -1;
	s->pd = ibv_alloc_pd(s->ctx);
	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (!s->pd || !s->buf)
		return -1;
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	s->ch = ibv_create_comp_channel(s->ctx);
	if (!s->mr || !s->ch)
		return -1;
	s->cq = ibv_create_cq(s->ctx, 256, NULL, s->ch, 0);
	if (!s->cq)
		return -1;
	/* The first non-zero GID: the default link-local one. */
	s->gid_index = -1;
	for (i = 0; i < 16; i++) {
		union ibv_gid g;

		if (ibv_query_gid(s->ctx, 1, i, &g))
			break;
		if (g.global.subnet_prefix || g.global.interface_id) {
			s->gid = g;
			s->gid_index = i;
			break;
		}
	}
	return 0;
}

void side_close(struct side *s)
{
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->ch)
		ibv_destroy_comp_channel(s->ch);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	free(s->buf);
	if (s->ctx)
		ibv_close_device(s->ctx);
	memset(s, 0, sizeof(*s));
}

int side_open_gid(struct side *s, const char *name, int gid_index)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = list ? find_dev(list, name) : NULL;
	int err = 0;

	if (!dev) {
		err = list ? ENODEV : errno;
	} else if (side_open(s, dev)) {
		err = errno;
	} else if (errno = 0, ibv_query_gid(s->ctx, 1, gid_index, &s->gid)) {
		err = errno ? errno : EINVAL;
	} else {
		s->gid_index = gid_index;
	}
	/* The name outlives the list: the caller's string, not the device's. */
	s->name = name;
	if (list)
		ibv_free_device_list(list);
	errno = err;
	return err ? -1 : 0;
}

int sides_open(struct side *a, struct side *b, char **argv)
{
	struct side *s[2] = { a, b };
	int i;

	for (i = 0; i < 2; i++) {
		if (!side_open_gid(s[i], argv[1 + 2 * i], atoi(argv[2 + 2 * i])))
			continue;
		report(0, "open", "%s GID %s: %s", argv[1 + 2 * i],
		       argv[2 + 2 * i], strerror(errno));
		side_close(a);
		side_close(b);
		return -1;
	}
	return 0;
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return poll_within(cq, wc, POLL_MS);
}

int poll_within(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	long long end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n > 0;
		usleep(100);
	} while (now_ms() < end);
	return 0;
}

void expect_errno(const char *name, int got_null, int err, int want,
		  const char *what)
{
	report(got_null && err == want, name, "%s: %s (errno %d %s, want %s)",
	       what, got_null ? "refused" : "ACCEPTED", err, strerror(err),
	       strerror(want));
}

int check_wc(const char *tag, const char *name, struct ibv_cq *cq,
	     uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
	     unsigned int flags, uint32_t qpn, struct ibv_wc *out)
{
	char n[64];
	struct ibv_wc wc;

	snprintf(n, sizeof(n), "%s-%s", tag, name);
	if (!poll_one(cq, &wc)) {
		report(0, n, "no completion for wr_id %#llx within %d ms",
		       (unsigned long long)wr_id, POLL_MS);
		return -1;
	}
	if (out)
		*out = wc;
	/* byte_len is defined for receives, READs and atomics (cqe.rst). */
	if (op == IBV_WC_SEND || op == IBV_WC_RDMA_WRITE)
		len = wc.byte_len;
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != wr_id ||
	    wc.opcode != op || wc.byte_len != len ||
	    (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_GRH)) != flags ||
	    wc.qp_num != qpn) {
		report(0, n, "wc: status %s wr_id %#llx opcode %d byte_len %u flags %#x qp %u; want wr_id %#llx opcode %d byte_len %u flags %#x qp %u",
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id, wc.opcode, wc.byte_len,
		       wc.wc_flags, wc.qp_num, (unsigned long long)wr_id, op,
		       len, flags, qpn);
		return -1;
	}
	return 0;
}

int post1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	  unsigned int flags, struct ibv_sge *sge, int nsge,
	  uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = op, .send_flags = flags,
		.sg_list = sge, .num_sge = nsge,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0xa5a5a5a5);
	return ibv_post_send(qp, &wr, &bad);
}

int postr(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

long long hw_counter(const char *dev, const char *name)
{
	char path[256];

	/*
	 * The RDMA core serves hw_counters from a snapshot up to 10 ms old
	 * (rdma_hw_stats.lifespan): wait that out so the value is read after
	 * what came before.
	 */
	usleep(30 * 1000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	return read_number(path);
}

long long read_number(const char *path)
{
	long long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
