// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Kernel verbs between two RDMA devices, as a kernel ULP uses them: PD
 * (with the driver's DMA MR as local_dma_lkey), CQs, an RC QP on each
 * device connected by GID, SENDs of DMA-mapped kernel buffers (several
 * SGEs, immediate data, inline data, unsignaled batches that wrap the
 * rings), a completion event on an armed CQ, fast registration (REG_MR,
 * WRITE/READ through its rkey, LOCAL_INV), resizing a kernel CQ with
 * completions pending (where the core has ib_resize_cq()) and
 * ib_drain_qp().  Each check runs while the module loads and logs
 * "ornic_kverbs: PASS|FAIL|SKIP <name> <details>"; loading fails when one
 * failed.  Unload it afterwards.
 *
 *   insmod ornic_kverbs_test.ko client=ornic_0 server=ornic_1 \
 *          client_gid=1 server_gid=1
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *client = "ornic_0";
static char *server = "ornic_1";
static int client_gid = 1;
static int server_gid = 1;
module_param(client, charp, 0444);
module_param(server, charp, 0444);
module_param(client_gid, int, 0444);
module_param(server_gid, int, 0444);
MODULE_PARM_DESC(client, "ib_device that sends");
MODULE_PARM_DESC(server, "ib_device that receives");
MODULE_PARM_DESC(client_gid, "client's RoCE v2 GID index");
MODULE_PARM_DESC(server_gid, "server's RoCE v2 GID index");

#define KV_BUF		8192
#define KV_DEPTH	16
#define KV_PATTERN(i)	((u8)((i) * 7 + 3))

struct kv_side {
	struct ib_device *dev;
	int gid_index;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u8 *buf;
	u64 dma;
};

static struct kv_side cside, sside;
static int failures;

#define kv_pass(name, fmt, ...) \
	pr_info("ornic_kverbs: PASS %s " fmt "\n", name, ##__VA_ARGS__)
#define kv_fail(name, fmt, ...) do { \
	pr_err("ornic_kverbs: FAIL %s " fmt "\n", name, ##__VA_ARGS__); \
	failures++; \
} while (0)

/* The devices the test asked for, as the core hands them to clients. */
static int kv_add(struct ib_device *dev)
{
	if (!strcmp(dev_name(&dev->dev), client))
		cside.dev = dev;
	else if (!strcmp(dev_name(&dev->dev), server))
		sside.dev = dev;
	return 0;
}

static void kv_remove(struct ib_device *dev, void *data)
{
}

static struct ib_client kv_client = {
	.name = "ornic_kverbs",
	.add = kv_add,
	.remove = kv_remove,
};

static int kv_side_init(struct kv_side *s, int gid_index)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = KV_DEPTH,
			.max_recv_wr = KV_DEPTH,
			.max_send_sge = 3,
			.max_recv_sge = 3,
			.max_inline_data = 256,
		},
	};

	s->gid_index = gid_index;
	s->pd = ib_alloc_pd(s->dev, 0);
	if (IS_ERR(s->pd))
		return PTR_ERR(s->pd);
	s->cq = ib_alloc_cq(s->dev, NULL, 2 * KV_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(s->cq))
		return PTR_ERR(s->cq);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(s->qp))
		return PTR_ERR(s->qp);
	s->buf = kzalloc(KV_BUF, GFP_KERNEL);
	if (!s->buf)
		return -ENOMEM;
	s->dma = ib_dma_map_single(s->dev, s->buf, KV_BUF, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(s->dev, s->dma)) {
		s->dma = 0;
		return -ENOMEM;
	}
	return 0;
}

static void kv_side_fini(struct kv_side *s)
{
	if (s->dma)
		ib_dma_unmap_single(s->dev, s->dma, KV_BUF, DMA_BIDIRECTIONAL);
	kfree(s->buf);
	if (!IS_ERR_OR_NULL(s->qp))
		ib_destroy_qp(s->qp);
	if (!IS_ERR_OR_NULL(s->cq))
		ib_free_cq(s->cq);
	if (!IS_ERR_OR_NULL(s->pd))
		ib_dealloc_pd(s->pd);
}

