// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: PCI driver for the ornic RoCEv2 RDMA NIC.  Probe brings the device
 * up as the spec's bring-up sequence says (registers.rst), registers a
 * net_device for the Ethernet function and an ib_device for RoCEv2 on the
 * same port; remove undoes every step in exact reverse order.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ornic.h"

MODULE_AUTHOR("ornic developers");
MODULE_DESCRIPTION("ornic RoCEv2 RDMA NIC driver");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(ORNIC_DRV_VERSION);

static const struct pci_device_id ornic_pci_tbl[] = {
	{ PCI_DEVICE(ORNIC_PCI_VENDOR_ID, ORNIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ornic_pci_tbl);

/* --- what the lower layers report ---------------------------------------- */

/*
 * The device died (ornic_liveness.c, any context): every admin command
 * fails now, the rest is reported from process context.
 */
static void ornic_dev_dead(struct ornic_liveness *live)
{
	struct ornic_dev *dev = container_of(live, struct ornic_dev, live);

	ornic_aq_fail_all(dev);
	if (!test_bit(ORNIC_FLAG_REMOVING, &dev->flags))
		schedule_work(&dev->fatal_work);
}

static const struct ornic_liveness_ops ornic_liveness_ops = {
	.dead = ornic_dev_dead,
};

/*
 * After death: the link goes down (its port event first; link_work runs
 * it, so one link re-read runs at a time), IB_EVENT_DEVICE_FATAL goes out
 * and every armed kernel CQ is told.
 */
static void ornic_fatal_work(struct work_struct *work)
{
	struct ornic_dev *dev = container_of(work, struct ornic_dev,
					     fatal_work);

	if (test_bit(ORNIC_FLAG_REMOVING, &dev->flags))
		return;
	ornic_eth_link_changed(dev);
	flush_work(&dev->link_work);
	ornic_ib_fatal_event(dev);
	ornic_cq_rings_kick(dev);
	ornic_iw_device_dead(dev);
}

/*
 * A RoCE port's state is its netdev's carrier, re-read from process
 * context; an InfiniBand port's is the subnet manager's, in the event.
 */
static void ornic_port_state_event(struct ornic_dev *dev,
				   const struct ornic_eqe *eqe)
{
	if (ornic_is_ib(dev))
		ornic_ib_port_state_event(dev, eqe);
	else
		ornic_eth_link_changed(dev);
}

/* Who gets what the EQs read (ornic_eq.c knows no verbs object). */
static const struct ornic_eq_handlers ornic_eq_handlers = {
	.async = {
		[ORNIC_EQE_QP_FATAL] = ornic_qp_async_event,
		[ORNIC_EQE_QP_REQ_ERR] = ornic_qp_async_event,
		[ORNIC_EQE_QP_ACCESS_ERR] = ornic_qp_async_event,
		[ORNIC_EQE_QP_COMM_EST] = ornic_qp_async_event,
		[ORNIC_EQE_QP_SQ_DRAINED] = ornic_qp_async_event,
		[ORNIC_EQE_QP_LAST_WQE_REACHED] = ornic_qp_async_event,
		[ORNIC_EQE_CQ_ERROR] = ornic_cq_async_event,
		[ORNIC_EQE_SRQ_ERROR] = ornic_srq_async_event,
		[ORNIC_EQE_SRQ_LIMIT] = ornic_srq_async_event,
		[ORNIC_EQE_PORT_STATE] = ornic_port_state_event,
		[ORNIC_EQE_PAGE_FAULT] = ornic_odp_page_fault_event,
		[ORNIC_EQE_PORT_CHANGE] = ornic_port_change_event,
		[ORNIC_EQE_IW_CONN_REQUEST] = ornic_iw_async_event,
		[ORNIC_EQE_IW_CONNECT_REPLY] = ornic_iw_async_event,
		[ORNIC_EQE_IW_ESTABLISHED] = ornic_iw_async_event,
		[ORNIC_EQE_IW_DISCONNECT] = ornic_iw_async_event,
		[ORNIC_EQE_IW_CLOSE] = ornic_iw_async_event,
	},
	.completion = ornic_cq_comp_event,
};

/* Vector 0: admin completions and async events. */
static irqreturn_t ornic_admin_vector_irq(int irq, void *data)
{
	struct ornic_dev *dev = data;

	if (ornic_dead(&dev->live))
		return IRQ_HANDLED;	/* reset: the rings are stale */
	ornic_aq_process(dev);
	ornic_aeq_process(dev);
	return IRQ_HANDLED;
}

/* Periodic check: a vanished device reads all-ones and never interrupts. */
static void ornic_health_work(struct work_struct *work)
{
	struct ornic_dev *dev = container_of(to_delayed_work(work),
					     struct ornic_dev, health_work);
	u32 link;

	if (!ornic_liveness_check(&dev->live))
		return;
	/* Missed events cost at most one period. */
	ornic_aeq_process(dev);
	link = ornic_rd32(&dev->live, ORNIC_REG_LINK_STATUS);
	if (!!(link & ORNIC_LINK_STATUS_UP) != dev->link_up)
		ornic_eth_link_changed(dev);
	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(ORNIC_HEALTH_PERIOD_MS));
}

/* --- bring-up -------------------------------------------------------------- */

static int ornic_check_identity(struct ornic_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	u32 magic, major, minor;

	magic = ornic_rd32(&dev->live, ORNIC_REG_MAGIC);
	if (magic == ~0U) {
		dev_err(d, "BAR0 reads all-ones: device not responding\n");
		return -ENODEV;
	}
	if (magic != ORNIC_MAGIC) {
		dev_err(d, "bad MAGIC %#010x (expected %#010x): not an ornic\n",
			magic, ORNIC_MAGIC);
		return -ENODEV;
	}
	dev->version = ornic_rd32(&dev->live, ORNIC_REG_VERSION);
	major = ORNIC_VERSION_MAJOR(dev->version);
	minor = ORNIC_VERSION_MINOR(dev->version);
	if (major != ORNIC_SPEC_VERSION_MAJOR) {
		dev_err(d, "device implements spec version %u.%u; this driver supports %u.x only\n",
			major, minor, ORNIC_SPEC_VERSION_MAJOR);
		return -EOPNOTSUPP;
	}
	dev->fw_version = ornic_rd32(&dev->live, ORNIC_REG_FW_VERSION);
	dev->caps = ornic_rd32(&dev->live, ORNIC_REG_CAPS_LO) |
		    (u64)ornic_rd32(&dev->live, ORNIC_REG_CAPS_HI) << 32;
	/* Without 64-bit MMIO a doorbell is two halves (ornic_ring_db()). */
	if (!IS_ENABLED(CONFIG_64BIT) &&
	    !(dev->caps & ORNIC_CAP_DB_32BIT_PAIR)) {
		dev_err(d, "32-bit CPU, and the device (caps %#llx) lacks ORNIC_CAP_DB_32BIT_PAIR: doorbells would be lost\n",
			dev->caps);
		return -EOPNOTSUPP;
	}
	dev->live.reset_timeout_ms = ornic_rd32(&dev->live,
						ORNIC_REG_RESET_TIMEOUT_MS);
	dev->aq.timeout_ms = ornic_rd32(&dev->live, ORNIC_REG_ADMIN_TIMEOUT_MS);
	dev->db_pages = ornic_rd32(&dev->live, ORNIC_REG_DB_PAGES);
	/* Guard against absurd values; the spec's are 1000 and 2000 ms. */
	dev->live.reset_timeout_ms = clamp(dev->live.reset_timeout_ms, 100U,
					   60000U);
	dev->aq.timeout_ms = clamp(dev->aq.timeout_ms, 100U, 60000U);
	dev_info(d, "ornic spec %u.%u, firmware %u.%u.%u, caps %#llx, %u doorbell pages\n",
		 major, minor, ORNIC_FW_VERSION_MAJOR(dev->fw_version),
		 ORNIC_FW_VERSION_MINOR(dev->fw_version),
		 ORNIC_FW_VERSION_PATCH(dev->fw_version), dev->caps,
		 dev->db_pages);
	return 0;
}

static int ornic_enable(struct ornic_dev *dev)
{
	u32 mask = ORNIC_DEV_STATUS_READY | ORNIC_DEV_STATUS_FATAL |
		   ORNIC_DEV_STATUS_ENABLE_FAILED;
	u32 status;
	int err;

	ornic_wr32(&dev->live, ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
	err = readl_poll_timeout(dev->live.regs + ORNIC_REG_DEV_STATUS, status,
				 status & mask, 1000,
				 dev->live.reset_timeout_ms * 1000);
	if (err) {
		dev_err(&dev->pdev->dev, "device not ready after %u ms\n",
			dev->live.reset_timeout_ms);
		return -ETIMEDOUT;
	}
	if (status != ~0U && (status & ORNIC_DEV_STATUS_READY) &&
	    !(status & ORNIC_DEV_STATUS_FATAL))
		return 0;
	dev_err(&dev->pdev->dev,
		"enable failed: status %#x, fatal code %u (AQ %#x%08x/%#x%08x depth %u, AEQ %#x%08x depth %u)\n",
		status, ornic_rd32(&dev->live, ORNIC_REG_FATAL_CODE),
		ornic_rd32(&dev->live, ORNIC_REG_AQ_SQ_BASE_HI),
		ornic_rd32(&dev->live, ORNIC_REG_AQ_SQ_BASE_LO),
		ornic_rd32(&dev->live, ORNIC_REG_AQ_CQ_BASE_HI),
		ornic_rd32(&dev->live, ORNIC_REG_AQ_CQ_BASE_LO),
		ornic_rd32(&dev->live, ORNIC_REG_AQ_DEPTH),
		ornic_rd32(&dev->live, ORNIC_REG_AEQ_BASE_HI),
		ornic_rd32(&dev->live, ORNIC_REG_AEQ_BASE_LO),
		ornic_rd32(&dev->live, ORNIC_REG_AEQ_DEPTH));
	return -EIO;
}

/* Clearing ENABLE is a reset; wait for it so no DMA is left in flight. */
static void ornic_disable(struct ornic_dev *dev)
{
	u32 status;

	ornic_wr32(&dev->live, ORNIC_REG_DEV_CTRL, 0);
	if (readl_poll_timeout(dev->live.regs + ORNIC_REG_DEV_STATUS, status,
			       !(status & (ORNIC_DEV_STATUS_READY |
					   ORNIC_DEV_STATUS_RESETTING)) ||
			       status == ~0U,
			       1000, dev->live.reset_timeout_ms * 1000))
		dev_warn(&dev->pdev->dev, "device did not disable\n");
}

static int ornic_query(struct ornic_dev *dev)
{
	int err;

	err = ornic_admin_query(dev, ORNIC_ADMIN_QUERY_DEVICE, &dev->attr,
				sizeof(dev->attr));
	if (err) {
		dev_err(&dev->pdev->dev, "QUERY_DEVICE failed: %d\n", err);
		return err;
	}
	err = ornic_admin_query(dev, ORNIC_ADMIN_QUERY_PORT, &dev->port,
				sizeof(dev->port));
	if (err) {
		dev_err(&dev->pdev->dev, "QUERY_PORT failed: %d\n", err);
		return err;
	}
	dev->link_up = dev->port.state == ORNIC_PORT_ACTIVE;
	dev_info(&dev->pdev->dev,
		 "%u QPs, %u CQs, %u MRs, %u PDs, %u comp vectors, port %s %u Gb/s\n",
		 le32_to_cpu(dev->attr.max_qp), le32_to_cpu(dev->attr.max_cq),
		 le32_to_cpu(dev->attr.max_mr), le32_to_cpu(dev->attr.max_pd),
		 le32_to_cpu(dev->attr.num_comp_vectors),
		 dev->link_up ? "up" : "down",
		 le32_to_cpu(dev->port.speed_gbps));
	return 0;
}

static int ornic_map_bars(struct ornic_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	if (pci_resource_len(pdev, ORNIC_BAR_REGS) < ORNIC_BAR_REGS_SIZE ||
	    pci_resource_len(pdev, ORNIC_BAR_DOORBELL) < ORNIC_DB_PAGE_SIZE) {
		dev_err(&pdev->dev, "BARs too small\n");
		return -ENODEV;
	}
	dev->live.regs = pci_iomap(pdev, ORNIC_BAR_REGS, ORNIC_BAR_REGS_SIZE);
	if (!dev->live.regs)
		return -ENOMEM;
	/* Only the kernel's doorbell page; user pages are mmap()ed. */
	dev->live.db = pci_iomap(pdev, ORNIC_BAR_DOORBELL, ORNIC_DB_PAGE_SIZE);
	if (!dev->live.db) {
		pci_iounmap(pdev, dev->live.regs);
		return -ENOMEM;
	}
	dev->db_bar_start = pci_resource_start(pdev, ORNIC_BAR_DOORBELL);
	return 0;
}

static void ornic_unmap_bars(struct ornic_dev *dev)
{
	pci_iounmap(dev->pdev, dev->live.db);
	pci_iounmap(dev->pdev, dev->live.regs);
}

/*
 * Probe is two halves, as remove is (efa_main.c is shaped the same way):
 * ornic_probe_device() brings the device up to a working admin channel
 * (PCI, BARs, reset, identity, admin queue, AEQ, vector 0), and
 * ornic_ib_device_add() builds on it what the RDMA core and the network
 * stack see (limits, completion EQs, the netdev and the ib_device).  Each
 * half unwinds with its own ladder whose tail is the helpers its
 * teardown function calls, so that remove lists nothing twice.
 */

/* --- the device half ------------------------------------------------------ */

/* PCI function enabled, bus master, 64-bit DMA, both BARs mapped. */
static int ornic_pci_init(struct ornic_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int err;

	err = pci_enable_device_mem(pdev);
	if (err)
		return err;
	err = pci_request_mem_regions(pdev, ORNIC_DRV_NAME);
	if (err)
		goto err_disable_pci;
	pci_set_master(pdev);
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA configuration\n");
		goto err_clear_master;
	}
	err = ornic_map_bars(dev);
	if (err)
		goto err_clear_master;
	return 0;

err_clear_master:
	pci_clear_master(pdev);
	pci_release_mem_regions(pdev);
err_disable_pci:
	pci_disable_device(pdev);
	return err;
}

static void ornic_pci_fini(struct ornic_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	ornic_unmap_bars(dev);
	pci_clear_master(pdev);
	pci_release_mem_regions(pdev);
	pci_disable_device(pdev);
}

/*
 * MSI-X vectors, the admin queue and the AEQ rings (registers written while
 * DEV_CTRL.ENABLE is 0) and vector 0's handler.
 */
static int ornic_admin_channel_init(struct ornic_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	int nvec, err;

	/* Vector 0 for admin and async events, one completion vector per CPU. */
	nvec = pci_alloc_irq_vectors(pdev, 2,
				     1 + min(num_online_cpus(),
					     ORNIC_MSIX_VECTORS - 1),
				     PCI_IRQ_MSIX);
	if (nvec < 0) {
		dev_err(&pdev->dev, "cannot allocate MSI-X vectors: %d\n", nvec);
		return nvec;
	}
	dev->num_vectors = nvec;

	err = ornic_aq_init(dev);
	if (err)
		goto err_free_vectors;
	err = ornic_aeq_init(dev, &ornic_eq_handlers);
	if (err)
		goto err_aq_destroy;
	err = request_irq(pci_irq_vector(pdev, ORNIC_MSIX_VECTOR_ADMIN),
			  ornic_admin_vector_irq, 0, "ornic-admin", dev);
	if (err)
		goto err_aeq_destroy;
	return 0;

err_aeq_destroy:
	ornic_aeq_destroy(dev);
err_aq_destroy:
	ornic_aq_destroy(dev);
err_free_vectors:
	pci_free_irq_vectors(pdev);
	return err;
}

/* Only once the device no longer writes the rings (never enabled, or reset). */
static void ornic_admin_channel_fini(struct ornic_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	free_irq(pci_irq_vector(pdev, ORNIC_MSIX_VECTOR_ADMIN), dev);
	ornic_aeq_destroy(dev);
	ornic_aq_destroy(dev);
	pci_free_irq_vectors(pdev);
}

/* Up to a working admin channel with the AEQ armed. */
static int ornic_probe_device(struct ornic_dev *dev)
{
	int err;

	err = ornic_pci_init(dev);
	if (err)
		return err;
	err = ornic_check_identity(dev);
	if (err)
		goto err_pci_fini;
	err = ornic_reset(&dev->live);
	if (err)
		goto err_pci_fini;
	err = ornic_admin_channel_init(dev);
	if (err)
		goto err_pci_fini;
	err = ornic_enable(dev);
	if (err)
		goto err_admin_channel_fini;
	spin_lock_irq(&dev->aeq_lock);
	ornic_aeq_arm(dev);
	spin_unlock_irq(&dev->aeq_lock);
	return 0;

err_admin_channel_fini:
	ornic_admin_channel_fini(dev);
err_pci_fini:
	ornic_pci_fini(dev);
	return err;
}

static void ornic_remove_device(struct ornic_dev *dev)
{
	/* The device is reset (DMA stopped) before its rings are freed. */
	ornic_disable(dev);
	ornic_admin_channel_fini(dev);
	ornic_pci_fini(dev);
}

/* --- the ib_device/netdev half -------------------------------------------- */

/*
 * Deferred work no longer touches the ib_device, netdev or CEQs (the
 * health and fatal work queue link_work: it goes last).
 */
static void ornic_stop_deferred_work(struct ornic_dev *dev)
{
	set_bit(ORNIC_FLAG_REMOVING, &dev->flags);
	cancel_delayed_work_sync(&dev->health_work);
	cancel_work_sync(&dev->fatal_work);
	cancel_work_sync(&dev->link_work);
}

/*
 * Undo ornic_register(), or as much of it as was done: the health and event
 * work that reach the netdev and the ib_device stop first.
 */
static void ornic_unregister(struct ornic_dev *dev)
{
	ornic_stop_deferred_work(dev);
	if (READ_ONCE(dev->ib_registered))
		ornic_ib_unregister(dev);
	if (dev->netdev)
		ornic_eth_unregister(dev);
}

/* Health checks, the netdev and the ib_device (it names the netdev). */
static int ornic_register(struct ornic_dev *dev)
{
	int err;

	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(ORNIC_HEALTH_PERIOD_MS));
	/* An InfiniBand port has no Ethernet function (IPoIB gives ib0). */
	err = ornic_is_ib(dev) ? 0 : ornic_eth_register(dev);
	if (!err)
		err = ornic_ib_register(dev);
	if (err)
		ornic_unregister(dev);
	return err;
}

