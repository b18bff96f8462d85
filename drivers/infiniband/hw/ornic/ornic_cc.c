// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: congestion control knobs (ORNIC_CAP_CC; spec: roce.rst,
 * "Congestion control") in /sys/kernel/debug/ornic/<ibdev>/cc/, as mlx5
 * exposes its cc_params: one read/write file per field of struct
 * ornic_cc_params (the NP/RP enables as np_enable and rp_enable), read
 * from and written to the device with CC_CONFIG, and qp_rates, the DCQCN
 * current rate of every QP (0: not rate-limited).  A write out of range is
 * refused with -EINVAL (ibdev_dbg names the value and the range) and
 * changes nothing.  CC_CONFIG uses the counters DMA buffer under
 * counters_lock, which also makes each read-modify-write of a knob atomic.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "ornic.h"

/* Under dev->counters_lock: the device's parameters into counters_buf. */
static int ornic_cc_query_locked(struct ornic_dev *dev)
{
	struct ornic_admin_sqe sqe;

	lockdep_assert_held(&dev->counters_lock);
	memset(dev->counters_buf, 0, sizeof(struct ornic_cc_params));
	ornic_cmd_cc_config(&sqe, ORNIC_CC_CONFIG_QUERY, dev->counters_dma);
	return ornic_admin_simple(dev, &sqe, NULL);
}

static int ornic_cc_knob_show(struct seq_file *s, void *unused)
{
	struct ornic_cc_file *f = s->private;
	struct ornic_dev *dev = f->dev;
	u32 value;
	int err;

	mutex_lock(&dev->counters_lock);
	err = ornic_cc_query_locked(dev);
	value = ornic_cc_knob_get(dev->counters_buf, f->knob);
	mutex_unlock(&dev->counters_lock);
	if (err)
		return err;
	seq_printf(s, "%u\n", value);
	return 0;
}

static int ornic_cc_knob_open(struct inode *inode, struct file *file)
{
	return single_open(file, ornic_cc_knob_show, inode->i_private);
}

static ssize_t ornic_cc_knob_write(struct file *file, const char __user *buf,
				   size_t count, loff_t *ppos)
{
	struct ornic_cc_file *f =
		((struct seq_file *)file->private_data)->private;
	struct ornic_dev *dev = f->dev;
	struct ornic_admin_sqe sqe;
	u32 value, min, max;
	int err;

	err = kstrtou32_from_user(buf, count, 0, &value);
	if (err)
		return err;
	mutex_lock(&dev->counters_lock);
	err = ornic_cc_query_locked(dev);
	if (err)
		goto unlock;
	err = ornic_cc_knob_set(dev->counters_buf, f->knob, value, &min, &max);
	if (err) {
		ibdev_dbg(&dev->ibdev, "cc: %s %u out of range %u..%u\n",
			  ornic_cc_knob_name(f->knob), value, min, max);
		goto unlock;
	}
	ornic_cmd_cc_config(&sqe, ORNIC_CC_CONFIG_SET, dev->counters_dma);
	err = ornic_admin_simple(dev, &sqe, NULL);
unlock:
	mutex_unlock(&dev->counters_lock);
	return err ? err : count;
}

static const struct file_operations ornic_cc_knob_fops = {
	.owner = THIS_MODULE,
	.open = ornic_cc_knob_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = ornic_cc_knob_write,
	.release = single_release,
};

/*
 * Only the QPN keys of dev->qps are used, never the QPs: a QP destroyed
 * meanwhile fails its query (BAD_HANDLE) and is left out.
 */
static int ornic_cc_qp_rates_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	unsigned long qpn;
	void *entry;
	u64 rate;

	xa_for_each(&dev->qps, qpn, entry) {
		if (ornic_read_qp_cc_rate(dev, qpn, &rate))
			continue;
		seq_printf(s, "qpn %lu rate_mbps %llu\n", qpn, rate);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_cc_qp_rates);

void ornic_cc_debugfs_add(struct ornic_dev *dev, struct dentry *parent)
{
	struct dentry *d;
	unsigned int i;

	if (!(dev->caps & ORNIC_CAP_CC))
		return;
	d = debugfs_create_dir("cc", parent);
	for (i = 0; i < ORNIC_CC_KNOB_COUNT; i++) {
		dev->cc_files[i].dev = dev;
		dev->cc_files[i].knob = i;
		debugfs_create_file(ornic_cc_knob_name(i), 0600, d,
				    &dev->cc_files[i], &ornic_cc_knob_fops);
	}
	debugfs_create_file("qp_rates", 0400, d, dev, &ornic_cc_qp_rates_fops);
}