/* RESET -> INIT -> RTR -> RTS towards @peer. */
static int kv_connect(struct kv_side *s, struct kv_side *peer)
{
	struct ib_qp_attr attr = {};
	struct net_device *ndev;
	u8 dmac[ETH_ALEN];
	union ib_gid dgid;
	int err;

	err = rdma_query_gid(peer->dev, 1, peer->gid_index, &dgid);
	if (err)
		return err;
	/* Kernel users hand modify_qp a resolved address: the peer's MAC. */
	ndev = ib_device_get_netdev(peer->dev, 1);
	if (!ndev)
		return -ENODEV;
	memcpy(dmac, ndev->dev_addr, ETH_ALEN);
	dev_put(ndev);
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.pkey_index = 0;
	/* The QP lets remote WRITEs and READs in; each MR decides too. */
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			       IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(s->dev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, s->gid_index, 64, 0);
	memcpy(attr.ah_attr.roce.dmac, dmac, ETH_ALEN);
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Poll @cq until @n completions arrived or about 20 s passed. */
static int kv_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + 20 * HZ;
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (!r)
			usleep_range(200, 1000);
	}
	return got;
}

static int kv_post_recv(struct kv_side *s, u64 wr_id, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = s->dma + off,
		.length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(s->qp, &wr, NULL);
}

static void kv_fill(u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = KV_PATTERN(i + seed);
}

static bool kv_check(const u8 *p, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != KV_PATTERN(i + seed))
			return false;
	return true;
}