/*
 * The completion EQs, the DMA buffer QUERY_COUNTERS answers into and, on an
 * InfiniBand port, MAD_IFC's.
 */
static int ornic_ib_resources_alloc(struct ornic_dev *dev)
{
	struct device *dmadev = &dev->pdev->dev;
	int err;

	dev->counters_buf = dma_alloc_coherent(dmadev,
					       sizeof(struct ornic_device_counters),
					       &dev->counters_dma, GFP_KERNEL);
	if (!dev->counters_buf)
		return -ENOMEM;
	err = ornic_ceqs_create(dev);
	if (err)
		goto err_free_counters;
	if (ornic_is_ib(dev)) {
		err = ornic_mad_init(dev);
		if (err)
			goto err_ceqs_destroy;
	}
	return 0;

err_ceqs_destroy:
	ornic_ceqs_destroy(dev);
err_free_counters:
	dma_free_coherent(dmadev, sizeof(struct ornic_device_counters),
			  dev->counters_buf, dev->counters_dma);
	return err;
}

/* After ornic_stop_deferred_work(): the fatal work walks the CEQs. */
static void ornic_ib_resources_free(struct ornic_dev *dev)
{
	if (ornic_is_ib(dev))
		ornic_mad_destroy(dev);
	ornic_ceqs_destroy(dev);
	dma_free_coherent(&dev->pdev->dev, sizeof(struct ornic_device_counters),
			  dev->counters_buf, dev->counters_dma);
}

