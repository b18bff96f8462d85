/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The devices the libibverbs test tools run on (provider-*.c, attrs.c,
 * verbs-*.c, datapath-neg.c): one device's objects with their teardown,
 * both devices of a "DEV GID DEV2 GID2" command line, and the posting,
 * polling and counter reading the tests share.  QPs and QP pairs:
 * qp-pair.h; result lines: test-report.h.
 */
#ifndef TEST_FIXTURE_H
#define TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "test-report.h"

#define BUF_SIZE	65536
#define POLL_MS		10000
#define QKEY		0x11111111u

/* One device: context, PD, a registered buffer, a CQ and its GID. */
struct side {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
};

struct ibv_device *find_dev(struct ibv_device **list, const char *name);
/*
 * Opens @dev's context, PD, a BUF_SIZE buffer registered for every remote
 * access, a completion channel and a 256-entry CQ on it; the GID is the
 * first non-zero one of port 1 (gid_index -1 without any).  Returns -1
 * with errno set; side_close() undoes a partial open too.
 */
int side_open(struct side *s, struct ibv_device *dev);
/* As side_open() on device @name, with its port-1 GID at @gid_index. */
int side_open_gid(struct side *s, const char *name, int gid_index);
void side_close(struct side *s);
/*
 * The two devices of a tool's "DEV GID DEV2 GID2" arguments (@argv[1..4])
 * into @a and @b.  On failure one FAIL line "open" says why, both sides
 * are closed again and -1 is returned.
 */
int sides_open(struct side *a, struct side *b, char **argv);

long long now_ms(void);
/* One completion of @cq within POLL_MS; 1 when found. */
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc);
/* One completion of @cq within @ms; 1 when found. */
int poll_within(struct ibv_cq *cq, struct ibv_wc *wc, int ms);
/* PASS when a create call was refused (@got_null) with errno @want. */
void expect_errno(const char *name, int got_null, int err, int want,
		  const char *what);
/*
 * The next completion on @cq is @wr_id with @op, SUCCESS, @qpn, on a
 * receive, READ or atomic @len bytes, and IBV_WC_WITH_IMM/GRH as in
 * @flags; otherwise one FAIL line "<tag>-<name>" and -1.
 */
int check_wc(const char *tag, const char *name, struct ibv_cq *cq,
	     uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
	     unsigned int flags, uint32_t qpn, struct ibv_wc *out);
/* One send WR (its immediate 0xa5a5a5a5 where the opcode has one). */
int post1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	  unsigned int flags, struct ibv_sge *sge, int nsge,
	  uint64_t raddr, uint32_t rkey);
/* One receive WR of one SGE. */
int postr(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey);
/* @n bytes of a pattern that starts at @seed. */
void fill(uint8_t *p, size_t n, uint8_t seed);

/* DEV's port-1 device counter NAME (hw_counters), -1 where it has none. */
long long hw_counter(const char *dev, const char *name);
/* The number at the start of the file PATH (sysfs, debugfs), -1 if none. */
long long read_number(const char *path);

#endif /* TEST_FIXTURE_H */