/* A 3-SGE SEND with immediate data lands as one message. */
static void kv_test_send_sges(void)
{
	const u32 len = 3000, rx_off = 4096;
	struct ib_sge sge[3];
	struct ib_send_wr wr = {};
	struct ib_wc wc[2];
	int i, n;

	kv_fill(cside.buf, len, 1);
	memset(sside.buf + rx_off, 0, len);
	ib_dma_sync_single_for_device(cside.dev, cside.dma, KV_BUF,
				      DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(sside.dev, sside.dma, KV_BUF,
				      DMA_BIDIRECTIONAL);
	if (kv_post_recv(&sside, 100, rx_off, 4096)) {
		kv_fail("send-sges", "post_recv failed");
		return;
	}
	for (i = 0; i < 3; i++) {
		sge[i].addr = cside.dma + i * 1000;
		sge[i].length = 1000;
		sge[i].lkey = cside.pd->local_dma_lkey;
	}
	wr.wr_id = 200;
	wr.sg_list = sge;
	wr.num_sge = 3;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.ex.imm_data = cpu_to_be32(0x1234abcd);
	if (ib_post_send(cside.qp, &wr, NULL)) {
		kv_fail("send-sges", "post_send failed");
		return;
	}
	n = kv_poll(cside.cq, wc, 1);
	if (n != 1 || wc[0].status != IB_WC_SUCCESS || wc[0].wr_id != 200 ||
	    wc[0].opcode != IB_WC_SEND || wc[0].qp != cside.qp) {
		kv_fail("send-sges", "sender: n %d status %s wr_id %llu opcode %d",
			n, n ? ib_wc_status_msg(wc[0].status) : "-",
			n ? wc[0].wr_id : 0, n ? wc[0].opcode : -1);
		return;
	}
	n = kv_poll(sside.cq, wc, 1);
	ib_dma_sync_single_for_cpu(sside.dev, sside.dma, KV_BUF,
				   DMA_BIDIRECTIONAL);
	if (n != 1 || wc[0].status != IB_WC_SUCCESS || wc[0].wr_id != 100 ||
	    wc[0].opcode != IB_WC_RECV || wc[0].byte_len != len ||
	    !(wc[0].wc_flags & IB_WC_WITH_IMM) ||
	    wc[0].ex.imm_data != cpu_to_be32(0x1234abcd) ||
	    wc[0].qp != sside.qp) {
		kv_fail("send-sges", "receiver: n %d status %s byte_len %u flags %#x",
			n, n ? ib_wc_status_msg(wc[0].status) : "-",
			n ? wc[0].byte_len : 0, n ? wc[0].wc_flags : 0);
		return;
	}
	if (!kv_check(sside.buf + rx_off, len, 1)) {
		kv_fail("send-sges", "received data differs");
		return;
	}
	kv_pass("send-sges", "3 SGEs, %u B with immediate data, data checked",
		len);
}

/*
 * Batches of unsignaled SENDs closed by a signaled one, inline and not,
 * enough of them to wrap the SQ, RQ and CQ rings several times.
 */
static void kv_test_batches(void)
{
	const u32 len = 200, batch = 8, rounds = 12;
	struct ib_send_wr wr[8] = {};
	struct ib_sge sge[8];
	struct ib_wc wc[8];
	u32 r, i, seed;
	int n;

	for (r = 0; r < rounds; r++) {
		bool inl = r & 1;

		for (i = 0; i < batch; i++) {
			if (kv_post_recv(&sside, 1000 + i, i * 512, 512)) {
				kv_fail("batches", "round %u: post_recv", r);
				return;
			}
			seed = r * 100 + i;
			kv_fill(cside.buf + i * 512, len, seed);
			sge[i].addr = inl ? (u64)(uintptr_t)(cside.buf + i * 512) :
					    cside.dma + i * 512;
			sge[i].length = len;
			sge[i].lkey = cside.pd->local_dma_lkey;
			wr[i].wr_id = 2000 + i;
			wr[i].sg_list = &sge[i];
			wr[i].num_sge = 1;
			wr[i].opcode = IB_WR_SEND;
			wr[i].send_flags = inl ? IB_SEND_INLINE : 0;
			wr[i].next = i + 1 < batch ? &wr[i + 1] : NULL;
		}
		wr[batch - 1].send_flags |= IB_SEND_SIGNALED;
		ib_dma_sync_single_for_device(cside.dev, cside.dma, KV_BUF,
					      DMA_BIDIRECTIONAL);
		if (ib_post_send(cside.qp, wr, NULL)) {
			kv_fail("batches", "round %u: post_send", r);
			return;
		}
		n = kv_poll(cside.cq, wc, 1);
		if (n != 1 || wc[0].status != IB_WC_SUCCESS ||
		    wc[0].wr_id != 2000 + batch - 1) {
			kv_fail("batches", "round %u: sender n %d status %s", r,
				n, n ? ib_wc_status_msg(wc[0].status) : "-");
			return;
		}
		n = kv_poll(sside.cq, wc, batch);
		ib_dma_sync_single_for_cpu(sside.dev, sside.dma, KV_BUF,
					   DMA_BIDIRECTIONAL);
		if (n != batch) {
			kv_fail("batches", "round %u: %d of %u receives", r, n,
				batch);
			return;
		}
		for (i = 0; i < batch; i++) {
			if (wc[i].status != IB_WC_SUCCESS ||
			    wc[i].wr_id != 1000 + i || wc[i].byte_len != len ||
			    !kv_check(sside.buf + i * 512, len, r * 100 + i)) {
				kv_fail("batches", "round %u msg %u: %s wr_id %llu len %u",
					r, i, ib_wc_status_msg(wc[i].status),
					wc[i].wr_id, wc[i].byte_len);
				return;
			}
		}
	}
	kv_pass("batches", "%u x %u SENDs (1 signaled, half inline), data checked",
		rounds, batch);
}

#ifdef KV_HAVE_IB_RESIZE_CQ
/*
 * @n receives on the server, @n SENDs of 64 bytes from the client (the last
 * signaled), receive k numbered @first + k; returns once the client saw
 * its completion, so every receive CQE is on the server's CQ.
 */
static int kv_resize_traffic(u32 first, u32 n)
{
	struct ib_send_wr wr[KV_DEPTH] = {};
	struct ib_sge sge[KV_DEPTH];
	struct ib_wc wc;
	u32 i, k;

	for (i = 0; i < n; i++) {
		k = first + i;
		if (kv_post_recv(&sside, 5000 + k, (k % KV_DEPTH) * 256, 256))
			return -EINVAL;
		kv_fill(cside.buf + i * 64, 64, k);
		sge[i].addr = cside.dma + i * 64;
		sge[i].length = 64;
		sge[i].lkey = cside.pd->local_dma_lkey;
		wr[i].wr_id = 6000 + k;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IB_WR_SEND;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	wr[n - 1].send_flags = IB_SEND_SIGNALED;
	ib_dma_sync_single_for_device(cside.dev, cside.dma, KV_BUF,
				      DMA_BIDIRECTIONAL);
	if (ib_post_send(cside.qp, wr, NULL))
		return -EINVAL;
	if (kv_poll(cside.cq, &wc, 1) != 1 || wc.status != IB_WC_SUCCESS ||
	    wc.wr_id != 6000 + first + n - 1)
		return -EIO;
	/* The ACK may overtake the receiver's CQE write: give it time. */
	msleep(100);
	return 0;
}

/* Poll @n receives, which must be @first.. in order with their data. */
static int kv_resize_take(u32 first, u32 n, const char **why)
{
	struct ib_wc wc[KV_DEPTH];
	u32 i, k;
	int got;

	got = kv_poll(sside.cq, wc, n);
	ib_dma_sync_single_for_cpu(sside.dev, sside.dma, KV_BUF,
				   DMA_BIDIRECTIONAL);
	if (got != (int)n) {
		*why = "missing completions";
		return got < 0 ? got : -EIO;
	}
	for (i = 0; i < n; i++) {
		k = first + i;
		if (wc[i].status != IB_WC_SUCCESS || wc[i].wr_id != 5000 + k ||
		    wc[i].opcode != IB_WC_RECV || wc[i].byte_len != 64 ||
		    !kv_check(sside.buf + (k % KV_DEPTH) * 256, 64, k)) {
			pr_err("ornic_kverbs: receive %u: wr_id %llu status %s len %u\n",
			       k, wc[i].wr_id, ib_wc_status_msg(wc[i].status),
			       wc[i].byte_len);
			*why = "a completion out of order, twice or damaged";
			return -EIO;
		}
	}
	return 0;
}

/*
 * ib_resize_cq() on the server's CQ (one ring for its QP's send and
 * receive completions) with receive CQEs pending: a shrink below them is
 * refused and the old ring keeps them, a grow and a shrink that still holds
 * them move them; every receive completes exactly once, in order.
 */
static void kv_test_resize_cq(void)
{
	struct ib_cq *cq = sside.cq;
	const char *why = "";
	int old = cq->cqe, err;
	struct ib_wc wc;

	/* 12 pending, 2 polled: the consumer index is inside the ring. */
	if (kv_resize_traffic(0, 12) || kv_resize_take(0, 2, &why)) {
		kv_fail("resize-cq", "traffic before the resize failed %s", why);
		return;
	}
	err = ib_resize_cq(cq, 4);
	if (err >= 0 || cq->cqe != old) {
		kv_fail("resize-cq-shrink-refused",
			"to 4 with 10 CQEs pending: %d, cqe %d (was %d)", err,
			cq->cqe, old);
		return;
	}
	if (kv_resize_take(2, 3, &why)) {
		kv_fail("resize-cq-shrink-refused", "old ring after it: %s", why);
		return;
	}
	kv_pass("resize-cq-shrink-refused",
		"to 4 CQEs with 10 pending: %d; the old ring of %d kept them",
		err, old);

	err = ib_resize_cq(cq, 128);
	if (err || cq->cqe < 128) {
		kv_fail("resize-cq-grow", "to 128 with 7 pending: %d, cqe %d",
			err, cq->cqe);
		return;
	}
	if (kv_resize_take(5, 2, &why) || kv_resize_traffic(12, 8)) {
		kv_fail("resize-cq-grow", "after it: %s", why);
		return;
	}
	kv_pass("resize-cq-grow", "%d -> %d CQEs with 7 pending, 8 more received",
		old, cq->cqe);

	/* 13 pending (7..19): 16 holds them. */
	err = ib_resize_cq(cq, 16);
	if (err || cq->cqe != 16) {
		kv_fail("resize-cq-shrink", "to 16 with 13 pending: %d, cqe %d",
			err, cq->cqe);
		return;
	}
	if (kv_resize_take(7, 13, &why) || ib_poll_cq(cq, 1, &wc)) {
		kv_fail("resize-cq-shrink", "after it: %s",
			*why ? why : "a completion more");
		return;
	}
	/* The new ring wraps: 3 rounds of 8 through 16 slots. */
	for (err = 0; err < 3; err++)
		if (kv_resize_traffic(20 + 8 * err, 8) ||
		    kv_resize_take(20 + 8 * err, 8, &why)) {
			kv_fail("resize-cq-shrink", "round %d in the new ring: %s",
				err, why);
			return;
		}
	kv_pass("resize-cq-shrink",
		"to 16 CQEs with 13 pending, then 24 more through the new ring");

	err = ib_resize_cq(cq, old);
	if (err || cq->cqe != old) {
		kv_fail("resize-cq-back", "to %d with none pending: %d", old, err);
		return;
	}
	kv_pass("resize-cq", "44 receives across 3 resizes, each once and in order");
}
#else
static void kv_test_resize_cq(void)
{
	pr_info("ornic_kverbs: SKIP resize-cq this kernel's RDMA core has no ib_resize_cq(): a kernel CQ cannot be resized\n");
}
#endif

static void kv_cq_event(struct ib_cq *cq, void *ctx)
{
	complete(ctx);
}

/* An armed CQ raises its completion handler for the next CQE. */
static void kv_test_event(void)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 8 };
	struct completion done;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_wc wc;
	long left;

	init_completion(&done);
	cq = ib_create_cq(sside.dev, kv_cq_event, NULL, &done, &cq_attr);
	if (IS_ERR(cq)) {
		kv_fail("cq-event", "create_cq: %ld", PTR_ERR(cq));
		return;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(sside.pd, &init);
	if (IS_ERR(qp)) {
		kv_fail("cq-event", "create_qp: %ld", PTR_ERR(qp));
		goto out_cq;
	}
	/* A receive posted to a RESET QP is refused; INIT takes it. */
	{
		struct ib_qp_attr attr = {
			.qp_state = IB_QPS_INIT, .port_num = 1,
			.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
		};

		if (ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				 IB_QP_PORT | IB_QP_ACCESS_FLAGS)) {
			kv_fail("cq-event", "modify to INIT");
			goto out_qp;
		}
	}
	if (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP)) {
		kv_fail("cq-event", "req_notify_cq");
		goto out_qp;
	}
	{
		struct ib_sge sge = { .addr = sside.dma, .length = 64,
				      .lkey = sside.pd->local_dma_lkey };
		struct ib_recv_wr rwr = { .wr_id = 7, .sg_list = &sge,
					  .num_sge = 1 };
		struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

		/* Moving to ERR flushes the receive: a CQE, an event. */
		if (ib_post_recv(qp, &rwr, NULL) ||
		    ib_modify_qp(qp, &attr, IB_QP_STATE)) {
			kv_fail("cq-event", "post_recv / modify to ERR");
			goto out_qp;
		}
	}
	left = wait_for_completion_timeout(&done, 20 * HZ);
	if (!left || ib_poll_cq(cq, 1, &wc) != 1 || wc.wr_id != 7 ||
	    wc.status != IB_WC_WR_FLUSH_ERR) {
		kv_fail("cq-event", "event %s, flushed receive not seen",
			left ? "arrived" : "timed out");
		goto out_qp;
	}
	kv_pass("cq-event", "armed CQ called its handler for a flushed receive");
