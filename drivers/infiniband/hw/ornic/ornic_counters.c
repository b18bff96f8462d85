// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the device's counters (spec: counters.rst) as the RDMA core's hw
 * counters.  The port's statistics are the device counters followed by
 * the per-QP counters; the device keeps per-QP counters for every QP
 * (ORNIC_COUNTER_SCOPE_QP), so a QP bound to an RDMA counter (`rdma
 * statistic qp set ... auto` or `bind`) is counted from its values at bind
 * time: a counter is what its QPs counted while bound, plus what the QPs
 * that left it had counted.  The port's qp_* values are therefore those
 * of the QPs in counters (the core adds the counters to the port's 0s).
 */
#include <kunit/visibility.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "ornic.h"

const struct rdma_stat_desc ornic_counter_descs[ORNIC_STATS_COUNT] = {
	[ORNIC_CNT_ADMIN_COMMANDS].name = "admin_commands",
	[ORNIC_CNT_ADMIN_ERRORS].name = "admin_errors",
	[ORNIC_CNT_ADMIN_BAD_OPCODE].name = "admin_bad_opcode",
	[ORNIC_CNT_ADMIN_BAD_FIELD].name = "admin_bad_field",
	[ORNIC_CNT_ADMIN_BAD_HANDLE].name = "admin_bad_handle",
	[ORNIC_CNT_ADMIN_NO_RESOURCES].name = "admin_no_resources",
	[ORNIC_CNT_ADMIN_BAD_DMA].name = "admin_bad_dma",
	[ORNIC_CNT_DB_WRITES].name = "db_writes",
	[ORNIC_CNT_DB_FOREIGN_PAGE].name = "db_foreign_page",
	[ORNIC_CNT_DB_BAD_QUEUE].name = "db_bad_queue",
	[ORNIC_CNT_DB_BAD_INDEX].name = "db_bad_index",
	[ORNIC_CNT_DB_BAD_OFFSET].name = "db_bad_offset",
	[ORNIC_CNT_DB_UNALLOCATED_PAGE].name = "db_unallocated_page",
	[ORNIC_CNT_REG_BAD_ACCESS].name = "reg_bad_access",
	[ORNIC_CNT_DMA_ERRORS].name = "dma_errors",
	[ORNIC_CNT_EQ_OVERFLOW].name = "eq_overflow",
	[ORNIC_CNT_CQ_OVERFLOW].name = "cq_overflow",
	[ORNIC_CNT_EQES].name = "eqes",
	[ORNIC_CNT_CQES].name = "cqes",
	[ORNIC_CNT_INTERRUPTS].name = "interrupts",
	[ORNIC_CNT_ETH_TX_FRAMES].name = "eth_tx_frames",
	[ORNIC_CNT_ETH_TX_BYTES].name = "eth_tx_bytes",
	[ORNIC_CNT_ETH_TX_ERRORS].name = "eth_tx_errors",
	[ORNIC_CNT_ETH_TX_LINK_DOWN].name = "eth_tx_link_down",
	[ORNIC_CNT_ETH_RX_FRAMES].name = "eth_rx_frames",
	[ORNIC_CNT_ETH_RX_BYTES].name = "eth_rx_bytes",
	[ORNIC_CNT_ETH_RX_NO_BUFFER].name = "eth_rx_no_buffer",
	[ORNIC_CNT_ETH_RX_FILTERED].name = "eth_rx_filtered",
	[ORNIC_CNT_ETH_RX_TOO_LONG].name = "eth_rx_too_long",
	[ORNIC_CNT_ETH_RX_ERRORS].name = "eth_rx_errors",
	[ORNIC_CNT_WQE_ERRORS].name = "wqe_errors",
	[ORNIC_CNT_RX_RDMA_PACKETS].name = "rx_rdma_packets",
	[ORNIC_CNT_RX_BAD_ICRC].name = "rx_bad_icrc",
	[ORNIC_CNT_RX_BAD_HEADER].name = "rx_bad_header",
	[ORNIC_CNT_RX_UNKNOWN_QP].name = "rx_unknown_qp",
	[ORNIC_CNT_RX_PSN_ERRORS].name = "rx_psn_errors",
	[ORNIC_CNT_TX_RDMA_PACKETS].name = "tx_rdma_packets",
	[ORNIC_CNT_NAKS_SENT].name = "naks_sent",
	[ORNIC_CNT_NAKS_RECEIVED].name = "naks_received",
	[ORNIC_CNT_RETRANSMITS].name = "retransmits",
	[ORNIC_CNT_RNR_NAKS].name = "rnr_naks",
	[ORNIC_CNT_TIMEOUTS].name = "timeouts",
	[ORNIC_CNT_RX_QKEY_ERRORS].name = "rx_qkey_errors",
	[ORNIC_CNT_RX_UD_NO_RECV].name = "rx_ud_no_recv",
	[ORNIC_CNT_TX_RDMA_BYTES].name = "tx_rdma_bytes",
	[ORNIC_CNT_RX_RDMA_BYTES].name = "rx_rdma_bytes",
	[ORNIC_CNT_RX_MCAST_DELIVERED].name = "rx_mcast_delivered",
	[ORNIC_CNT_RX_MCAST_NO_GROUP].name = "rx_mcast_no_group",
	[ORNIC_CNT_ODP_REQ_FAULTS].name = "odp_req_faults",
	[ORNIC_CNT_ODP_RESP_FAULTS].name = "odp_resp_faults",
	[ORNIC_CNT_ODP_INVALIDATIONS].name = "odp_invalidations",
	[ORNIC_CNT_ODP_ERRORS].name = "odp_errors",
	[ORNIC_CNT_RX_UC_NO_RECV].name = "rx_uc_no_recv",
	[ORNIC_CNT_RX_UC_DROPPED].name = "rx_uc_dropped",
	[ORNIC_CNT_RX_PEER_MISMATCH].name = "rx_peer_mismatch",
	[ORNIC_CNT_DB_WQ_WRITES].name = "db_wq_writes",
	[ORNIC_CNT_DB_RECORD_ERRORS].name = "db_record_errors",
	[ORNIC_CNT_CC_CE_RECEIVED].name = "cc_ce_received",
	[ORNIC_CNT_CC_CNPS_SENT].name = "cc_cnps_sent",
	[ORNIC_CNT_CC_CNPS_HANDLED].name = "cc_cnps_handled",
	[ORNIC_CNT_RX_BAD_VCRC].name = "rx_bad_vcrc",
	[ORNIC_CNT_RX_BAD_LRH].name = "rx_bad_lrh",
	[ORNIC_CNT_RX_WRONG_DLID].name = "rx_wrong_dlid",
	[ORNIC_CNT_RX_VL15_DROPPED].name = "rx_vl15_dropped",
	[ORNIC_CNT_RX_PKEY_ERRORS].name = "rx_pkey_errors",
	[ORNIC_CNT_RX_PORT_NOT_ACTIVE].name = "rx_port_not_active",
	[ORNIC_CNT_TX_PORT_NOT_ACTIVE].name = "tx_port_not_active",
	[ORNIC_CNT_IW_TCP_RX_FRAMES].name = "iw_tcp_rx_frames",
	[ORNIC_CNT_IW_TCP_TX_FRAMES].name = "iw_tcp_tx_frames",
	[ORNIC_CNT_IW_CONN_REFUSED].name = "iw_conn_refused",
	[ORNIC_CNT_IW_MPA_ERRORS].name = "iw_mpa_errors",
	[ORNIC_CNT_IW_RX_BAD_FPDU].name = "iw_rx_bad_fpdu",
	[ORNIC_CNT_IW_RX_BAD_SEGMENT].name = "iw_rx_bad_segment",
	[ORNIC_CNT_IW_TERMINATES_SENT].name = "iw_terminates_sent",
	[ORNIC_CNT_IW_TERMINATES_RECEIVED].name = "iw_terminates_received",
	[ORNIC_CNT_IW_RX_DROPPED_BYTES].name = "iw_rx_dropped_bytes",
	/* Per-QP counters (struct ornic_qp_counters), QPs bound to counters. */
	[ORNIC_STAT_QP(send_wqes)].name = "qp_send_wqes",
	[ORNIC_STAT_QP(recv_wqes)].name = "qp_recv_wqes",
	[ORNIC_STAT_QP(send_bytes)].name = "qp_send_bytes",
	[ORNIC_STAT_QP(recv_bytes)].name = "qp_recv_bytes",
	[ORNIC_STAT_QP(wqe_errors)].name = "qp_wqe_errors",
	[ORNIC_STAT_QP(db_foreign_page)].name = "qp_db_foreign_page",
	[ORNIC_STAT_QP(db_bad_index)].name = "qp_db_bad_index",
	[ORNIC_STAT_QP(packets_sent)].name = "qp_packets_sent",
	[ORNIC_STAT_QP(packets_received)].name = "qp_packets_received",
	[ORNIC_STAT_QP(retransmits)].name = "qp_retransmits",
	[ORNIC_STAT_QP(naks_received)].name = "qp_naks_received",
	[ORNIC_STAT_QP(naks_sent)].name = "qp_naks_sent",
	[ORNIC_STAT_QP(rnr_naks)].name = "qp_rnr_naks",
	[ORNIC_STAT_QP(timeouts)].name = "qp_timeouts",
};

static_assert(ORNIC_STAT_QP_FIRST == ORNIC_CNT_COUNT);

/* One QP bound to a counter, and its counters at bind time. */
struct ornic_counter_qp {
	struct list_head node;
	u32 qpn;
	u64 base[ORNIC_STATS_QP_COUNT];
};

/*
 * The driver's side of an RDMA counter, in dev->counters under the
 * counter's id (6.12 has no driver-sized rdma_counter).  The core holds
 * counter->lock around bind, unbind and update: it protects qps and acc.
 */
struct ornic_counter {
	struct list_head qps;
	u64 acc[ORNIC_STATS_QP_COUNT];	/* of the QPs that left */
};

/* QUERY_COUNTERS into dev->counters_buf; copies @len bytes to @out. */
static int ornic_query_counters(struct ornic_dev *dev, u8 scope, u32 handle,
				void *out, size_t len)
{
	struct ornic_admin_sqe sqe;
	int err;

	mutex_lock(&dev->counters_lock);
	memset(dev->counters_buf, 0, sizeof(struct ornic_device_counters));
	ornic_cmd_query_counters(&sqe, scope, handle, dev->counters_dma,
				 scope == ORNIC_COUNTER_SCOPE_QP ?
				 sizeof(struct ornic_qp_counters) :
				 sizeof(struct ornic_device_counters));
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (!err)
		memcpy(out, dev->counters_buf, len);
	mutex_unlock(&dev->counters_lock);
	return err;
}

/*
 * The device counters the device fills (at most ORNIC_CNT_COUNT of them)
 * into @val; the rest are 0.  Returns how many the device filled.
 */
int ornic_read_device_counters(struct ornic_dev *dev,
			       u64 val[ORNIC_CNT_COUNT])
{
	struct ornic_device_counters *c;
	u32 n, i;
	int err;

	c = kzalloc_obj(*c, GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	err = ornic_query_counters(dev, ORNIC_COUNTER_SCOPE_DEVICE, 0, c,
				   sizeof(*c));
	if (err)
		goto out;
	n = min_t(u32, le32_to_cpu(c->num_counters), ORNIC_CNT_COUNT);
	for (i = 0; i < ORNIC_CNT_COUNT; i++)
		val[i] = i < n ? le64_to_cpu(c->counter[i]) : 0;
	err = n;
out:
	kfree(c);
	return err;
}

int ornic_read_qp_counters(struct ornic_dev *dev, u32 qpn,
			   u64 val[ORNIC_STATS_QP_COUNT])
{
	struct ornic_qp_counters c;
	const __le64 *v = (const __le64 *)&c;
	int err, i;

	static_assert(ORNIC_STATS_QP_COUNT <=
		      sizeof(struct ornic_qp_counters) / sizeof(__le64));
	err = ornic_query_counters(dev, ORNIC_COUNTER_SCOPE_QP, qpn, &c,
				   sizeof(c));
	if (err)
		return err;
	for (i = 0; i < ORNIC_STATS_QP_COUNT; i++)
		val[i] = le64_to_cpu(v[i]);
	return 0;
}

int ornic_read_qp_cc_rate(struct ornic_dev *dev, u32 qpn, u64 *rate)
{
	struct ornic_qp_counters c;
	int err;

	err = ornic_query_counters(dev, ORNIC_COUNTER_SCOPE_QP, qpn, &c,
				   sizeof(c));
	if (!err)
		*rate = le64_to_cpu(c.cc_rate_mbps);
	return err;
}

static struct rdma_hw_stats *ornic_alloc_hw_port_stats(struct ib_device *ibdev,
						       u32 port)
{
	return rdma_alloc_hw_stats_struct(ornic_counter_descs,
					  ARRAY_SIZE(ornic_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int ornic_get_hw_stats(struct ib_device *ibdev,
			      struct rdma_hw_stats *stats, u32 port, int index)
{
	u64 val[ORNIC_CNT_COUNT];
	int err, i;

	err = ornic_read_device_counters(to_odev(ibdev), val);
	if (err < 0)
		return err;
	for (i = 0; i < ORNIC_CNT_COUNT; i++)
		stats->value[i] = val[i];
	/* The core adds the counters of bound QPs to these. */
	for (i = ORNIC_STAT_QP_FIRST; i < ORNIC_STATS_COUNT; i++)
		stats->value[i] = 0;
	return stats->num_counters;
}

/*
 * A counter's statistics have the port's layout, so that the core can add
 * them to the port's; only the per-QP part is shown.
 */
static struct rdma_hw_stats *ornic_counter_alloc_stats(struct rdma_counter *counter)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(ornic_counter_descs,
					   ARRAY_SIZE(ornic_counter_descs),
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	for (i = 0; i < ORNIC_STAT_QP_FIRST; i++)
		set_bit(i, stats->is_disabled);
	return stats;
}

static struct ornic_counter *ornic_counter_get(struct rdma_counter *counter)
{
	return xa_load(&to_odev(counter->device)->counters, counter->id);
}

static int ornic_counter_bind(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct ornic_dev *dev = to_odev(qp->device);
	struct ornic_counter *oc = NULL;
	struct ornic_counter_qp *b;
	u32 id;
	int err;

	b = kzalloc_obj(*b, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->qpn = qp->qp_num;
	err = ornic_read_qp_counters(dev, b->qpn, b->base);
	if (err)
		goto err_free;
	/* The first QP of a new counter: the counter's id is ours to give. */
	if (!counter->id) {
		oc = kzalloc_obj(*oc, GFP_KERNEL);
		if (!oc) {
			err = -ENOMEM;
			goto err_free;
		}
		INIT_LIST_HEAD(&oc->qps);
		err = xa_alloc(&dev->counters, &id, oc, xa_limit_31b,
			       GFP_KERNEL);
		if (err)
			goto err_free;
		counter->id = id;
	} else {
		oc = ornic_counter_get(counter);
		if (WARN_ON(!oc)) {
			err = -EINVAL;
			goto err_free;
		}
	}
	list_add_tail(&b->node, &oc->qps);
	qp->counter = counter;
	ibdev_dbg(&dev->ibdev, "QP %u bound to counter %u\n", b->qpn,
		  counter->id);
	return 0;

err_free:
	if (oc && !counter->id)
		kfree(oc);
	kfree(b);
	return err;
}

static int ornic_counter_unbind(struct ib_qp *qp)
{
	struct ornic_dev *dev = to_odev(qp->device);
	struct rdma_counter *counter = qp->counter;
	u64 val[ORNIC_STATS_QP_COUNT];
	struct ornic_counter_qp *b;
	struct ornic_counter *oc;
	int i;

	oc = ornic_counter_get(counter);
	if (!oc)
		return -EINVAL;
	list_for_each_entry(b, &oc->qps, node) {
		if (b->qpn != qp->qp_num)
			continue;
		/* A dead device keeps nothing more to count. */
		if (!ornic_read_qp_counters(dev, b->qpn, val))
			for (i = 0; i < ORNIC_STATS_QP_COUNT; i++)
				oc->acc[i] += val[i] - b->base[i];
		list_del(&b->node);
		kfree(b);
		break;
	}
	qp->counter = NULL;
	return 0;
}

static int ornic_counter_update_stats(struct rdma_counter *counter)
{
	struct ornic_dev *dev = to_odev(counter->device);
	u64 val[ORNIC_STATS_QP_COUNT], sum[ORNIC_STATS_QP_COUNT];
	struct ornic_counter_qp *b;
	struct ornic_counter *oc;
	int err, i;

	oc = ornic_counter_get(counter);
	if (!oc)
		return -EINVAL;
	memcpy(sum, oc->acc, sizeof(sum));
	list_for_each_entry(b, &oc->qps, node) {
		err = ornic_read_qp_counters(dev, b->qpn, val);
		if (err)
			return err;
		for (i = 0; i < ORNIC_STATS_QP_COUNT; i++)
			sum[i] += val[i] - b->base[i];
	}
	for (i = 0; i < ORNIC_STATS_QP_COUNT; i++)
		counter->stats->value[ORNIC_STAT_QP_FIRST + i] = sum[i];
	return 0;
}

#ifdef ORNIC_HAVE_COUNTER_OBJ
/* The core's object, at the size the core asks of the driver. */
struct ornic_rdma_counter {
	struct rdma_counter ibcounter;
};

/*
 * Called by the core for every new counter, before any QP is bound: the
 * driver's state is made at the first bind (as on kernels without it).
 */
static void ornic_counter_init(struct rdma_counter *counter)
{
}

static int ornic_counter_bind_qp(struct rdma_counter *counter,
				 struct ib_qp *qp, u32 port)
{
	return ornic_counter_bind(counter, qp);
}

static int ornic_counter_unbind_qp(struct ib_qp *qp, u32 port)
{
	return ornic_counter_unbind(qp);
}
#else
static int ornic_counter_bind_qp(struct rdma_counter *counter,
				 struct ib_qp *qp)
{
	return ornic_counter_bind(counter, qp);
}

static int ornic_counter_unbind_qp(struct ib_qp *qp)
{
	return ornic_counter_unbind(qp);
}
#endif

/* After the last unbind (the core keeps the counter until then). */
static int ornic_counter_dealloc(struct rdma_counter *counter)
{
	struct ornic_dev *dev = to_odev(counter->device);
	struct ornic_counter *oc;

	oc = xa_erase(&dev->counters, counter->id);
	if (!oc)
		return 0;
	WARN_ON(!list_empty(&oc->qps));
	kfree(oc);
	return 0;
}

const struct ib_device_ops ornic_counter_ops = {
	.alloc_hw_port_stats = ornic_alloc_hw_port_stats,
	.get_hw_stats = ornic_get_hw_stats,
	.counter_alloc_stats = ornic_counter_alloc_stats,
	.counter_bind_qp = ornic_counter_bind_qp,
	.counter_dealloc = ornic_counter_dealloc,
	.counter_unbind_qp = ornic_counter_unbind_qp,
	.counter_update_stats = ornic_counter_update_stats,
#ifdef ORNIC_HAVE_COUNTER_OBJ
	.counter_init = ornic_counter_init,
	INIT_RDMA_OBJ_SIZE(rdma_counter, ornic_rdma_counter, ibcounter),
#endif
};

/* --- QUERY_COUNTERS (KUnit: ornic_counters_kunit.c) ----------------------- */

void ornic_cmd_query_counters(struct ornic_admin_sqe *sqe, u8 scope,
			      u32 handle, u64 resp_addr, u32 resp_len)
{
	struct ornic_admin_query_counters *q =
		(struct ornic_admin_query_counters *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_QUERY_COUNTERS);
	q->resp_addr = cpu_to_le64(resp_addr);
	q->resp_len = cpu_to_le32(resp_len);
	q->scope = scope;
	q->handle = cpu_to_le32(handle);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_query_counters);