static int ornic_ib_device_add(struct ornic_dev *dev)
{
	int err;

	err = ornic_query(dev);
	if (err)
		return err;
	err = ornic_ib_resources_alloc(dev);
	if (err)
		return err;
	err = ornic_register(dev);
	if (err)
		goto err_resources_free;
	ornic_debugfs_add(dev);
	return 0;

err_resources_free:
	ornic_ib_resources_free(dev);
	return err;
}

static void ornic_ib_device_remove(struct ornic_dev *dev)
{
	ornic_debugfs_remove(dev);
	ornic_unregister(dev);
	ornic_ib_resources_free(dev);
}

/* --- the driver's state --------------------------------------------------- */

static struct ornic_dev *ornic_dev_alloc(struct pci_dev *pdev)
{
	struct ornic_dev *dev;

	dev = ib_alloc_device(ornic_dev, ibdev);
	if (!dev)
		return NULL;
	dev->pdev = pdev;
	ornic_liveness_init(&dev->live, &pdev->dev, &dev->ibdev,
			    &ornic_liveness_ops);
	xa_init_flags(&dev->cq_rings, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->odp_mrs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
	mutex_init(&dev->counters_lock);
	INIT_DELAYED_WORK(&dev->health_work, ornic_health_work);
	INIT_WORK(&dev->fatal_work, ornic_fatal_work);
	ornic_eth_link_init(dev);
	pci_set_drvdata(pdev, dev);
	return dev;
}

static void ornic_dev_free(struct ornic_dev *dev)
{
	/* A late admin timeout may have queued the fatal work again. */
	cancel_work_sync(&dev->fatal_work);
	cancel_work_sync(&dev->link_work);
	xa_destroy(&dev->cq_rings);
	xa_destroy(&dev->cqs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
	xa_destroy(&dev->odp_mrs);
	xa_destroy(&dev->counters);
	mutex_destroy(&dev->counters_lock);
	ornic_liveness_destroy(&dev->live);
	ib_dealloc_device(&dev->ibdev);
}

static int ornic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ornic_dev *dev;
	int err;

	dev = ornic_dev_alloc(pdev);
	if (!dev)
		return -ENOMEM;
	err = ornic_probe_device(dev);
	if (err)
		goto err_dev_free;
	err = ornic_ib_device_add(dev);
	if (err)
		goto err_remove_device;
	return 0;

err_remove_device:
	ornic_remove_device(dev);
err_dev_free:
	ornic_dev_free(dev);
	return err;
}

static void ornic_remove(struct pci_dev *pdev)
{
	struct ornic_dev *dev = pci_get_drvdata(pdev);

	ornic_ib_device_remove(dev);
	ornic_remove_device(dev);
	ornic_dev_free(dev);
}

static struct pci_driver ornic_pci_driver = {
	.name = ORNIC_DRV_NAME,
	.id_table = ornic_pci_tbl,
	.probe = ornic_probe,
	.remove = ornic_remove,
};

/* The debugfs root holds one directory per device: there before probe. */
static int __init ornic_init(void)
{
	int err;

	ornic_debugfs_init();
	err = pci_register_driver(&ornic_pci_driver);
	if (err)
		ornic_debugfs_cleanup();
	return err;
}

static void __exit ornic_exit(void)
{
	pci_unregister_driver(&ornic_pci_driver);
	ornic_debugfs_cleanup();
}

module_init(ornic_init);
module_exit(ornic_exit);