out_qp:
	ib_destroy_qp(qp);
out_cq:
	ib_destroy_cq(cq);
}

static int kv_post_rdma(enum ib_wr_opcode op, u64 wr_id, u64 local, u32 len,
			u64 remote, u32 rkey)
{
	struct ib_sge sge = {
		.addr = local,
		.length = len,
		.lkey = cside.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = remote,
		.rkey = rkey,
	};

	return ib_post_send(cside.qp, &wr.wr, NULL);
}

/* One signaled local operation (REG_MR / LOCAL_INV) on the server. */
static int kv_server_local_op(const struct ib_send_wr *wr,
			      enum ib_wc_opcode want)
{
	struct ib_wc wc;

	if (ib_post_send(sside.qp, wr, NULL))
		return -EINVAL;
	if (kv_poll(sside.cq, &wc, 1) != 1)
		return -ETIMEDOUT;
	if (wc.status != IB_WC_SUCCESS || wc.opcode != want)
		return -EIO;
	return 0;
}

/*
 * Fast registration as nvme-rdma uses it: the server registers 5000 bytes
 * at offset 1000 of its buffer (two pages) with a REG_MR work request, the
 * client WRITEs and READs them through the new rkey, the server
 * invalidates it with LOCAL_INV, and the client's next WRITE fails with a
 * remote access error.  The client QP ends in ERR: run this last.
 */
