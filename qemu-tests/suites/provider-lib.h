/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers shared by the provider test tools (provider-verbs.c,
 * provider-data.c): reporting, one device's objects, QP setup, polling.
 */
#ifndef PROVIDER_LIB_H
#define PROVIDER_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define BUF_SIZE	65536
#define POLL_MS		10000
#define QKEY		0x11111111u

extern int failed;

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

/* Two QPs with a CQ each: completions of one QP arrive in order. */
struct pair {
	const char *tag;
	struct side *a, *b;
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
};

void report(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
struct ibv_device *find_dev(struct ibv_device **list, const char *name);
int side_open(struct side *s, struct ibv_device *dev);
void side_close(struct side *s);
long long now_ms(void);
int poll_one(struct ibv_cq *cq, struct ibv_wc *wc);
struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type,
		       struct ibv_cq *cq, struct ibv_srq *srq,
		       uint32_t wr, uint32_t sge, uint32_t inl);
int to_init(struct ibv_qp *qp);
int connect_qp(struct ibv_qp *qp, const struct side *local,
	       const union ibv_gid *dgid, uint32_t dest_qpn);
int to_err(struct ibv_qp *qp);
void expect_errno(const char *name, int got_null, int err, int want,
		  const char *what);
int check_wc(const char *tag, const char *name, struct ibv_cq *cq,
	     uint64_t wr_id, enum ibv_wc_opcode op, uint32_t len,
	     unsigned int flags, uint32_t qpn, struct ibv_wc *out);
int post1(struct ibv_qp *qp, uint64_t wr_id, enum ibv_wr_opcode op,
	  unsigned int flags, struct ibv_sge *sge, int nsge,
	  uint64_t raddr, uint32_t rkey);
int postr(struct ibv_qp *qp, uint64_t wr_id, void *addr, uint32_t len,
	  uint32_t lkey);
void fill(uint8_t *p, size_t n, uint8_t seed);
int pair_cqs(struct pair *p);
int rc_pair(struct pair *p, struct ibv_srq *srq_b);
void pair_free(struct pair *p);

/* provider-data.c */
void data_tests(struct side *a, struct side *b, const char *tag);

/* DEV's port-1 device counter NAME (hw_counters), -1 where it has none. */
long long hw_counter(const char *dev, const char *name);
/* The number at the start of the file PATH (sysfs, debugfs), -1 if none. */
long long read_number(const char *path);

#endif /* PROVIDER_LIB_H */