static void kv_test_frwr(void)
{
	const u32 off = 1000, len = 5000;
	struct ib_send_wr inv = {
		.wr_id = 301,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 300,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ,
	};
	struct scatterlist sg;
	struct ib_wc wc = {};
	struct ib_mr *mr;
	int n;

	if (!(sside.dev->attrs.device_cap_flags &
	      IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		kv_fail("frwr", "%s has no IB_DEVICE_MEM_MGT_EXTENSIONS",
			server);
		return;
	}
	mr = ib_alloc_mr(sside.pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(mr)) {
		kv_fail("frwr", "ib_alloc_mr: %ld", PTR_ERR(mr));
		return;
	}
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = sside.dma + off;
	sg_dma_len(&sg) = len;
	n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		kv_fail("frwr", "ib_map_mr_sg: %d", n);
		goto out;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	reg.mr = mr;
	reg.key = mr->rkey;
	if (kv_server_local_op(&reg.wr, IB_WC_REG_MR)) {
		kv_fail("frwr", "REG_MR did not complete");
		goto out;
	}

	kv_fill(cside.buf, len, 77);
	memset(sside.buf, 0, KV_BUF);
	ib_dma_sync_single_for_device(cside.dev, cside.dma, KV_BUF,
				      DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(sside.dev, sside.dma, KV_BUF,
				      DMA_BIDIRECTIONAL);
	if (kv_post_rdma(IB_WR_RDMA_WRITE, 310, cside.dma, len, mr->iova,
			 mr->rkey) || kv_poll(cside.cq, &wc, 1) != 1 ||
	    wc.status != IB_WC_SUCCESS) {
		kv_fail("frwr", "RDMA WRITE through the new rkey: %s",
			ib_wc_status_msg(wc.status));
		goto out;
	}
	ib_dma_sync_single_for_cpu(sside.dev, sside.dma, KV_BUF,
				   DMA_BIDIRECTIONAL);
	if (!kv_check(sside.buf + off, len, 77) || sside.buf[off - 1] ||
	    sside.buf[off + len]) {
		kv_fail("frwr", "WRITE data not where the MR maps it");
		goto out;
	}
	if (kv_post_rdma(IB_WR_RDMA_READ, 311, cside.dma + 6000, 2000,
			 mr->iova + 100, mr->rkey) ||
	    kv_poll(cside.cq, &wc, 1) != 1 || wc.status != IB_WC_SUCCESS) {
		kv_fail("frwr", "RDMA READ through the new rkey: %s",
			ib_wc_status_msg(wc.status));
		goto out;
	}
	ib_dma_sync_single_for_cpu(cside.dev, cside.dma, KV_BUF,
				   DMA_BIDIRECTIONAL);
	if (!kv_check(cside.buf + 6000, 2000, 177)) {
		kv_fail("frwr", "READ data differs");
		goto out;
	}
	inv.ex.invalidate_rkey = mr->rkey;
	if (kv_server_local_op(&inv, IB_WC_LOCAL_INV)) {
		kv_fail("frwr", "LOCAL_INV did not complete");
		goto out;
	}
	if (kv_post_rdma(IB_WR_RDMA_WRITE, 312, cside.dma, 64, mr->iova,
			 mr->rkey) || kv_poll(cside.cq, &wc, 1) != 1 ||
	    wc.status != IB_WC_REM_ACCESS_ERR) {
		kv_fail("frwr", "WRITE after LOCAL_INV: %s",
			ib_wc_status_msg(wc.status));
		goto out;
	}
	kv_pass("frwr", "REG_MR %u B/2 pages, WRITE+READ via rkey; LOCAL_INV -> %s",
		len, ib_wc_status_msg(wc.status));
out:
	ib_dereg_mr(mr);
}

/* Move the QP to ERR and take every completion it still produces. */
static void kv_discard(struct kv_side *s)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_wc wc[8];
	int idle = 0;

	ib_modify_qp(s->qp, &attr, IB_QP_STATE);
	while (idle < 50) {
		if (ib_poll_cq(s->cq, ARRAY_SIZE(wc), wc) > 0) {
			idle = 0;
			continue;
		}
		idle++;
		usleep_range(1000, 2000);
	}
}

static int __init kv_init(void)
{
	int err;

	err = ib_register_client(&kv_client);
	if (err)
		return err;
	if (!cside.dev || !sside.dev) {
		pr_err("ornic_kverbs: FAIL setup devices %s/%s not found\n",
		       client, server);
		err = -ENODEV;
		goto out_client;
	}
	err = kv_side_init(&cside, client_gid);
	if (!err)
		err = kv_side_init(&sside, server_gid);
	if (err) {
		kv_fail("setup", "PD/CQ/QP/buffer: %d", err);
		goto out_sides;
	}
	kv_pass("setup", "%s QP %u, %s QP %u, local_dma_lkey %#x/%#x",
		client, cside.qp->qp_num, server, sside.qp->qp_num,
		cside.pd->local_dma_lkey, sside.pd->local_dma_lkey);
	err = kv_connect(&cside, &sside);
	if (!err)
		err = kv_connect(&sside, &cside);
	if (err) {
		kv_fail("connect", "modify_qp: %d", err);
		goto out_sides;
	}
	kv_pass("connect", "RC QPs in RTS, addressed by GID");

	kv_test_send_sges();
	kv_test_batches();
	kv_test_resize_cq();
	kv_test_event();
	kv_test_frwr();
	/*
	 * ib_drain_qp() hands every completion to a wr_cqe: none of ours
	 * (wr_id) may still be queued, also after a failed check.
	 */
	kv_discard(&cside);
	kv_discard(&sside);
	ib_drain_qp(cside.qp);
	ib_drain_qp(sside.qp);
	kv_pass("drain", "ib_drain_qp on both QPs returned");

out_sides:
	kv_side_fini(&sside);
	kv_side_fini(&cside);
out_client:
	ib_unregister_client(&kv_client);
	if (!err && failures)
		err = -EIO;
	return err;
}
module_init(kv_init);

static void __exit kv_exit(void)
{
}
module_exit(kv_exit);

MODULE_DESCRIPTION("ornic: kernel verbs between two RDMA devices (test)");
MODULE_LICENSE("Dual BSD/GPL");
