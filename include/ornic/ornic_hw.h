/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic hardware interface, specification version 1.0.
 *
 * This header is the single definition of every layout the ornic RNIC
 * exposes: BAR0 registers, doorbells, admin queue commands and completions,
 * event queue entries, work queue entries, completion queue entries and the
 * Ethernet descriptors.  The kernel driver (C), the rdma-core provider (C)
 * and the device model (C++) all include it unchanged.  The prose that gives
 * these layouts their meaning is Documentation/hardware/ornic/ (section
 * numbers in the comments below refer to it).  Header and specification
 * change together, in the same commit.
 *
 * Rules: every multi-byte field is little-endian unless its type says
 * big-endian (__be32 immediate data travels as on the wire).  Every struct is
 * naturally aligned, has explicit reserved fields (written as zero, checked
 * as zero by the device where the spec says so) and a compile-time size
 * check.  No bitfields: bit positions are given by the *_SHIFT / *_MASK and
 * flag constants next to each field.
 */
#ifndef ORNIC_HW_H
#define ORNIC_HW_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/stddef.h>
#else
#include <stddef.h>
#endif

/*
 * static_assert is the C++ keyword, <assert.h>'s name for C11 _Static_assert
 * in userspace C, and <linux/build_bug.h>'s in the kernel.
 */
#if !defined(__cplusplus) && !defined(__KERNEL__)
#include <assert.h>
#endif
#ifdef __KERNEL__
#include <linux/build_bug.h>
#endif
#define ORNIC_HW_STATIC_ASSERT(cond, msg) static_assert(cond, msg)

/* The kernel's BIT() is not available to userspace and C++. */
#define ORNIC_BIT(n)		(1U << (n))
#define ORNIC_BIT_ULL(n)	(1ULL << (n))

/* Layout checks, used after every struct. */
#define ORNIC_HW_ASSERT_SIZE(type, size) \
	ORNIC_HW_STATIC_ASSERT(sizeof(type) == (size), "size of " #type)
#define ORNIC_HW_ASSERT_OFFSET(type, field, offset) \
	ORNIC_HW_STATIC_ASSERT(offsetof(type, field) == (offset), \
			       "offset of " #type "." #field)

/* ------------------------------------------------------------------------
 * 1. Identity and versioning (spec: identity.rst)
 */

/*
 * PROVISIONAL identifiers.  0x1dea is not a PCI-SIG vendor ID assigned to
 * this project; it must be replaced by an assigned ID before any device
 * leaves a test environment.  Drivers match on it only for that reason.
 */
#define ORNIC_PCI_VENDOR_ID		0x1dea	/* provisional */
#define ORNIC_PCI_DEVICE_ID		0x0001	/* provisional */
#define ORNIC_PCI_SUBSYS_VENDOR_ID	0x1dea	/* provisional */
#define ORNIC_PCI_SUBSYS_ID		0x0001	/* provisional */
#define ORNIC_PCI_REVISION		0x01
#define ORNIC_PCI_CLASS_CODE		0x020000 /* Ethernet controller */

#define ORNIC_SPEC_VERSION_MAJOR	1
#define ORNIC_SPEC_VERSION_MINOR	0

/* The VERSION register and QUERY_DEVICE spec_version: major << 16 | minor. */
#define ORNIC_VERSION_MAJOR_SHIFT	16
#define ORNIC_VERSION_MAJOR_MASK	0xffff0000U
#define ORNIC_VERSION_MINOR_MASK	0x0000ffffU
#define ORNIC_VERSION(major, minor) \
	((((__u32)(major) << ORNIC_VERSION_MAJOR_SHIFT) & \
	  ORNIC_VERSION_MAJOR_MASK) | ((__u32)(minor) & ORNIC_VERSION_MINOR_MASK))
#define ORNIC_VERSION_MAJOR(v) \
	(((__u32)(v) & ORNIC_VERSION_MAJOR_MASK) >> ORNIC_VERSION_MAJOR_SHIFT)
#define ORNIC_VERSION_MINOR(v)		((__u32)(v) & ORNIC_VERSION_MINOR_MASK)
#define ORNIC_SPEC_VERSION \
	ORNIC_VERSION(ORNIC_SPEC_VERSION_MAJOR, ORNIC_SPEC_VERSION_MINOR)

/*
 * The FW_VERSION register: the version of the device's implementation (its
 * "firmware"; for the behavioural model, the ornic release it was built
 * from), major << 24 | minor << 16 | patch.  Independent of the spec version.
 */
#define ORNIC_FW_VERSION_MAJOR_SHIFT	24
#define ORNIC_FW_VERSION_MAJOR_MASK	0xff000000U
#define ORNIC_FW_VERSION_MINOR_SHIFT	16
#define ORNIC_FW_VERSION_MINOR_MASK	0x00ff0000U
#define ORNIC_FW_VERSION_PATCH_MASK	0x0000ffffU
#define ORNIC_FW_VERSION(major, minor, patch) \
	((((__u32)(major) << ORNIC_FW_VERSION_MAJOR_SHIFT) & \
	  ORNIC_FW_VERSION_MAJOR_MASK) | \
	 (((__u32)(minor) << ORNIC_FW_VERSION_MINOR_SHIFT) & \
	  ORNIC_FW_VERSION_MINOR_MASK) | \
	 ((__u32)(patch) & ORNIC_FW_VERSION_PATCH_MASK))
#define ORNIC_FW_VERSION_MAJOR(v) \
	(((__u32)(v) & ORNIC_FW_VERSION_MAJOR_MASK) >> ORNIC_FW_VERSION_MAJOR_SHIFT)
#define ORNIC_FW_VERSION_MINOR(v) \
	(((__u32)(v) & ORNIC_FW_VERSION_MINOR_MASK) >> ORNIC_FW_VERSION_MINOR_SHIFT)
#define ORNIC_FW_VERSION_PATCH(v)	((__u32)(v) & ORNIC_FW_VERSION_PATCH_MASK)

/* "ORNC" read as a little-endian 32-bit value. */
#define ORNIC_MAGIC			0x434e524fU

/* ------------------------------------------------------------------------
 * 2. BARs (spec: identity.rst)
 */
#define ORNIC_BAR_REGS			0	/* 64-bit memory BAR */
#define ORNIC_BAR_DOORBELL		2	/* 64-bit memory BAR */
#define ORNIC_BAR_MSIX			4	/* 64-bit memory BAR */

#define ORNIC_BAR_REGS_SIZE		0x4000U		/* 16 KiB */
#define ORNIC_DB_PAGE_SHIFT		12
#define ORNIC_DB_PAGE_SIZE		ORNIC_BIT(ORNIC_DB_PAGE_SHIFT)
#define ORNIC_DB_PAGES			256U
#define ORNIC_BAR_DOORBELL_SIZE		(ORNIC_DB_PAGES * ORNIC_DB_PAGE_SIZE)
#define ORNIC_DB_PAGE_KERNEL		0	/* always owned by the driver */

#define ORNIC_MSIX_VECTORS		32U
#define ORNIC_MSIX_TABLE_OFFSET		0x0000U
#define ORNIC_MSIX_PBA_OFFSET		0x1000U
#define ORNIC_BAR_MSIX_SIZE		0x2000U		/* 8 KiB */
#define ORNIC_MSIX_VECTOR_ADMIN		0	/* admin CQ + async EQ */

/* ------------------------------------------------------------------------
 * 3. BAR0 register map (spec: registers.rst).  All registers are 32 bits
 * wide and accessed with aligned 32-bit reads/writes; 64-bit quantities are
 * split into _LO/_HI pairs.
 */
#define ORNIC_REG_MAGIC			0x0000	/* RO ORNIC_MAGIC */
#define ORNIC_REG_VERSION		0x0004	/* RO major << 16 | minor */
#define ORNIC_REG_CAPS_LO		0x0008	/* RO ORNIC_CAP_* bits 31..0 */
#define ORNIC_REG_CAPS_HI		0x000c	/* RO ORNIC_CAP_* bits 63..32 */
#define ORNIC_REG_DEV_CTRL		0x0010	/* RW */
#define ORNIC_REG_DEV_STATUS		0x0014	/* RO */
#define ORNIC_REG_FATAL_CODE		0x0018	/* RO ORNIC_FATAL_* */
#define ORNIC_REG_ADMIN_TIMEOUT_MS	0x001c	/* RO */
#define ORNIC_REG_RESET_TIMEOUT_MS	0x0020	/* RO */
#define ORNIC_REG_DB_PAGES		0x0024	/* RO doorbell pages in BAR2 */
#define ORNIC_REG_MSIX_VECTORS		0x0028	/* RO */
#define ORNIC_REG_SCRATCH		0x002c	/* RW, no side effect */
#define ORNIC_REG_SCRATCH_WRITES	0x0030	/* RO writes to SCRATCH, wrapping */
#define ORNIC_REG_BAR2_WRITES		0x0034	/* RO writes to BAR2, wrapping */
#define ORNIC_REG_FW_VERSION		0x0038	/* RO ORNIC_FW_VERSION() */

#define ORNIC_REG_AQ_SQ_BASE_LO		0x0040	/* RW */
#define ORNIC_REG_AQ_SQ_BASE_HI		0x0044	/* RW */
#define ORNIC_REG_AQ_CQ_BASE_LO		0x0048	/* RW */
#define ORNIC_REG_AQ_CQ_BASE_HI		0x004c	/* RW */
#define ORNIC_REG_AQ_DEPTH		0x0050	/* RW entries, power of 2 */
#define ORNIC_REG_AQ_SQ_TAIL		0x0054	/* WO doorbell, free-running */
#define ORNIC_REG_AQ_SQ_HEAD		0x0058	/* RO, free-running */

#define ORNIC_REG_AEQ_BASE_LO		0x0060	/* RW */
#define ORNIC_REG_AEQ_BASE_HI		0x0064	/* RW */
#define ORNIC_REG_AEQ_DEPTH		0x0068	/* RW entries, power of 2 */
#define ORNIC_REG_AEQ_DB		0x006c	/* WO ORNIC_AEQ_DB_* format */

#define ORNIC_REG_LINK_STATUS		0x0080	/* RO */
#define ORNIC_REG_MAC_LO		0x0084	/* RO MAC bytes 0..3 */
#define ORNIC_REG_MAC_HI		0x0088	/* RO MAC bytes 4..5 */

/* FW_VERSION: the aligned word after BAR2_WRITES, before the admin queue. */
ORNIC_HW_STATIC_ASSERT((ORNIC_REG_FW_VERSION & 3) == 0 &&
		       ORNIC_REG_FW_VERSION - ORNIC_REG_BAR2_WRITES == 4 &&
		       ORNIC_REG_AQ_SQ_BASE_LO - ORNIC_REG_FW_VERSION >= 4,
		       "FW_VERSION register offset");
ORNIC_HW_STATIC_ASSERT(ORNIC_FW_VERSION(0xff, 0xff, 0xffff) == 0xffffffffU &&
		       ORNIC_FW_VERSION_MAJOR(ORNIC_FW_VERSION(3, 2, 1)) == 3 &&
		       ORNIC_FW_VERSION_MINOR(ORNIC_FW_VERSION(3, 2, 1)) == 2 &&
		       ORNIC_FW_VERSION_PATCH(ORNIC_FW_VERSION(3, 2, 1)) == 1,
		       "FW_VERSION field layout");

/* DEV_CTRL */
#define ORNIC_DEV_CTRL_ENABLE		ORNIC_BIT(0)
#define ORNIC_DEV_CTRL_RESET		ORNIC_BIT(1)	/* self-clearing */

/* DEV_STATUS */
#define ORNIC_DEV_STATUS_READY		ORNIC_BIT(0)
#define ORNIC_DEV_STATUS_FATAL		ORNIC_BIT(1)
#define ORNIC_DEV_STATUS_RESETTING	ORNIC_BIT(2)
#define ORNIC_DEV_STATUS_ENABLE_FAILED	ORNIC_BIT(3)

/* FATAL_CODE */
enum ornic_fatal_code {
	ORNIC_FATAL_NONE		= 0,
	ORNIC_FATAL_AQ_DMA		= 1,	/* admin ring not readable */
	ORNIC_FATAL_AQ_BAD_TAIL		= 2,	/* tail more than depth ahead */
	ORNIC_FATAL_AEQ_DMA		= 3,
	ORNIC_FATAL_BAD_CONFIG		= 4,	/* enable with invalid AQ/AEQ */
	ORNIC_FATAL_INTERNAL		= 5,
};

/*
 * AEQ_DB: a 32-bit register cannot hold a full doorbell, so it carries the low
 * 16 bits of the free-running consumer index (enough: AEQ depth <= 4096).
 */
#define ORNIC_AEQ_DB_INDEX_MASK		0x0000ffffU
#define ORNIC_AEQ_DB_ARM		ORNIC_BIT(31)

/* LINK_STATUS */
#define ORNIC_LINK_STATUS_UP		ORNIC_BIT(0)
#define ORNIC_LINK_STATUS_SPEED_SHIFT	16	/* Gb/s, 0 = unknown */
#define ORNIC_LINK_STATUS_SPEED_MASK	0xffff0000U

/* Admin queue depth limits (entries). */
#define ORNIC_AQ_DEPTH_MIN		2U
#define ORNIC_AQ_DEPTH_MAX		4096U
#define ORNIC_AEQ_DEPTH_MIN		2U
#define ORNIC_AEQ_DEPTH_MAX		4096U

/* Capability bits (CAPS_LO/HI and ornic_device_attr.caps). */
#define ORNIC_CAP_RC			ORNIC_BIT_ULL(0)
#define ORNIC_CAP_UD			ORNIC_BIT_ULL(1)
#define ORNIC_CAP_SRQ			ORNIC_BIT_ULL(2)
#define ORNIC_CAP_ATOMIC		ORNIC_BIT_ULL(3)
#define ORNIC_CAP_INLINE		ORNIC_BIT_ULL(4)
#define ORNIC_CAP_ETH			ORNIC_BIT_ULL(5)
#define ORNIC_CAP_IPV6_GID		ORNIC_BIT_ULL(6)
#define ORNIC_CAP_MR_INDIRECT		ORNIC_BIT_ULL(7)
#define ORNIC_CAP_MR_PHYSICAL		ORNIC_BIT_ULL(8)
#define ORNIC_CAP_DB_32BIT_PAIR		ORNIC_BIT_ULL(9)
#define ORNIC_CAP_GSI			ORNIC_BIT_ULL(10)
#define ORNIC_CAP_FAST_REG		ORNIC_BIT_ULL(11) /* REG_MR/LOCAL_INV WQEs */
#define ORNIC_CAP_FLUSH			ORNIC_BIT_ULL(12) /* FLUSH WQEs, RC FLUSH */
#define ORNIC_CAP_ATOMIC_WRITE		ORNIC_BIT_ULL(13) /* ATOMIC_WRITE WQEs */
#define ORNIC_CAP_UC			ORNIC_BIT_ULL(14) /* unreliable connected QPs */
#define ORNIC_CAP_MW			ORNIC_BIT_ULL(15) /* memory windows 1, 2B */
/* RESIZE_CQ, RESIZE_SRQ and REREG_MR admin commands */
#define ORNIC_CAP_RESIZE		ORNIC_BIT_ULL(16)
#define ORNIC_CAP_MCAST			ORNIC_BIT_ULL(17) /* UD multicast groups */
/* XRC domains, XRC SRQs, XRC_INI/XRC_TGT QPs (spec: xrc.rst) */
#define ORNIC_CAP_XRC			ORNIC_BIT_ULL(18)
#define ORNIC_CAP_ODP			ORNIC_BIT_ULL(19) /* on-demand paging */
/* Timestamped CQs (64-byte CQEs) and the CLOCK register of doorbell pages. */
#define ORNIC_CAP_CQE_TIMESTAMP		ORNIC_BIT_ULL(20)
/* Doorbell records and doorbell suppression of SQs, RQs and SRQs. */
#define ORNIC_CAP_DB_RECORD		ORNIC_BIT_ULL(21)
/* ECN-capable RoCEv2, CNPs and DCQCN rate control (CC_CONFIG). */
#define ORNIC_CAP_CC			ORNIC_BIT_ULL(22)
/* CQ consumer records: a CQ's consumer index in host memory. */
#define ORNIC_CAP_CQ_DB_RECORD		ORNIC_BIT_ULL(23)
/*
 * An InfiniBand port (spec: infiniband.rst): the device's subnet management
 * and performance management agents (MAD_IFC), MODIFY_PORT, the SMI QP,
 * LID address vectors and PORT_CHANGE events.  Set exactly when the port's
 * link layer is ORNIC_LINK_LAYER_IB.
 */
#define ORNIC_CAP_IB			ORNIC_BIT_ULL(24)
/*
 * RoCE v1 beside RoCE v2 (spec: roce.rst, "RoCE v1"): GID entries of type
 * ORNIC_GID_TYPE_ROCE_V1, whose packets are Ethertype 0x8915 frames with a
 * GRH in place of IP and UDP.  Ethernet ports only.
 */
#define ORNIC_CAP_ROCE_V1		ORNIC_BIT_ULL(25)
/*
 * RoCE over 802.1Q VLANs (spec: roce.rst, "VLANs"): GID entries with a VLAN
 * ID (ORNIC_GID_FLAG_VLAN), tagged frames with the address vector's SL as
 * the priority (PCP), and UD receives that report the tag
 * (ORNIC_CQE_FLAG_VLAN).  Ethernet ports only.
 */
#define ORNIC_CAP_ROCE_VLAN		ORNIC_BIT_ULL(26)
/*
 * Data center bridging on the Ethernet port (spec: ethernet.rst, "Priorities
 * and lossless Ethernet"): the port's QoS settings (SET_PORT_QOS) and its
 * per-priority counters (QUERY_PORT_QOS).  Ethernet ports only.
 */
#define ORNIC_CAP_DCB			ORNIC_BIT_ULL(27)
/*
 * An iWARP port (spec: iwarp.rst, iwarp-cm.rst): the device terminates TCP
 * and MPA for the RNIC's connections (IW_* admin commands, IW_* events) and
 * frames no RoCE.  Set exactly when the port's link layer is
 * ORNIC_LINK_LAYER_IWARP.
 */
#define ORNIC_CAP_IWARP			ORNIC_BIT_ULL(28)

/* ------------------------------------------------------------------------
 * 4. Doorbells (spec: doorbells.rst).  Each 4 KiB page of BAR2 holds one
 * 64-bit doorbell register per queue kind.  A doorbell is one 64-bit write,
 * or (ORNIC_CAP_DB_32BIT_PAIR) a 32-bit write of the low half followed by a
 * 32-bit write of the high half; the high write commits.
 */
#define ORNIC_DB_SQ			0x00
#define ORNIC_DB_RQ			0x08
#define ORNIC_DB_SRQ			0x10
#define ORNIC_DB_CQ			0x18
#define ORNIC_DB_EQ			0x20
#define ORNIC_DB_ETH_TX			0x28
#define ORNIC_DB_ETH_RX			0x30

/*
 * The device clock (ORNIC_CAP_CQE_TIMESTAMP), readable in every doorbell
 * page, so that a user context reads it through the page it has mapped: one
 * 64-bit read at ORNIC_DB_CLOCK, or 32-bit reads of the halves (read HI, LO,
 * HI again; retry if HI changed).  A free-running 64-bit count of
 * nanoseconds that never goes backwards, not even across a reset; its
 * epoch is unspecified.  Timestamped CQEs carry the same clock.
 */
#define ORNIC_DB_CLOCK			0x800
#define ORNIC_DB_CLOCK_LO		0x800
#define ORNIC_DB_CLOCK_HI		0x804
#define ORNIC_CLOCK_KHZ			1000000U	/* 1 tick = 1 ns */

/* Doorbell value. */
#define ORNIC_DB_QN_MASK		0x00ffffffULL	/* bits 23..0 */
#define ORNIC_DB_FLAGS_SHIFT		24		/* bits 31..24 */
#define ORNIC_DB_FLAGS_MASK		0xff000000ULL
#define ORNIC_DB_INDEX_SHIFT		32		/* bits 63..32 */
#define ORNIC_DB_FLAG_ARM_NEXT		ORNIC_BIT_ULL(24)	/* CQ, EQ */
#define ORNIC_DB_FLAG_ARM_SOLICITED	ORNIC_BIT_ULL(25)	/* CQ */

#define ORNIC_DB_VALUE(qn, flags, index) \
	(((__u64)(index) << ORNIC_DB_INDEX_SHIFT) | (__u64)(flags) | \
	 ((__u64)(qn) & ORNIC_DB_QN_MASK))

/*
 * Doorbell record (ORNIC_CAP_DB_RECORD; spec: doorbells.rst, "Doorbell
 * records").  An SQ, RQ or SRQ created with the DB_RECORD flag has one in
 * the 64-byte block just past its ring: block 2^log_depth of the ring's
 * memory.  Software writes producer after the WQEs, then (full barrier)
 * reads kick and rings the MMIO doorbell only when kick is
 * ORNIC_DB_RECORD_KICK.  The device writes kick and never producer (except
 * at RESET and RESIZE_SRQ).
 */
struct ornic_db_record {
	__le32 producer;		/* software: producer index */
	__le32 reserved0;
	__le32 kick;			/* device: ORNIC_DB_RECORD_KICK or 0 */
	__le32 reserved1[13];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_db_record, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_db_record, producer, 0);
ORNIC_HW_ASSERT_OFFSET(struct ornic_db_record, kick, 8);

#define ORNIC_DB_RECORD_KICK		1U

/*
 * CQ consumer record (ORNIC_CAP_CQ_DB_RECORD; spec: doorbells.rst, "CQ
 * consumer records").  A CQ created with ORNIC_CQ_FLAG_DB_RECORD has one
 * in the 64-byte block just past its ring (byte entry size << log_depth of
 * the ring's memory).  Software writes its consumer index there as it
 * polls; the device reads it when the ring looks full to it, before it
 * would declare an overflow, and never writes it.
 */
struct ornic_cq_db_record {
	__le32 consumer;		/* software: consumer index */
	__le32 reserved[15];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_cq_db_record, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cq_db_record, consumer, 0);

/* ------------------------------------------------------------------------
 * 5. Queue memory descriptor (spec: queues.rst), used by every command that
 * hands the device host memory: queues and memory regions.
 */
enum ornic_mem_mode {
	/* addr is the DMA address of num_pages contiguous pages. */
	ORNIC_MEM_MODE_CONTIG		= 0,
	/* addr points to num_pages __le64 page addresses (<= 512). */
	ORNIC_MEM_MODE_DIRECT		= 1,
	/*
	 * addr points to ceil(num_pages / 512) __le64 addresses of 4 KiB
	 * pages, each holding up to 512 __le64 page addresses.
	 */
	ORNIC_MEM_MODE_INDIRECT		= 2,
};

#define ORNIC_PBL_ENTRIES_PER_PAGE	512U
#define ORNIC_PAGE_SHIFT_MIN		12
#define ORNIC_PAGE_SHIFT_MAX		30

struct ornic_mem_desc {
	__le64 addr;
	__le32 num_pages;
	__u8 page_shift;	/* 12..30 */
	__u8 mode;		/* enum ornic_mem_mode */
	__le16 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_mem_desc, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_mem_desc, num_pages, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_mem_desc, page_shift, 12);

/* ------------------------------------------------------------------------
 * 6. Admin queue (spec: admin.rst)
 */
#define ORNIC_AQ_SQE_SIZE		64
#define ORNIC_AQ_CQE_SIZE		16

enum ornic_admin_opcode {
	ORNIC_ADMIN_QUERY_DEVICE	= 0x01,
	ORNIC_ADMIN_QUERY_PORT		= 0x02,
	ORNIC_ADMIN_QUERY_COUNTERS	= 0x03,
	ORNIC_ADMIN_ALLOC_DB_PAGE	= 0x08,
	ORNIC_ADMIN_FREE_DB_PAGE	= 0x09,
	ORNIC_ADMIN_CREATE_EQ		= 0x10,
	ORNIC_ADMIN_DESTROY_EQ		= 0x11,
	ORNIC_ADMIN_CREATE_CQ		= 0x12,
	ORNIC_ADMIN_DESTROY_CQ		= 0x13,
	ORNIC_ADMIN_RESIZE_CQ		= 0x14,	/* ORNIC_CAP_RESIZE */
	ORNIC_ADMIN_ALLOC_PD		= 0x18,
	ORNIC_ADMIN_DEALLOC_PD		= 0x19,
	ORNIC_ADMIN_REG_MR		= 0x1a,
	ORNIC_ADMIN_DEREG_MR		= 0x1b,
	ORNIC_ADMIN_ALLOC_MW		= 0x1c,	/* ORNIC_CAP_MW */
	ORNIC_ADMIN_DEALLOC_MW		= 0x1d,	/* ORNIC_CAP_MW */
	ORNIC_ADMIN_REREG_MR		= 0x1e,	/* ORNIC_CAP_RESIZE */
	ORNIC_ADMIN_CREATE_QP		= 0x20,
	ORNIC_ADMIN_MODIFY_QP		= 0x21,
	ORNIC_ADMIN_QUERY_QP		= 0x22,
	ORNIC_ADMIN_DESTROY_QP		= 0x23,
	ORNIC_ADMIN_ALLOC_XRCD		= 0x24,	/* ORNIC_CAP_XRC */
	ORNIC_ADMIN_DEALLOC_XRCD	= 0x25,	/* ORNIC_CAP_XRC */
	ORNIC_ADMIN_CREATE_SRQ		= 0x28,
	ORNIC_ADMIN_MODIFY_SRQ		= 0x29,
	ORNIC_ADMIN_DESTROY_SRQ		= 0x2a,
	ORNIC_ADMIN_RESIZE_SRQ		= 0x2b,	/* ORNIC_CAP_RESIZE */
	ORNIC_ADMIN_CREATE_AH		= 0x30,
	ORNIC_ADMIN_DESTROY_AH		= 0x31,
	ORNIC_ADMIN_ADD_GID		= 0x38,
	ORNIC_ADMIN_DEL_GID		= 0x39,
	ORNIC_ADMIN_ATTACH_MCAST	= 0x3a,	/* ORNIC_CAP_MCAST */
	ORNIC_ADMIN_DETACH_MCAST	= 0x3b,	/* ORNIC_CAP_MCAST */
	ORNIC_ADMIN_ETH_CREATE_TX_RING	= 0x40,
	ORNIC_ADMIN_ETH_CREATE_RX_RING	= 0x41,
	ORNIC_ADMIN_ETH_DESTROY_RING	= 0x42,
	ORNIC_ADMIN_ETH_SET_MAC		= 0x43,
	ORNIC_ADMIN_ETH_SET_MTU		= 0x44,
	ORNIC_ADMIN_ODP_INVALIDATE	= 0x48,	/* ORNIC_CAP_ODP */
	ORNIC_ADMIN_ODP_RESUME		= 0x49,	/* ORNIC_CAP_ODP */
	ORNIC_ADMIN_CC_CONFIG		= 0x4a,	/* ORNIC_CAP_CC */
	ORNIC_ADMIN_MAD_IFC		= 0x4c,	/* ORNIC_CAP_IB */
	ORNIC_ADMIN_MODIFY_PORT		= 0x4d,	/* ORNIC_CAP_IB */
	ORNIC_ADMIN_SET_PORT_QOS	= 0x4e,	/* ORNIC_CAP_DCB */
	ORNIC_ADMIN_QUERY_PORT_QOS	= 0x4f,	/* ORNIC_CAP_DCB */
	ORNIC_ADMIN_IW_LISTEN		= 0x50,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_UNLISTEN		= 0x51,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_CONNECT		= 0x52,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_ACCEPT		= 0x53,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_REJECT		= 0x54,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_DISCONNECT	= 0x55,	/* ORNIC_CAP_IWARP */
	ORNIC_ADMIN_IW_QUERY_CONN	= 0x56,	/* ORNIC_CAP_IWARP */
};

enum ornic_admin_status {
	ORNIC_ADMIN_STATUS_SUCCESS		= 0x00,
	ORNIC_ADMIN_STATUS_BAD_OPCODE		= 0x01,
	ORNIC_ADMIN_STATUS_BAD_FIELD		= 0x02, /* incl. reserved != 0 */
	ORNIC_ADMIN_STATUS_BAD_HANDLE		= 0x03, /* no such object */
	ORNIC_ADMIN_STATUS_NO_RESOURCES		= 0x04, /* table full */
	ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED	= 0x05, /* above a device limit */
	ORNIC_ADMIN_STATUS_BUSY			= 0x06, /* object still in use */
	ORNIC_ADMIN_STATUS_BAD_DMA		= 0x07, /* host memory unreadable */
	ORNIC_ADMIN_STATUS_BAD_STATE		= 0x08, /* illegal transition */
	ORNIC_ADMIN_STATUS_PERMISSION		= 0x09, /* ownership violated */
	ORNIC_ADMIN_STATUS_BAD_ALIGNMENT	= 0x0a,
	ORNIC_ADMIN_STATUS_INTERNAL		= 0x0b,
};

/* Common first 8 bytes of every admin command. */
struct ornic_admin_hdr {
	__u8 opcode;		/* enum ornic_admin_opcode */
	__u8 flags;		/* must be 0 */
	__le16 command_id;	/* echoed in the completion */
	__le32 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_hdr, 8);

/* Generic view of a command: header plus 56 opcode-specific bytes. */
struct ornic_admin_sqe {
	struct ornic_admin_hdr hdr;
	__u8 body[56];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_sqe, ORNIC_AQ_SQE_SIZE);

#define ORNIC_AQ_CQE_FLAG_PHASE		ORNIC_BIT(0)

struct ornic_admin_cqe {
	__le16 command_id;
	__u8 status;		/* enum ornic_admin_status */
	__u8 reserved0;
	__le16 sq_head;		/* device SQ consumer index, low 16 bits */
	__u8 reserved1;
	__u8 flags;		/* ORNIC_AQ_CQE_FLAG_PHASE; written last */
	__le32 result0;		/* e.g. the handle of a created object */
	__le32 result1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_cqe, ORNIC_AQ_CQE_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_cqe, flags, 7);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_cqe, result0, 8);

/*
 * Commands that return more than two words write a response buffer in host
 * memory: resp_addr/resp_len.  resp_len must be >= the response size; the
 * device writes exactly the response size and returns it in result0.
 */

/* QUERY_DEVICE, QUERY_PORT */
struct ornic_admin_query {
	struct ornic_admin_hdr hdr;
	__le64 resp_addr;
	__le32 resp_len;
	__le32 reserved[11];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_query, 64);

enum ornic_atomic_cap {
	ORNIC_ATOMIC_NONE		= 0,
	ORNIC_ATOMIC_HCA		= 1,	/* atomic among this device */
	ORNIC_ATOMIC_GLOB		= 2,
};

struct ornic_device_attr {
	__le32 spec_version;		/* major << 16 | minor */
	__le32 reserved0;
	__le64 caps;			/* ORNIC_CAP_* */
	__le64 max_mr_size;
	__le64 page_size_cap;		/* bit n set: 2^n page size OK */
	__le32 max_qp;
	__le32 max_qp_wr;		/* SQ/RQ depth in basic blocks */
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_ah;
	__le32 max_eq;			/* includes the async EQ 0 */
	__le32 max_eqe;
	__le32 max_inline_data;
	__le32 max_msg_size;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_pages_per_mr;
	__le32 max_db_pages;
	__le32 max_eth_rings;
	__le32 max_wqe_blocks;		/* per WQE */
	__le32 num_comp_vectors;	/* MSI-X vectors 1..n */
	__u8 atomic_cap;		/* enum ornic_atomic_cap */
	__u8 local_ca_ack_delay;
	__u8 num_ports;			/* 1 */
	__u8 reserved1;
	__le32 max_fast_reg_pages;	/* ORNIC_CAP_FAST_REG page lists */
	__le32 max_mcast_grp;		/* ORNIC_CAP_MCAST: groups */
	__le32 max_mcast_qp_attach;	/* QPs attached to one group */
	__le32 max_total_mcast_qp_attach; /* attachments of all groups */
	__le32 reserved2[4];
	__be64 node_guid;		/* NodeInfo.NodeGUID (infiniband.rst) */
	__le32 reserved3[22];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_device_attr, 256);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, max_fast_reg_pages, 128);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, max_mcast_grp, 132);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, max_total_mcast_qp_attach, 140);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, max_qp, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, atomic_cap, 124);
ORNIC_HW_ASSERT_OFFSET(struct ornic_device_attr, node_guid, 160);

enum ornic_port_state {
	ORNIC_PORT_DOWN			= 1,	/* same values as IB port states */
	ORNIC_PORT_INIT			= 2,	/* IB ports only */
	ORNIC_PORT_ARMED		= 3,	/* IB ports only */
	ORNIC_PORT_ACTIVE		= 4,
};

/* P_Key table entries of an InfiniBand port (port_attr.pkey_tbl_len). */
#define ORNIC_IB_PKEY_TABLE_LEN		16

/* The port's link layer, fixed when the device starts. */
enum ornic_link_layer {
	ORNIC_LINK_LAYER_ETH		= 0,	/* RoCE (roce.rst) */
	ORNIC_LINK_LAYER_IB		= 1,	/* InfiniBand (infiniband.rst) */
	ORNIC_LINK_LAYER_IWARP		= 2,	/* iWARP on Ethernet (iwarp.rst) */
};

enum ornic_mtu {
	ORNIC_MTU_256			= 1,	/* same values as IB MTU enum */
	ORNIC_MTU_512			= 2,
	ORNIC_MTU_1024			= 3,
	ORNIC_MTU_2048			= 4,
	ORNIC_MTU_4096			= 5,
};

struct ornic_port_attr {
	__u8 state;			/* enum ornic_port_state */
	__u8 max_mtu;			/* enum ornic_mtu */
	__u8 active_mtu;		/* enum ornic_mtu */
	__u8 link_layer;		/* enum ornic_link_layer */
	__le32 speed_gbps;
	__le32 gid_tbl_len;
	__le32 pkey_tbl_len;		/* 1 on Ethernet; IB: P_Key table */
	__le32 eth_mtu;			/* current Ethernet MTU (bytes) */
	__le32 max_eth_mtu;
	__u8 mac[6];
	__le16 reserved1;
	__be64 port_guid;		/* IB: PortInfo's GUID, GUIDInfo 0 */
	__le32 reserved2[6];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_port_attr, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_attr, link_layer, 3);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_attr, port_guid, 32);

/* QUERY_COUNTERS (spec: counters.rst) */
enum ornic_counter_scope {
	ORNIC_COUNTER_SCOPE_DEVICE	= 0,	/* ornic_device_counters */
	ORNIC_COUNTER_SCOPE_QP		= 1,	/* ornic_qp_counters */
};

struct ornic_admin_query_counters {
	struct ornic_admin_hdr hdr;
	__le64 resp_addr;
	__le32 resp_len;
	__u8 scope;			/* enum ornic_counter_scope */
	__u8 reserved0[3];
	__le32 handle;			/* QPN for SCOPE_QP */
	__le32 reserved1[9];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_query_counters, 64);

/*
 * Device counters: ornic_device_counters.counter[ORNIC_CNT_*].  New counters
 * are appended; num_counters says how many this device fills.
 */
enum ornic_counter_id {
	ORNIC_CNT_ADMIN_COMMANDS	= 0,
	ORNIC_CNT_ADMIN_ERRORS		= 1,	/* any status != SUCCESS */
	ORNIC_CNT_ADMIN_BAD_OPCODE	= 2,
	ORNIC_CNT_ADMIN_BAD_FIELD	= 3,
	ORNIC_CNT_ADMIN_BAD_HANDLE	= 4,
	ORNIC_CNT_ADMIN_NO_RESOURCES	= 5,
	ORNIC_CNT_ADMIN_BAD_DMA		= 6,
	ORNIC_CNT_DB_WRITES		= 7,
	ORNIC_CNT_DB_FOREIGN_PAGE	= 8,	/* page does not own the queue */
	ORNIC_CNT_DB_BAD_QUEUE		= 9,	/* no such queue */
	ORNIC_CNT_DB_BAD_INDEX		= 10,	/* index beyond the ring */
	ORNIC_CNT_DB_BAD_OFFSET		= 11,	/* unknown offset / size */
	ORNIC_CNT_DB_UNALLOCATED_PAGE	= 12,
	ORNIC_CNT_REG_BAD_ACCESS	= 13,	/* BAR0 bad offset / size */
	ORNIC_CNT_DMA_ERRORS		= 14,	/* any failed DMA */
	ORNIC_CNT_EQ_OVERFLOW		= 15,
	ORNIC_CNT_CQ_OVERFLOW		= 16,
	ORNIC_CNT_EQES			= 17,
	ORNIC_CNT_CQES			= 18,
	ORNIC_CNT_INTERRUPTS		= 19,
	ORNIC_CNT_ETH_TX_FRAMES		= 20,
	ORNIC_CNT_ETH_TX_BYTES		= 21,
	ORNIC_CNT_ETH_TX_ERRORS		= 22,	/* bad descriptor / DMA */
	ORNIC_CNT_ETH_TX_LINK_DOWN	= 23,
	ORNIC_CNT_ETH_RX_FRAMES		= 24,
	ORNIC_CNT_ETH_RX_BYTES		= 25,
	ORNIC_CNT_ETH_RX_NO_BUFFER	= 26,
	ORNIC_CNT_ETH_RX_FILTERED	= 27,	/* not for our MAC */
	ORNIC_CNT_ETH_RX_TOO_LONG	= 28,	/* longer than buffer or MTU */
	ORNIC_CNT_ETH_RX_ERRORS		= 29,	/* bad descriptor / DMA */
	ORNIC_CNT_WQE_ERRORS		= 30,	/* bad WQE -> error CQE */
	ORNIC_CNT_RX_RDMA_PACKETS	= 31,
	ORNIC_CNT_RX_BAD_ICRC		= 32,
	ORNIC_CNT_RX_BAD_HEADER		= 33,
	ORNIC_CNT_RX_UNKNOWN_QP		= 34,
	ORNIC_CNT_RX_PSN_ERRORS		= 35,
	ORNIC_CNT_TX_RDMA_PACKETS	= 36,
	ORNIC_CNT_NAKS_SENT		= 37,
	ORNIC_CNT_NAKS_RECEIVED		= 38,
	ORNIC_CNT_RETRANSMITS		= 39,
	ORNIC_CNT_RNR_NAKS		= 40,
	ORNIC_CNT_TIMEOUTS		= 41,
	ORNIC_CNT_RX_QKEY_ERRORS	= 42,	/* UD: Q_Key mismatch, dropped */
	ORNIC_CNT_RX_UD_NO_RECV		= 43,	/* UD: no receive WQE, dropped */
	ORNIC_CNT_TX_RDMA_BYTES		= 44,	/* frame bytes, loopback incl. */
	ORNIC_CNT_RX_RDMA_BYTES		= 45,
	ORNIC_CNT_RX_MCAST_DELIVERED	= 46,	/* copies to attached UD QPs */
	ORNIC_CNT_RX_MCAST_NO_GROUP	= 47,	/* no QP attached: dropped */
	ORNIC_CNT_ODP_REQ_FAULTS	= 48,	/* requester stalled on a page */
	ORNIC_CNT_ODP_RESP_FAULTS	= 49,	/* responder: RNR NAK / UD drop */
	ORNIC_CNT_ODP_INVALIDATIONS	= 50,	/* ODP_INVALIDATE commands */
	ORNIC_CNT_ODP_ERRORS		= 51,	/* ERROR entry or table DMA */
	ORNIC_CNT_RX_UC_NO_RECV		= 52,	/* UC: no receive WQE, msg dropped */
	ORNIC_CNT_RX_UC_DROPPED		= 53,	/* UC: msg cut short or refused */
	ORNIC_CNT_RX_PEER_MISMATCH	= 54,	/* RC/UC/XRC: not from the peer */
	/* 55..57: not assigned */
	ORNIC_CNT_DB_WQ_WRITES		= 55,	/* SQ/RQ/SRQ doorbell writes */
	ORNIC_CNT_DB_RECORD_ERRORS	= 56,	/* record unreadable / bad index */
	ORNIC_CNT_CC_CE_RECEIVED	= 57,	/* RoCEv2 packets with ECN CE */
	ORNIC_CNT_CC_CNPS_SENT		= 58,	/* notification point */
	ORNIC_CNT_CC_CNPS_HANDLED	= 59,	/* reaction point */
	/* InfiniBand ports (infiniband.rst) */
	ORNIC_CNT_RX_BAD_VCRC		= 60,	/* variant CRC wrong: dropped */
	ORNIC_CNT_RX_BAD_LRH		= 61,	/* LRH/GRH malformed: dropped */
	ORNIC_CNT_RX_WRONG_DLID		= 62,	/* DLID not this port's */
	ORNIC_CNT_RX_VL15_DROPPED	= 63,	/* VL15 not for a ready SMI QP */
	ORNIC_CNT_RX_PKEY_ERRORS	= 64,	/* P_Key does not admit it */
	ORNIC_CNT_RX_PORT_NOT_ACTIVE	= 65,	/* data VL while not Active */
	ORNIC_CNT_TX_PORT_NOT_ACTIVE	= 66,	/* not sent: not Active */
	/* iWARP ports (iwarp-cm.rst) */
	ORNIC_CNT_IW_TCP_RX_FRAMES	= 67,	/* taken by the device's TCP */
	ORNIC_CNT_IW_TCP_TX_FRAMES	= 68,	/* sent by the device's TCP */
	ORNIC_CNT_IW_CONN_REFUSED	= 69,	/* SYN answered with RST */
	ORNIC_CNT_IW_MPA_ERRORS		= 70,	/* MPA frame refused, timed out */
	ORNIC_CNT_IW_RX_BAD_FPDU	= 71,	/* CRC or length wrong */
	ORNIC_CNT_IW_RX_BAD_SEGMENT	= 72,	/* DDP/RDMAP header malformed */
	ORNIC_CNT_IW_TERMINATES_SENT	= 73,
	ORNIC_CNT_IW_TERMINATES_RECEIVED = 74,
	ORNIC_CNT_IW_RX_DROPPED_BYTES	= 75,	/* no QP in RTS to take them */
	ORNIC_CNT_COUNT			= 76,
};

#define ORNIC_DEVICE_COUNTERS_MAX	126

struct ornic_device_counters {
	__le32 num_counters;		/* ORNIC_CNT_COUNT of this device */
	__le32 reserved;
	__le64 counter[ORNIC_DEVICE_COUNTERS_MAX + 1];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_device_counters, 1024);

struct ornic_qp_counters {
	__le64 send_wqes;
	__le64 recv_wqes;
	__le64 send_bytes;
	__le64 recv_bytes;
	__le64 wqe_errors;
	__le64 db_foreign_page;		/* doorbells ignored for ownership */
	__le64 db_bad_index;
	__le64 packets_sent;
	__le64 packets_received;
	__le64 retransmits;
	__le64 naks_received;
	__le64 naks_sent;
	__le64 rnr_naks;
	__le64 timeouts;
	__le64 cc_rate_mbps;		/* DCQCN current rate, 0 = unlimited */
	__le64 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_qp_counters, 128);

/* ALLOC_DB_PAGE: no body; result0 = page index (1..DB_PAGES-1). */
/* FREE_DB_PAGE, DEALLOC_PD, DESTROY_*: one handle. */
struct ornic_admin_destroy {
	struct ornic_admin_hdr hdr;
	__le32 handle;
	__le32 reserved[13];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_destroy, 64);

/* CREATE_EQ: result0 = EQN (1..max_eq-1; EQ 0 is the async EQ). */
struct ornic_admin_create_eq {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;
	__u8 log_depth;			/* entries = 1 << log_depth */
	__u8 reserved0;
	__le16 msix_vector;		/* 1..MSIX_VECTORS-1 */
	__le32 reserved1[9];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_eq, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_eq, log_depth, 24);

/*
 * CREATE_CQ flags.  TIMESTAMP (ORNIC_CAP_CQE_TIMESTAMP): the ring holds
 * 64-byte struct ornic_cqe_ts entries carrying the device clock.
 * DB_RECORD (ORNIC_CAP_CQ_DB_RECORD): the ring's memory ends with a struct
 * ornic_cq_db_record.
 */
#define ORNIC_CQ_FLAG_TIMESTAMP		ORNIC_BIT(0)
#define ORNIC_CQ_FLAG_DB_RECORD		ORNIC_BIT(1)

/* CREATE_CQ: result0 = CQN (>= 1). */
struct ornic_admin_create_cq {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;
	__le32 eqn;
	__le16 db_page;
	__u8 log_depth;			/* CQEs = 1 << log_depth */
	__u8 flags;			/* ORNIC_CQ_FLAG_* */
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_cq, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_cq, eqn, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_cq, flags, 31);

/*
 * RESIZE_CQ (ORNIC_CAP_RESIZE): the CQ moves to the ring in mem.  The
 * CQEs from consumer (software's consumer index) to the producer are
 * copied to slots 0.. of the new ring with the phase of their new index;
 * the CQ continues with consumer index 0.  result0 = CQEs moved.
 */
struct ornic_admin_resize_cq {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;	/* the new ring, zeroed by software */
	__le32 cqn;
	__le32 consumer;		/* software's consumer index */
	__u8 log_depth;			/* new depth: CQEs = 1 << log_depth */
	__u8 reserved0[3];
	__le32 reserved1[7];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_resize_cq, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_resize_cq, cqn, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_resize_cq, consumer, 28);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_resize_cq, log_depth, 32);

/* ALLOC_PD: no body; result0 = PDN (>= 1). */

/* Memory regions (spec: memory.rst).  Access flags = IB access flag values. */
#define ORNIC_ACCESS_LOCAL_WRITE	ORNIC_BIT(0)
#define ORNIC_ACCESS_REMOTE_WRITE	ORNIC_BIT(1)
#define ORNIC_ACCESS_REMOTE_READ	ORNIC_BIT(2)
#define ORNIC_ACCESS_REMOTE_ATOMIC	ORNIC_BIT(3)
/* Remote FLUSH of each placement type (ORNIC_CAP_FLUSH, IBTA 1.5). */
#define ORNIC_ACCESS_FLUSH_GLOBAL	ORNIC_BIT(8)
#define ORNIC_ACCESS_FLUSH_PERSISTENT	ORNIC_BIT(9)
#define ORNIC_ACCESS_FLUSH		(ORNIC_ACCESS_FLUSH_GLOBAL | \
					 ORNIC_ACCESS_FLUSH_PERSISTENT)
#define ORNIC_ACCESS_ALL		(0x0fU | ORNIC_ACCESS_FLUSH)
/* MR only (ORNIC_CAP_MW): memory windows may be bound to the MR. */
#define ORNIC_ACCESS_MW_BIND		ORNIC_BIT(4)

/*
 * REG_MR only (ORNIC_CAP_ODP): an on-demand-paging MR.  mem describes its
 * page table (struct ornic_odp_pte entries) instead of a page list; the
 * table stays in host memory, owned by the driver, and the device reads the
 * entry of every page it touches.
 */
#define ORNIC_ACCESS_ON_DEMAND		ORNIC_BIT(6)

/*
 * ODP page table entry (spec: memory.rst, "On-demand paging"): one __le64
 * per page of the MR.  Without VALID (or without WRITE for a write) an
 * access is a page fault; ERROR makes it an access error.
 */
#define ORNIC_ODP_PTE_VALID		ORNIC_BIT_ULL(0)
#define ORNIC_ODP_PTE_WRITE		ORNIC_BIT_ULL(1)
#define ORNIC_ODP_PTE_ERROR		ORNIC_BIT_ULL(2)
#define ORNIC_ODP_PTE_ADDR_MASK		(~0xfffULL)

/* ODP_INVALIDATE: result0 = 0.  Returns when the device no longer uses
 * pages [first_page, first_page + num_pages) of the ODP MR @key.
 */
struct ornic_admin_odp_invalidate {
	struct ornic_admin_hdr hdr;
	__le32 key;
	__le32 first_page;		/* page index within the MR */
	__le32 num_pages;		/* >= 1 */
	__le32 reserved[11];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_odp_invalidate, 64);

/* ODP_RESUME: a requester stalled on a page fault tries again. */
struct ornic_admin_odp_resume {
	struct ornic_admin_hdr hdr;
	__le32 qpn;
	__le32 reserved[13];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_odp_resume, 64);

/*
 * CC_CONFIG (ORNIC_CAP_CC; spec: roce.rst, "Congestion control"): QUERY
 * writes the device's struct ornic_cc_params to params_addr, SET reads it
 * from there and applies it whole (BAD_FIELD, nothing changed, if any field
 * is out of range).  params_len >= sizeof(struct ornic_cc_params).
 */
enum ornic_cc_config_op {
	ORNIC_CC_CONFIG_QUERY		= 0,
	ORNIC_CC_CONFIG_SET		= 1,
};

struct ornic_admin_cc_config {
	struct ornic_admin_hdr hdr;
	__le64 params_addr;
	__le32 params_len;
	__u8 op;			/* enum ornic_cc_config_op */
	__u8 reserved0[3];
	__le32 reserved1[10];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_cc_config, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_cc_config, op, 20);

#define ORNIC_CC_FLAG_NP_ENABLE		ORNIC_BIT(0) /* send CNPs on CE */
#define ORNIC_CC_FLAG_RP_ENABLE		ORNIC_BIT(1) /* DCQCN on CNPs */
#define ORNIC_CC_FLAGS_ALL		(ORNIC_CC_FLAG_NP_ENABLE | ORNIC_CC_FLAG_RP_ENABLE)

/* ECN field of every RoCEv2 packet the device sends (CNPs excepted). */
enum ornic_cc_ect {
	ORNIC_CC_ECT_AV			= 0,	/* the AV's traffic class as is */
	ORNIC_CC_ECT_1			= 1,
	ORNIC_CC_ECT_0			= 2,
};

#define ORNIC_CC_MAX_RATE_MBPS		400000U
#define ORNIC_CC_MAX_TIME_US		1000000U
#define ORNIC_CC_MAX_THRESHOLD		31U
#define ORNIC_CC_MAX_GD			15U
#define ORNIC_CC_ALPHA_ONE		1024U	/* alpha and g in 1/1024 */

/* Rates in Mbit/s, times in microseconds (the mlx5 cc_params names). */
struct ornic_cc_params {
	__le32 flags;			/* ORNIC_CC_FLAG_* */
	__u8 ect;			/* enum ornic_cc_ect */
	__u8 np_cnp_dscp;		/* 0..63 */
	__le16 reserved0;
	__le32 np_min_time_between_cnps; /* per QP, 0..MAX_TIME_US */
	__le32 rp_max_rate;		/* 1..MAX_RATE_MBPS: unlimited rate */
	__le32 rp_min_rate;		/* 1..rp_max_rate */
	__le32 rp_ai_rate;		/* 0..rp_max_rate */
	__le32 rp_hai_rate;		/* 0..rp_max_rate */
	__le32 rp_byte_reset;		/* bytes per stage, 0 = no byte counter */
	__le32 rp_time_reset;		/* 1..MAX_TIME_US per stage */
	__le32 rp_threshold;		/* F: 1..MAX_THRESHOLD stages */
	__le32 rp_gd;			/* cut by alpha / 2^gd, 0..MAX_GD */
	__le32 rp_initial_alpha_value;	/* 0..ALPHA_ONE */
	__le32 rp_dce_tcp_g;		/* 0..ALPHA_ONE */
	__le32 rp_dce_tcp_rtt;		/* alpha period, 1..MAX_TIME_US */
	__le32 rp_rate_reduce_monitor_period; /* 0..MAX_TIME_US */
	__le32 reserved1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_cc_params, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cc_params, rp_max_rate, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cc_params, rp_rate_reduce_monitor_period, 56);

/*
 * MAD_IFC (ORNIC_CAP_IB; spec: infiniband.rst, "Management agents"): one
 * 256-byte MAD for the device's SMA or PMA.  The device reads the MAD at
 * in_addr and, when it answers, writes the 256-byte response to out_addr.
 * The status of the command is about the command; what the agent thinks of
 * the MAD (unsupported attribute, bad M_Key) is in the response MAD or in
 * the absence of one.  result0 = enum ornic_mad_ifc_result.
 */
#define ORNIC_MAD_SIZE			256

/* The MAD comes from the driver itself: no M_Key check (query_port etc.). */
#define ORNIC_MAD_IFC_FLAG_IGNORE_MKEY	ORNIC_BIT(0)
/* slid..dlid_path_bits describe how the MAD arrived (a work completion). */
#define ORNIC_MAD_IFC_FLAG_HAS_WC	ORNIC_BIT(1)
#define ORNIC_MAD_IFC_FLAGS_ALL		0x03U

enum ornic_mad_ifc_result {
	ORNIC_MAD_IFC_NOT_HANDLED	= 0,	/* not for the device's agents */
	ORNIC_MAD_IFC_REPLY		= 1,	/* response written to out_addr */
	ORNIC_MAD_IFC_CONSUMED		= 2,	/* taken, and no response is due */
};

struct ornic_admin_mad_ifc {
	struct ornic_admin_hdr hdr;
	__le64 in_addr;			/* ORNIC_MAD_SIZE bytes */
	__le64 out_addr;		/* ORNIC_MAD_SIZE bytes */
	__le32 flags;			/* ORNIC_MAD_IFC_FLAG_* */
	__le32 src_qp;			/* HAS_WC: source QP (24 bits) */
	__le16 slid;			/* HAS_WC: LRH source LID */
	__le16 pkey_index;		/* HAS_WC: P_Key index of the MAD */
	__u8 sl;			/* HAS_WC: service level */
	__u8 dlid_path_bits;		/* HAS_WC */
	__u8 port;			/* 1 */
	__u8 reserved0;
	__le32 reserved1[5];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_mad_ifc, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_mad_ifc, flags, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_mad_ifc, slid, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_mad_ifc, port, 38);

/*
 * MODIFY_PORT (ORNIC_CAP_IB; spec: infiniband.rst): software's part of
 * PortInfo.CapabilityMask (bits in ORNIC_PORT_CAP_SW_MASK: IsSM, IsCM, ...)
 * and the Q_Key violation counter.  Bits set in both masks, or outside
 * ORNIC_PORT_CAP_SW_MASK, are BAD_FIELD.
 */
/*
 * IsSM, IsSMDisabled, IsCM, IsSNMPTunneling, IsDeviceManagement,
 * IsVendorClass, IsBootManagement (PortInfo bit numbers, as IB_PORT_*).
 */
#define ORNIC_PORT_CAP_SW_MASK		0x009b0402U
#define ORNIC_MODIFY_PORT_RESET_QKEY_CNTR ORNIC_BIT(0)

struct ornic_admin_modify_port {
	struct ornic_admin_hdr hdr;
	__le32 set_cap_mask;		/* PortInfo.CapabilityMask bits to set */
	__le32 clr_cap_mask;		/* ... and to clear */
	__le32 flags;			/* ORNIC_MODIFY_PORT_* */
	__u8 port;			/* 1 */
	__u8 reserved0[3];
	__le32 reserved1[10];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_modify_port, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_modify_port, port, 20);

/*
 * SET_PORT_QOS / QUERY_PORT_QOS (ORNIC_CAP_DCB; spec: ethernet.rst,
 * "Priorities and lossless Ethernet").  SET reads a struct ornic_port_qos
 * from addr (len >= its size) and applies it whole; any field out of range,
 * or reserved bytes not 0, is BAD_FIELD and changes nothing.  QUERY writes a
 * struct ornic_port_qos_query to addr (len >= its size) and returns its size
 * in result0.  Reset restores the defaults: no PFC, every priority in TC 0,
 * every TC strict priority with bandwidth 0, no DSCP mapping.
 */
#define ORNIC_QOS_NUM_PRIO		8
#define ORNIC_QOS_NUM_TC		8
#define ORNIC_QOS_NUM_DSCP		64

/* Transmission selection of a traffic class (the IEEE 802.1Qaz numbers). */
enum ornic_qos_tsa {
	ORNIC_QOS_TSA_STRICT		= 0,
	ORNIC_QOS_TSA_ETS		= 2,
};

struct ornic_admin_port_qos {
	struct ornic_admin_hdr hdr;
	__le64 addr;			/* ornic_port_qos / ornic_port_qos_query */
	__le32 len;
	__le32 reserved[11];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_port_qos, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_port_qos, len, 16);

struct ornic_port_qos {
	__u8 pfc_enable;		/* bit n: PFC on priority n */
	__u8 reserved0[7];
	__u8 prio_tc[ORNIC_QOS_NUM_PRIO];	/* traffic class 0..7 */
	/* Percent; the ETS classes' sum to 100, strict classes' ignored. */
	__u8 tc_bw[ORNIC_QOS_NUM_TC];
	__u8 tc_tsa[ORNIC_QOS_NUM_TC];	/* enum ornic_qos_tsa */
	__le64 dscp_valid;		/* bit n: dscp_prio[n] maps DSCP n */
	__u8 dscp_prio[ORNIC_QOS_NUM_DSCP];	/* priority 0..7; 0 if !valid */
	__le32 reserved1[6];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_port_qos, 128);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, prio_tc, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, tc_bw, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, tc_tsa, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, dscp_valid, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, dscp_prio, 40);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos, reserved1, 104);

/*
 * One priority's counters.  A frame's priority is its 802.1Q PCP when
 * tagged, else for IPv4/IPv6 its DSCP's through dscp_prio, else 0.  Pause
 * durations are in microseconds.
 */
struct ornic_prio_counters {
	__le64 tx_frames;
	__le64 tx_bytes;
	__le64 rx_frames;
	__le64 rx_bytes;
	__le64 tx_pause;		/* PFC frames sent pausing this priority */
	__le64 rx_pause;		/* PFC frames received pausing it */
	__le64 tx_pause_duration;
	__le64 rx_pause_duration;
	__le64 rx_pause_transitions;	/* paused -> not paused */
	__le64 tx_discards;
	__le64 rx_discards;
	__le64 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_prio_counters, 96);
ORNIC_HW_ASSERT_OFFSET(struct ornic_prio_counters, tx_pause, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_prio_counters, rx_discards, 80);

struct ornic_port_qos_query {
	struct ornic_port_qos config;
	struct ornic_prio_counters prio[ORNIC_QOS_NUM_PRIO];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_port_qos_query, 896);
ORNIC_HW_ASSERT_OFFSET(struct ornic_port_qos_query, prio, 128);

/*
 * iWARP connection management (ORNIC_CAP_IWARP; spec: iwarp-cm.rst).  The
 * device runs TCP and the MPA exchange of every connection; software names
 * listeners by the id IW_LISTEN returns and connections by a connection id:
 * its own for IW_CONNECT (1..ORNIC_IW_CONN_ID_DEVICE - 1), the device's
 * (ORNIC_IW_CONN_ID_DEVICE set) for one a listener accepted.  Addresses are
 * IPv4 in network order; ports, IRD, ORD and lengths are little-endian.
 */
#define ORNIC_IW_MAX_LISTENERS		64
#define ORNIC_IW_MAX_CONNS		1024
#define ORNIC_IW_MAX_BACKLOG		256
#define ORNIC_IW_MAX_ADDRS		16	/* local IPv4 addresses in use */
#define ORNIC_IW_MAX_PRIVATE_DATA	512
#define ORNIC_IW_MAX_IRD_ORD		128
#define ORNIC_IW_CONN_ID_DEVICE		ORNIC_BIT(31)

/* result0 = listener id (1..ORNIC_IW_MAX_LISTENERS). */
struct ornic_admin_iw_listen {
	struct ornic_admin_hdr hdr;
	__u8 ip[4];			/* local address, not 0.0.0.0 */
	__le16 port;			/* TCP port, not 0 */
	__le16 backlog;			/* 1..ORNIC_IW_MAX_BACKLOG */
	__le32 reserved[12];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_iw_listen, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_listen, port, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_listen, backlog, 14);

/*
 * IW_UNLISTEN, IW_REJECT, IW_DISCONNECT and IW_QUERY_CONN name one object;
 * the fields a command does not use are reserved.
 */
#define ORNIC_IW_DISCONNECT_ABRUPT	ORNIC_BIT(0)	/* RST instead of FIN */

struct ornic_admin_iw_conn_cmd {
	struct ornic_admin_hdr hdr;
	__le32 id;			/* listener id (UNLISTEN), else conn id */
	__le32 flags;			/* DISCONNECT: ORNIC_IW_DISCONNECT_* */
	__le64 addr;			/* REJECT: private data; QUERY: attr */
	__le32 len;			/* REJECT: <= 512; QUERY: >= attr size */
	__le32 reserved[9];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_iw_conn_cmd, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_conn_cmd, addr, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_conn_cmd, len, 24);

struct ornic_iw_tuple {
	__u8 local_ip[4];
	__u8 remote_ip[4];
	__le16 local_port;
	__le16 remote_port;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_iw_tuple, 12);

/* Markers are never offered: no flag asks for them. */
#define ORNIC_IW_CONNECT_CRC		ORNIC_BIT(0)	/* ask for MPA CRCs */

struct ornic_admin_iw_connect {
	struct ornic_admin_hdr hdr;
	__le32 conn_id;			/* 1..ORNIC_IW_CONN_ID_DEVICE - 1 */
	__le32 qpn;
	struct ornic_iw_tuple tuple;	/* every field set */
	__u8 next_hop_mac[6];		/* unicast */
	__u8 tos;
	__u8 ttl;			/* 0: 64 */
	__u8 mpa_rev;			/* 1 or 2 */
	__u8 flags;			/* ORNIC_IW_CONNECT_* */
	__le16 pdata_len;		/* <= 512 (508 with revision 2) */
	__le16 ird;			/* <= ORNIC_IW_MAX_IRD_ORD */
	__le16 ord;			/* <= ORNIC_IW_MAX_IRD_ORD */
	__le32 reserved0;
	__le64 pdata_addr;
	__le64 reserved1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_iw_connect, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_connect, tuple, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_connect, next_hop_mac, 28);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_connect, mpa_rev, 36);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_connect, pdata_len, 38);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_connect, pdata_addr, 48);

#define ORNIC_IW_ACCEPT_CRC		ORNIC_BIT(0)	/* ask for MPA CRCs */

struct ornic_admin_iw_accept {
	struct ornic_admin_hdr hdr;
	__le32 conn_id;			/* from a CONN_REQUEST event */
	__le32 qpn;
	__le16 ird;			/* <= ORNIC_IW_MAX_IRD_ORD */
	__le16 ord;			/* <= ORNIC_IW_MAX_IRD_ORD */
	__le16 pdata_len;		/* <= 512 (508 with revision 2) */
	__u8 flags;			/* ORNIC_IW_ACCEPT_* */
	__u8 reserved0;
	__le64 pdata_addr;
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_iw_accept, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_accept, pdata_len, 20);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_iw_accept, pdata_addr, 24);

enum ornic_iw_conn_state {
	ORNIC_IW_CONN_CONNECTING	= 1,	/* TCP handshake */
	ORNIC_IW_CONN_MPA_REQ_SENT	= 2,	/* waiting for the MPA reply */
	ORNIC_IW_CONN_MPA_REQ_RCVD	= 3,	/* waiting for ACCEPT/REJECT */
	ORNIC_IW_CONN_ESTABLISHED	= 4,
	ORNIC_IW_CONN_PEER_CLOSED	= 5,	/* FIN received */
	ORNIC_IW_CONN_CLOSED		= 6,	/* TCP gone; id not yet freed */
};

#define ORNIC_IW_CONN_FLAG_CRC		ORNIC_BIT(0)	/* FPDUs carry CRCs */
#define ORNIC_IW_CONN_FLAG_ACTIVE	ORNIC_BIT(1)	/* IW_CONNECT's */

/* IW_QUERY_CONN writes this to addr; result0 = its size. */
struct ornic_iw_conn_attr {
	struct ornic_iw_tuple tuple;
	__u8 state;			/* enum ornic_iw_conn_state */
	__u8 mpa_rev;			/* the request's; the reply's once in */
	__u8 flags;			/* ORNIC_IW_CONN_FLAG_* */
	__u8 reserved0;
	__le16 ird;			/* ours, as sent in the MPA frame */
	__le16 ord;
	__le16 peer_ird;		/* the peer's (revision 2 enhanced) */
	__le16 peer_ord;
	__le32 qpn;			/* 0 before ACCEPT */
	__le32 listener_id;		/* 0 for IW_CONNECT's */
	__le16 pdata_len;		/* the peer's private data */
	__le16 reserved1;
	__le32 reserved2[7];
	__u8 pdata[ORNIC_IW_MAX_PRIVATE_DATA];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_iw_conn_attr, 576);
ORNIC_HW_ASSERT_OFFSET(struct ornic_iw_conn_attr, state, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_iw_conn_attr, ird, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_iw_conn_attr, qpn, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_iw_conn_attr, pdata_len, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_iw_conn_attr, pdata, 64);

/* REG_MR flags */
#define ORNIC_MR_FLAG_PHYSICAL		ORNIC_BIT(0) /* iova = DMA address */
/*
 * A fast-registration MR (ORNIC_CAP_FAST_REG): created FREE, without pages
 * or access; mem.num_pages is its capacity and every other field of mem,
 * iova, length, access and first_page_offset are 0.  REG_MR WQEs fill it.
 */
#define ORNIC_MR_FLAG_FAST_REG		ORNIC_BIT(1)

#define ORNIC_MR_KEY_INDEX_SHIFT	8
#define ORNIC_MR_KEY_VARIANT_MASK	0xffU
#define ORNIC_MR_KEY(index, variant) \
	(((__u32)(index) << ORNIC_MR_KEY_INDEX_SHIFT) | \
	 ((__u32)(variant) & ORNIC_MR_KEY_VARIANT_MASK))

/*
 * REG_MR: result0 = key (index << 8 | variant), lkey == rkey.  The device
 * draws the variant at random (key_variant is ignored).
 */
struct ornic_admin_reg_mr {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;	/* ignored with MR_FLAG_PHYSICAL */
	__le64 iova;
	__le64 length;
	__le32 pd;
	__le32 access;			/* ORNIC_ACCESS_* */
	__u8 key_variant;
	__u8 flags;			/* ORNIC_MR_FLAG_* */
	__le16 reserved0;
	__le32 first_page_offset;	/* iova - page-aligned start */
	__le32 reserved1[2];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_reg_mr, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_reg_mr, iova, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_reg_mr, key_variant, 48);

/* Memory windows (spec: memory.rst, "Memory windows"; ORNIC_CAP_MW). */
enum ornic_mw_type {
	ORNIC_MW_TYPE_1			= 1,	/* bound by ibv_bind_mw */
	ORNIC_MW_TYPE_2			= 2,	/* type 2B: bound by a WQE */
};

/*
 * ALLOC_MW: result0 = key (index << 8 | a variant the device draws at random;
 * key_variant is ignored), in the same key space
 * as MR keys.  The window starts FREE (unbound).  DEALLOC_MW takes a
 * struct ornic_admin_destroy whose handle is the key (index compared only).
 */
struct ornic_admin_alloc_mw {
	struct ornic_admin_hdr hdr;
	__le32 pd;
	__u8 type;			/* enum ornic_mw_type */
	__u8 key_variant;
	__le16 reserved0;
	__le32 reserved1[12];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_alloc_mw, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_alloc_mw, type, 12);
/* REREG_MR flags: what changes (any combination, at least one). */
#define ORNIC_REREG_MR_TRANSLATION	ORNIC_BIT(0) /* mem, iova, length */
#define ORNIC_REREG_MR_PD		ORNIC_BIT(1)
#define ORNIC_REREG_MR_ACCESS		ORNIC_BIT(2)
#define ORNIC_REREG_MR_ALL		0x07U

/*
 * REREG_MR (ORNIC_CAP_RESIZE): changes the translation, PD and/or access
 * of an existing MR in one step; fields of parts not selected by flags are
 * 0.  The key (index and variant) stays.  result0 = key.
 */
struct ornic_admin_rereg_mr {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;	/* TRANSLATION: the new page list */
	__le64 iova;			/* TRANSLATION */
	__le64 length;			/* TRANSLATION */
	__le32 pd;			/* PD */
	__le32 access;			/* ACCESS: ORNIC_ACCESS_* */
	__le32 key;			/* the MR */
	__le32 first_page_offset;	/* TRANSLATION */
	__u8 flags;			/* ORNIC_REREG_MR_* */
	__u8 reserved0[3];
	__le32 reserved1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_rereg_mr, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_rereg_mr, iova, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_rereg_mr, key, 48);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_rereg_mr, flags, 56);

/* Queue pairs (spec: qp.rst) */
enum ornic_qp_type {
	ORNIC_QPT_RC			= 1,
	ORNIC_QPT_UD			= 2,
	ORNIC_QPT_GSI			= 3,	/* QPN 1, UD semantics */
	ORNIC_QPT_UC			= 4,	/* ORNIC_CAP_UC */
	/* ORNIC_CAP_XRC (spec: xrc.rst): the send and the receive side of XRC */
	ORNIC_QPT_XRC_INI		= 5,	/* initiator: SQ only */
	ORNIC_QPT_XRC_TGT		= 6,	/* target: no queues, an XRCD */
	/* ORNIC_CAP_IB (spec: infiniband.rst): QPN 0, VL15, UD semantics */
	ORNIC_QPT_SMI			= 7,
};

#define ORNIC_QP_FLAG_USE_SRQ		ORNIC_BIT(0)
/* ORNIC_CAP_DB_RECORD: the SQ and RQ rings end with a doorbell record. */
#define ORNIC_QP_FLAG_DB_RECORD		ORNIC_BIT(1)
#define ORNIC_QPN_SMI			0
#define ORNIC_QPN_GSI			1
#define ORNIC_QPN_MASK			0x00ffffffU

/*
 * CREATE_QP: result0 = QPN.  Depths count 64-byte basic blocks.  An XRC_INI
 * QP has only the send side (rq_mem, rq_log_depth, recv_cqn 0); an
 * XRC_TGT QP has no queues, PD or CQs, only its XRC domain.
 */
struct ornic_admin_create_qp {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc sq_mem;
	struct ornic_mem_desc rq_mem;	/* ignored with QP_FLAG_USE_SRQ */
	__le32 pd;
	__le32 send_cqn;
	__le32 recv_cqn;
	union {
		__le32 srqn;		/* with QP_FLAG_USE_SRQ */
		__le32 xrcd;		/* XRC_TGT */
	};
	__le16 db_page;
	__u8 qp_type;			/* enum ornic_qp_type */
	__u8 flags;			/* ORNIC_QP_FLAG_* */
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__le16 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_qp, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_qp, pd, 40);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_qp, db_page, 56);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_qp, srqn, 52);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_qp, xrcd, 52);

enum ornic_qp_state {
	ORNIC_QPS_RESET			= 0,	/* same values as IB QP states */
	ORNIC_QPS_INIT			= 1,
	ORNIC_QPS_RTR			= 2,
	ORNIC_QPS_RTS			= 3,
	ORNIC_QPS_SQD			= 4,
	ORNIC_QPS_SQE			= 5,
	ORNIC_QPS_ERR			= 6,
};

/* MODIFY_QP attr_mask: which fields of ornic_qp_attr to apply. */
#define ORNIC_QP_ATTR_STATE		ORNIC_BIT(0)
#define ORNIC_QP_ATTR_ACCESS_FLAGS	ORNIC_BIT(1)
#define ORNIC_QP_ATTR_PKEY_INDEX	ORNIC_BIT(2)
#define ORNIC_QP_ATTR_QKEY		ORNIC_BIT(3)
#define ORNIC_QP_ATTR_AV		ORNIC_BIT(4)  /* dgid..udp_sport, dlid..static_rate */
#define ORNIC_QP_ATTR_PATH_MTU		ORNIC_BIT(5)
#define ORNIC_QP_ATTR_TIMEOUT		ORNIC_BIT(6)
#define ORNIC_QP_ATTR_RETRY_CNT		ORNIC_BIT(7)
#define ORNIC_QP_ATTR_RNR_RETRY		ORNIC_BIT(8)
#define ORNIC_QP_ATTR_RQ_PSN		ORNIC_BIT(9)
#define ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC	ORNIC_BIT(10)
#define ORNIC_QP_ATTR_MIN_RNR_TIMER	ORNIC_BIT(11)
#define ORNIC_QP_ATTR_SQ_PSN		ORNIC_BIT(12)
#define ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC ORNIC_BIT(13)
#define ORNIC_QP_ATTR_DEST_QPN		ORNIC_BIT(14)
#define ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY ORNIC_BIT(15)
#define ORNIC_QP_ATTR_ALL		0xffffU

/* MODIFY_QP / QUERY_QP: the QP attributes, in a host buffer. */
struct ornic_qp_attr {
	__u8 state;			/* enum ornic_qp_state */
	__u8 path_mtu;			/* enum ornic_mtu */
	__u8 sgid_index;
	__u8 en_sqd_async_notify;
	__le32 qkey;
	__le32 dest_qpn;
	__le32 sq_psn;			/* 24 bits */
	__le32 rq_psn;			/* 24 bits */
	__le32 access_flags;		/* ORNIC_ACCESS_REMOTE_* */
	__le16 pkey_index;		/* 0; IB: < pkey_tbl_len */
	__u8 timeout;			/* 4.096 us * 2^timeout, 0 = infinite */
	__u8 retry_cnt;			/* 0..7 */
	__u8 rnr_retry;			/* 0..7, 7 = infinite */
	__u8 min_rnr_timer;		/* IB encoding 0..31 */
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 dgid[16];
	__u8 dmac[6];
	__le16 udp_sport;		/* 0 = device chooses from QPN */
	__le32 flow_label;		/* 20 bits */
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sq_draining;		/* QUERY only */
	__u8 reserved0;
	/*
	 * IB ports (infiniband.rst, "Address vectors"); 0 on Ethernet but
	 * for sl, there the priority (0..7) of a VLAN GID's frames
	 */
	__le16 dlid;
	__u8 sl;			/* 0..15 */
	__u8 src_path_bits;		/* below the port's LMC */
	__u8 av_flags;			/* ORNIC_AV_FLAG_* */
	__u8 static_rate;		/* IB rate enum, 0 = port rate */
	__le16 reserved2;
	__le32 reserved1[14];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_qp_attr, 128);
ORNIC_HW_ASSERT_OFFSET(struct ornic_qp_attr, dlid, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_qp_attr, av_flags, 68);

/* IB address vectors: the packets carry a GRH (dgid, sgid_index, ...). */
#define ORNIC_AV_FLAG_GRH		ORNIC_BIT(0)
ORNIC_HW_ASSERT_OFFSET(struct ornic_qp_attr, dgid, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_qp_attr, flow_label, 56);

/* MODIFY_QP (reads attr_addr) and QUERY_QP (writes attr_addr). */
struct ornic_admin_modify_qp {
	struct ornic_admin_hdr hdr;
	__le64 attr_addr;		/* struct ornic_qp_attr */
	__le32 attr_len;		/* >= sizeof(struct ornic_qp_attr) */
	__le32 qpn;
	__le32 attr_mask;		/* ORNIC_QP_ATTR_*, 0 for QUERY */
	__u8 cur_state;			/* MODIFY: expected current state */
	__u8 flags;			/* 1 = cur_state is valid */
	__le16 reserved0;
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_modify_qp, 64);

#define ORNIC_MODIFY_QP_FLAG_CUR_STATE	ORNIC_BIT(0)

enum ornic_srq_type {
	ORNIC_SRQT_BASIC		= 0,	/* named by the QPs that use it */
	ORNIC_SRQT_XRC			= 1,	/* ORNIC_CAP_XRC: named by XRCETH */
};

/*
 * CREATE_SRQ: result0 = SRQN (>= 1).  Depth counts basic blocks.  An XRC
 * SRQ belongs to an XRC domain and completes its receives on its own CQ.
 */
struct ornic_admin_create_srq {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;
	__le32 pd;
	__le16 db_page;
	__u8 log_depth;
	__u8 srq_type;			/* enum ornic_srq_type */
	__le32 limit;			/* SRQ_LIMIT event threshold, 0 = off */
	__le32 xrcd;			/* SRQT_XRC, else 0 */
	__le32 cqn;			/* SRQT_XRC: receive CQ, else 0 */
	__le32 flags;			/* ORNIC_SRQ_FLAG_* */
	__le32 reserved1[4];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_srq, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_srq, srq_type, 31);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_srq, xrcd, 36);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_srq, cqn, 40);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_srq, flags, 44);

/* ORNIC_CAP_DB_RECORD: the ring ends with a doorbell record. */
#define ORNIC_SRQ_FLAG_DB_RECORD	ORNIC_BIT(0)

/* ALLOC_XRCD: no body; result0 = XRCD number (>= 1). */

/* MODIFY_SRQ: re-arm the limit event. */
struct ornic_admin_modify_srq {
	struct ornic_admin_hdr hdr;
	__le32 srqn;
	__le32 limit;
	__le32 reserved[12];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_modify_srq, 64);

/*
 * RESIZE_SRQ (ORNIC_CAP_RESIZE): the SRQ moves to the ring in mem.  Ring
 * indices keep counting: the blocks the device has not taken (consumer to
 * producer) are copied to the slots of the same indices in the new ring.
 * result0 = blocks moved.
 */
struct ornic_admin_resize_srq {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;	/* the new ring */
	__le32 srqn;
	__u8 log_depth;			/* new depth in blocks */
	__u8 reserved0[3];
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_resize_srq, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_resize_srq, srqn, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_resize_srq, log_depth, 28);

/* CREATE_AH: result0 = AH index (>= 1). */
struct ornic_admin_create_ah {
	struct ornic_admin_hdr hdr;
	__le32 pd;
	__le32 flow_label;		/* 20 bits */
	__u8 dgid[16];
	__u8 dmac[6];
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 reserved0;
	__le16 udp_sport;		/* 0 = device chooses */
	/*
	 * IB ports (infiniband.rst, "Address vectors"); 0 on Ethernet but
	 * for sl, there the priority (0..7) of a VLAN GID's frames
	 */
	__le16 dlid;
	__u8 sl;
	__u8 src_path_bits;
	__u8 av_flags;			/* ORNIC_AV_FLAG_* */
	__u8 static_rate;
	__le16 reserved2;
	__le32 reserved1[3];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_ah, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_ah, dgid, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_create_ah, dlid, 44);

enum ornic_gid_type {
	ORNIC_GID_TYPE_ROCE_V2_IPV4	= 1,	/* ::ffff:a.b.c.d */
	ORNIC_GID_TYPE_ROCE_V2_IPV6	= 2,
	ORNIC_GID_TYPE_ROCE_V1		= 3,	/* ORNIC_CAP_ROCE_V1; any GID */
};

/* The entry belongs to a VLAN device (ORNIC_CAP_ROCE_VLAN): vlan_id is set. */
#define ORNIC_GID_FLAG_VLAN		ORNIC_BIT(0)

/* ADD_GID (replaces the entry at index), DEL_GID (all but index zero). */
struct ornic_admin_gid {
	struct ornic_admin_hdr hdr;
	__le32 index;
	__u8 type;			/* enum ornic_gid_type */
	__u8 flags;			/* ORNIC_GID_FLAG_* */
	__le16 vlan_id;			/* 1..4094 with ORNIC_GID_FLAG_VLAN, else 0 */
	__u8 gid[16];
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_gid, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_gid, vlan_id, 14);

/*
 * ATTACH_MCAST / DETACH_MCAST (ORNIC_CAP_MCAST): add or remove UD QP qpn
 * to or from the multicast group gid (a multicast GID: ff00::/8, or
 * ::ffff:224.0.0.0/100 for IPv4).  Datagrams whose BTH destination QP is
 * ORNIC_QPN_MULTICAST go to every QP attached to their IP destination.
 */
#define ORNIC_QPN_MULTICAST		0x00ffffffU

struct ornic_admin_mcast {
	struct ornic_admin_hdr hdr;
	__le32 qpn;
	__le32 reserved0;
	__u8 gid[16];
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_mcast, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_admin_mcast, gid, 16);

/* ETH_CREATE_TX_RING / ETH_CREATE_RX_RING: result0 = ring id (>= 1). */
struct ornic_admin_create_eth_ring {
	struct ornic_admin_hdr hdr;
	struct ornic_mem_desc mem;
	__le32 cqn;
	__u8 log_depth;			/* descriptors = 1 << log_depth */
	__u8 reserved0[3];
	__le32 reserved1[8];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_create_eth_ring, 64);

struct ornic_admin_eth_set_mac {
	struct ornic_admin_hdr hdr;
	__u8 mac[6];
	__le16 reserved0;
	__le32 reserved1[12];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_eth_set_mac, 64);

#define ORNIC_ETH_MTU_MIN		68U
#define ORNIC_ETH_MTU_MAX		9000U
#define ORNIC_ETH_HLEN			14U	/* no VLAN in 1.0 */

struct ornic_admin_eth_set_mtu {
	struct ornic_admin_hdr hdr;
	__le32 mtu;			/* IP MTU, excludes Ethernet header */
	__le32 reserved[13];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_admin_eth_set_mtu, 64);

/* ------------------------------------------------------------------------
 * 7. Event queues (spec: events.rst)
 */
#define ORNIC_EQE_SIZE			16
#define ORNIC_EQE_OWNER_PHASE		ORNIC_BIT(0)

enum ornic_eqe_type {
	ORNIC_EQE_COMPLETION		= 0x00,	/* object = CQN */
	ORNIC_EQE_QP_FATAL		= 0x01,	/* object = QPN */
	ORNIC_EQE_QP_REQ_ERR		= 0x02,
	ORNIC_EQE_QP_ACCESS_ERR		= 0x03,
	ORNIC_EQE_QP_COMM_EST		= 0x04,
	ORNIC_EQE_QP_SQ_DRAINED		= 0x05,
	ORNIC_EQE_QP_LAST_WQE_REACHED	= 0x06,
	ORNIC_EQE_CQ_ERROR		= 0x08,	/* object = CQN, data = code */
	ORNIC_EQE_SRQ_ERROR		= 0x09,	/* object = SRQN */
	ORNIC_EQE_SRQ_LIMIT		= 0x0a,
	ORNIC_EQE_PORT_STATE		= 0x10,	/* data = enum ornic_port_state */
	ORNIC_EQE_DEVICE_FATAL		= 0x11,	/* data = enum ornic_fatal_code */
	ORNIC_EQE_PAGE_FAULT		= 0x12,	/* struct ornic_eqe_page_fault */
	ORNIC_EQE_PORT_CHANGE		= 0x13,	/* data = ORNIC_PORT_CHANGE_* */
	/* ORNIC_CAP_IWARP: struct ornic_eqe_iw (iwarp-cm.rst) */
	ORNIC_EQE_IW_CONN_REQUEST	= 0x20,	/* a listener's new conn */
	ORNIC_EQE_IW_CONNECT_REPLY	= 0x21,	/* IW_CONNECT's outcome */
	ORNIC_EQE_IW_ESTABLISHED	= 0x22,	/* IW_ACCEPT's reply sent */
	ORNIC_EQE_IW_DISCONNECT		= 0x23,	/* the peer sent FIN */
	ORNIC_EQE_IW_CLOSE		= 0x24,	/* the conn id is free */
};

/* PORT_CHANGE (ORNIC_CAP_IB): what the subnet manager changed. */
#define ORNIC_PORT_CHANGE_LID		ORNIC_BIT(0)	/* LID or LMC */
#define ORNIC_PORT_CHANGE_PKEY		ORNIC_BIT(1)	/* P_Key table */
#define ORNIC_PORT_CHANGE_SM		ORNIC_BIT(2)	/* SM LID or SM SL */
#define ORNIC_PORT_CHANGE_CLIENT_REREG	ORNIC_BIT(3)	/* ClientReregister */
#define ORNIC_PORT_CHANGE_GID		ORNIC_BIT(4)	/* GID prefix */
#define ORNIC_PORT_CHANGE_ALL		0x1fU

enum ornic_cq_error {
	ORNIC_CQ_ERROR_OVERFLOW		= 1,
	ORNIC_CQ_ERROR_DMA		= 2,
};

struct ornic_eqe {
	__u8 type;			/* enum ornic_eqe_type */
	__u8 reserved0[3];
	__le32 object;			/* CQN / QPN / SRQN / port */
	__le32 data;
	__u8 reserved1[3];
	__u8 owner;			/* ORNIC_EQE_OWNER_PHASE; written last */
};

ORNIC_HW_ASSERT_SIZE(struct ornic_eqe, ORNIC_EQE_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe, owner, 15);

/* PAGE_FAULT flags */
#define ORNIC_EQE_PF_WRITE		ORNIC_BIT(0)	/* the access writes */
#define ORNIC_EQE_PF_REQUESTER		ORNIC_BIT(1)	/* QP stalled: RESUME it */

/*
 * A PAGE_FAULT EQE: pages [page, page + num_pages) of the ODP MR @key are
 * needed by QP @qpn (24 bits, little-endian).
 */
struct ornic_eqe_page_fault {
	__u8 type;			/* ORNIC_EQE_PAGE_FAULT */
	__u8 flags;			/* ORNIC_EQE_PF_* */
	__le16 num_pages;		/* >= 1 */
	__le32 key;
	__le32 page;			/* page index within the MR */
	__u8 qpn[3];
	__u8 owner;			/* ORNIC_EQE_OWNER_PHASE; written last */
};

ORNIC_HW_ASSERT_SIZE(struct ornic_eqe_page_fault, ORNIC_EQE_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_page_fault, key, 4);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_page_fault, page, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_page_fault, qpn, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_page_fault, owner, 15);

/* Status of IW_CONNECT_REPLY and IW_CLOSE events. */
enum ornic_iw_status {
	ORNIC_IW_STATUS_OK		= 0,	/* accepted / closed gracefully */
	ORNIC_IW_STATUS_REJECTED	= 1,	/* MPA reply with R set */
	ORNIC_IW_STATUS_TIMEOUT		= 2,	/* TCP or MPA reply timed out */
	ORNIC_IW_STATUS_RESET		= 3,	/* RST (also: refused) */
	ORNIC_IW_STATUS_UNREACHABLE	= 4,	/* no route or resources */
	ORNIC_IW_STATUS_MPA_ERROR	= 5,	/* peer's MPA frame refused */
};

struct ornic_eqe_iw {
	__u8 type;			/* ORNIC_EQE_IW_* */
	__u8 status;			/* enum ornic_iw_status */
	__le16 pdata_len;		/* CONN_REQUEST, CONNECT_REPLY */
	__le32 conn_id;
	__le32 listener_id;		/* CONN_REQUEST */
	__u8 reserved[3];
	__u8 owner;			/* ORNIC_EQE_OWNER_PHASE; written last */
};

ORNIC_HW_ASSERT_SIZE(struct ornic_eqe_iw, ORNIC_EQE_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_iw, conn_id, 4);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_iw, listener_id, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_eqe_iw, owner, 15);

/* ------------------------------------------------------------------------
 * 8. Work queue entries (spec: wqe.rst).  SQ, RQ and SRQ rings are arrays
 * of 64-byte basic blocks; one WQE occupies 1..max_wqe_blocks consecutive
 * blocks (wrapping at the ring end).  Producer indices count blocks.
 */
#define ORNIC_WQE_BLOCK_SIZE		64
#define ORNIC_WQE_MAX_BLOCKS		8
#define ORNIC_SGES_PER_BLOCK		4	/* in each data block */
#define ORNIC_RECV_SGES_BLOCK0		3	/* in block 0 of a receive WQE */

enum ornic_wqe_opcode {
	ORNIC_WQE_OP_SEND		= 0x00,
	ORNIC_WQE_OP_SEND_IMM		= 0x01,
	ORNIC_WQE_OP_SEND_INV		= 0x02,
	ORNIC_WQE_OP_RDMA_WRITE		= 0x03,
	ORNIC_WQE_OP_RDMA_WRITE_IMM	= 0x04,
	ORNIC_WQE_OP_RDMA_READ		= 0x05,
	ORNIC_WQE_OP_ATOMIC_CMP_SWP	= 0x06,
	ORNIC_WQE_OP_ATOMIC_FETCH_ADD	= 0x07,
	ORNIC_WQE_OP_REG_MR		= 0x08,	/* ORNIC_CAP_FAST_REG */
	ORNIC_WQE_OP_LOCAL_INV		= 0x09,	/* ORNIC_CAP_FAST_REG, MW */
	ORNIC_WQE_OP_FLUSH		= 0x0a,	/* ORNIC_CAP_FLUSH, RC */
	ORNIC_WQE_OP_ATOMIC_WRITE	= 0x0b,	/* ORNIC_CAP_ATOMIC_WRITE, RC */
	ORNIC_WQE_OP_BIND_MW		= 0x0c,	/* ORNIC_CAP_MW */
	ORNIC_WQE_OP_RDMA_READ_INV	= 0x0d,	/* iWARP: READ, then LOCAL_INV */
};

#define ORNIC_WQE_FLAG_SIGNALED		ORNIC_BIT(0)
#define ORNIC_WQE_FLAG_SOLICITED	ORNIC_BIT(1)
#define ORNIC_WQE_FLAG_FENCE		ORNIC_BIT(2)
#define ORNIC_WQE_FLAG_INLINE		ORNIC_BIT(3)
#define ORNIC_WQE_FLAG_AV		ORNIC_BIT(4)	/* UD/GSI, kernel QPs */

struct ornic_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_sge, 16);

struct ornic_wqe_rdma_seg {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved[5];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_rdma_seg, 32);

struct ornic_wqe_atomic_seg {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved;
	__le64 compare_add;		/* compare (CMP_SWP) or add value */
	__le64 swap;			/* CMP_SWP only */
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_atomic_seg, 32);

struct ornic_wqe_ud_seg {
	__le32 ah;			/* AH index */
	__le32 remote_qpn;
	__le32 qkey;			/* bit 31 set: use the QP's Q_Key */
	__le16 pkey_index;		/* GSI/SMI on IB: the datagram's P_Key */
	__le16 reserved0;
	__le32 reserved[4];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_ud_seg, 32);

/* FLUSH placement types (a bit mask) and selectivity levels (IBTA 1.5 FETH). */
#define ORNIC_FLUSH_GLOBAL		ORNIC_BIT(0)	/* global visibility */
#define ORNIC_FLUSH_PERSISTENT		ORNIC_BIT(1)	/* persistence */
#define ORNIC_FLUSH_TYPE_MASK		(ORNIC_FLUSH_GLOBAL | ORNIC_FLUSH_PERSISTENT)

enum ornic_flush_level {
	ORNIC_FLUSH_RANGE		= 0,	/* [remote_addr, +length) */
	ORNIC_FLUSH_MR			= 1,	/* the whole MR of rkey */
};

/* FLUSH WQE opcode segment: what the FETH and RETH of the request carry. */
struct ornic_wqe_flush_seg {
	__le64 remote_addr;		/* ignored with ORNIC_FLUSH_MR */
	__le32 rkey;
	__le32 length;			/* ignored with ORNIC_FLUSH_MR */
	__u8 type;			/* ORNIC_FLUSH_GLOBAL/_PERSISTENT, >= 1 */
	__u8 level;			/* enum ornic_flush_level */
	__u8 reserved0[2];
	__le32 reserved1[3];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_flush_seg, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_flush_seg, length, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_flush_seg, type, 16);

/*
 * ATOMIC_WRITE WQE opcode segment: the 8 bytes travel in the WQE and are
 * stored at remote_addr (8-byte aligned) in this order, as one store.
 */
struct ornic_wqe_atomic_write_seg {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved0;
	__u8 data[8];
	__le64 reserved1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_atomic_write_seg, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_atomic_write_seg, data, 16);

/*
 * REG_MR WQE (kernel QPs only), block 0 opcode segment: the fast-reg MR's
 * key with the new variant, the access rights and the page list's shape.
 */
struct ornic_wqe_reg_mr_seg {
	__le32 key;			/* index of the MR, new variant */
	__le32 access;			/* ORNIC_ACCESS_* */
	__u8 page_shift;		/* 12..30 */
	__u8 reserved0[3];
	__le32 num_pages;		/* 1..the MR's capacity */
	__le32 reserved1[4];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_reg_mr_seg, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_reg_mr_seg, num_pages, 12);

/*
 * BIND_MW WQE (one block), opcode segment: the window's key with its new
 * variant, the MR the window is bound to (its lkey) and the window's range
 * and rights.  length 0 unbinds a type-1 window.
 */
struct ornic_wqe_bind_mw_seg {
	__le32 mw_key;			/* window index, new variant */
	__le32 mr_key;			/* lkey of an MR with MW_BIND */
	__le64 addr;			/* window start, in the MR's iova space */
	__le64 length;			/* 0: unbind (type 1 only) */
	__le32 access;			/* ORNIC_ACCESS_REMOTE_*, LOCAL_WRITE */
	__le32 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_bind_mw_seg, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_bind_mw_seg, addr, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_bind_mw_seg, access, 24);

/*
 * Block 1 of a REG_MR WQE: where the region starts and where its page list
 * is (num_pages __le64 page-aligned DMA addresses, one contiguous array).
 */
struct ornic_wqe_reg_mr_ext {
	__le64 pbl_addr;		/* 8-byte aligned */
	__le64 iova;
	__le64 length;
	__le64 reserved[5];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_reg_mr_ext, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_reg_mr_ext, length, 16);

/*
 * Block 1 of a UD/GSI send with ORNIC_WQE_FLAG_AV (kernel QPs only): the
 * address vector travels in the WQE instead of an AH (ud.ah must be 0), so
 * the kernel can address datagrams without a CREATE_AH.  Data starts at
 * block 2.
 */
struct ornic_wqe_av {
	__le32 flow_label;		/* 20 bits */
	__u8 sgid_index;
	__u8 hop_limit;			/* 0: 64 */
	__u8 traffic_class;
	__u8 reserved0;
	__u8 dgid[16];
	__u8 dmac[6];
	__le16 udp_sport;		/* 0 = device chooses */
	/*
	 * IB ports (infiniband.rst, "Address vectors"); 0 on Ethernet but
	 * for sl, there the priority (0..7) of a VLAN GID's frames
	 */
	__le16 dlid;
	__u8 sl;
	__u8 src_path_bits;
	__u8 av_flags;			/* ORNIC_AV_FLAG_* */
	__u8 static_rate;
	__le16 reserved2;
	__le32 reserved1[6];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_wqe_av, 64);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_av, dlid, 32);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_av, dgid, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_av, dmac, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_wqe_av, udp_sport, 30);

/*
 * Block 0 of every send WQE.  SGEs or inline data follow in blocks 1..
 * (blocks 2.. with ORNIC_WQE_FLAG_AV); a REG_MR has block 1 only
 * (struct ornic_wqe_reg_mr_ext), LOCAL_INV and BIND_MW block 0 only.
 */
struct ornic_send_wqe {
	__u8 opcode;			/* enum ornic_wqe_opcode */
	__u8 flags;			/* ORNIC_WQE_FLAG_* */
	__u8 num_blocks;		/* 1 (+1 with FLAG_AV) + data blocks */
	__u8 num_sge;			/* 0 with FLAG_INLINE */
	__le16 inline_len;		/* with FLAG_INLINE */
	__le16 reserved0;
	__be32 imm_data;		/* SEND_IMM, RDMA_WRITE_IMM */
	__le32 invalidate_rkey;		/* SEND_INV, LOCAL_INV: MR or MW key */
	__le64 wr_id;
	__le32 xrc_srqn;		/* XRC_INI: remote XRC SRQ, else 0 */
	__le32 reserved1;
	union {
		struct ornic_wqe_rdma_seg rdma;
		struct ornic_wqe_atomic_seg atomic;
		struct ornic_wqe_ud_seg ud;
		struct ornic_wqe_reg_mr_seg reg_mr;
		struct ornic_wqe_flush_seg flush;
		struct ornic_wqe_atomic_write_seg atomic_write;
		struct ornic_wqe_bind_mw_seg bind_mw;
	};
};

ORNIC_HW_ASSERT_SIZE(struct ornic_send_wqe, ORNIC_WQE_BLOCK_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_send_wqe, wr_id, 16);
ORNIC_HW_ASSERT_OFFSET(struct ornic_send_wqe, xrc_srqn, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_send_wqe, reserved1, 28);
ORNIC_HW_ASSERT_OFFSET(struct ornic_send_wqe, rdma, 32);

/* Block 0 of every receive WQE (RQ and SRQ): header then 3 SGEs. */
struct ornic_recv_wqe {
	__le64 wr_id;
	__u8 num_blocks;		/* 1 + extra blocks of 4 SGEs */
	__u8 num_sge;
	__le16 reserved0;
	__le32 reserved1;
	struct ornic_sge sge[ORNIC_RECV_SGES_BLOCK0];
};

ORNIC_HW_ASSERT_SIZE(struct ornic_recv_wqe, ORNIC_WQE_BLOCK_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_recv_wqe, sge, 16);

/*
 * WQE geometry (spec: wqe.rst, "WQE geometry"): how many blocks a WQE takes
 * and what a WQE of so many blocks holds.  One definition for the driver,
 * the provider and the device model; plain C so all three can use it.  The
 * divisions are written so that no u32 argument overflows.
 */
ORNIC_HW_STATIC_ASSERT(ORNIC_SGES_PER_BLOCK * sizeof(struct ornic_sge) ==
		       ORNIC_WQE_BLOCK_SIZE, "SGEs fill a data block");
ORNIC_HW_STATIC_ASSERT(offsetof(struct ornic_recv_wqe, sge) +
		       ORNIC_RECV_SGES_BLOCK0 * sizeof(struct ornic_sge) ==
		       ORNIC_WQE_BLOCK_SIZE, "SGEs fill receive block 0");
ORNIC_HW_STATIC_ASSERT(ORNIC_WQE_MAX_BLOCKS <= 0xff, "num_blocks is a __u8");

/* Data blocks that num_sge SGEs of a send WQE take (4 per block). */
static inline __u32 ornic_wqe_sge_blocks(__u32 num_sge)
{
	return num_sge / ORNIC_SGES_PER_BLOCK +
	       (num_sge % ORNIC_SGES_PER_BLOCK != 0);
}

/* Data blocks that inline_len bytes of inline data take. */
static inline __u32 ornic_wqe_inline_blocks(__u32 inline_len)
{
	return inline_len / ORNIC_WQE_BLOCK_SIZE +
	       (inline_len % ORNIC_WQE_BLOCK_SIZE != 0);
}

/*
 * Blocks of a send WQE (without AV) able to carry either max_sge SGEs or
 * max_inline bytes inline: what a send queue is sized for.
 */
static inline __u32 ornic_send_wqe_blocks(__u32 max_sge, __u32 max_inline)
{
	__u32 sge_blocks = ornic_wqe_sge_blocks(max_sge);
	__u32 inline_blocks = ornic_wqe_inline_blocks(max_inline);

	return 1 + (sge_blocks > inline_blocks ? sge_blocks : inline_blocks);
}

/* Blocks of a receive WQE with num_sge SGEs: 3 in block 0, then 4 a block. */
static inline __u32 ornic_recv_wqe_blocks(__u32 num_sge)
{
	if (num_sge <= ORNIC_RECV_SGES_BLOCK0)
		return 1;
	return 1 + ornic_wqe_sge_blocks(num_sge - ORNIC_RECV_SGES_BLOCK0);
}

/* SGEs a send WQE (without AV) of that many blocks can carry. */
static inline __u32 ornic_send_sges_fit(__u32 blocks)
{
	return blocks ? (blocks - 1) * ORNIC_SGES_PER_BLOCK : 0;
}

/* Inline bytes a send WQE (without AV) of that many blocks can carry. */
static inline __u32 ornic_inline_fit(__u32 blocks)
{
	return blocks ? (blocks - 1) * ORNIC_WQE_BLOCK_SIZE : 0;
}

/* SGEs a receive WQE of that many blocks can carry. */
static inline __u32 ornic_recv_sges_fit(__u32 blocks)
{
	return blocks ? ORNIC_RECV_SGES_BLOCK0 +
			(blocks - 1) * ORNIC_SGES_PER_BLOCK : 0;
}

/* ------------------------------------------------------------------------
 * 9. Completion queue entries (spec: cqe.rst)
 */
#define ORNIC_CQE_SIZE			32
#define ORNIC_CQE_OWNER_PHASE		ORNIC_BIT(0)

enum ornic_cqe_opcode {
	ORNIC_CQE_OP_SEND		= 0x00,
	ORNIC_CQE_OP_RDMA_WRITE		= 0x01,
	ORNIC_CQE_OP_RDMA_READ		= 0x02,
	ORNIC_CQE_OP_COMP_SWAP		= 0x03,
	ORNIC_CQE_OP_FETCH_ADD		= 0x04,
	ORNIC_CQE_OP_REG_MR		= 0x05,
	ORNIC_CQE_OP_LOCAL_INV		= 0x06,
	ORNIC_CQE_OP_FLUSH		= 0x07,
	ORNIC_CQE_OP_ATOMIC_WRITE	= 0x08,
	ORNIC_CQE_OP_BIND_MW		= 0x09,
	ORNIC_CQE_OP_RECV		= 0x80,
	ORNIC_CQE_OP_RECV_RDMA_IMM	= 0x81,
	ORNIC_CQE_OP_ETH_TX		= 0xc0,
	ORNIC_CQE_OP_ETH_RX		= 0xc1,
};

/* Same numeric values as enum ibv_wc_status / ib_wc_status. */
enum ornic_cqe_status {
	ORNIC_CQE_SUCCESS		= 0,
	ORNIC_CQE_LOC_LEN_ERR		= 1,
	ORNIC_CQE_LOC_QP_OP_ERR		= 2,
	ORNIC_CQE_LOC_PROT_ERR		= 4,
	ORNIC_CQE_MW_BIND_ERR		= 6,
	ORNIC_CQE_WR_FLUSH_ERR		= 5,
	ORNIC_CQE_BAD_RESP_ERR		= 7,
	ORNIC_CQE_LOC_ACCESS_ERR	= 8,
	ORNIC_CQE_REM_INV_REQ_ERR	= 9,
	ORNIC_CQE_REM_ACCESS_ERR	= 10,
	ORNIC_CQE_REM_OP_ERR		= 11,
	ORNIC_CQE_RETRY_EXC_ERR		= 12,
	ORNIC_CQE_RNR_RETRY_EXC_ERR	= 13,
	ORNIC_CQE_REM_INV_RD_REQ_ERR	= 15,
	ORNIC_CQE_FATAL_ERR		= 19,
	ORNIC_CQE_GENERAL_ERR		= 21,
};

#define ORNIC_CQE_FLAG_IMM		ORNIC_BIT(0)
#define ORNIC_CQE_FLAG_INV		ORNIC_BIT(1)
#define ORNIC_CQE_FLAG_GRH		ORNIC_BIT(2)	/* UD: 40-byte GRH */
#define ORNIC_CQE_FLAG_IPV4		ORNIC_BIT(3)	/* UD: GRH is IPv4 */
#define ORNIC_CQE_FLAG_ETH_CSUM_OK	ORNIC_BIT(4)	/* ETH_RX */
/* UD: the GRH area holds a RoCE v1 packet's own GRH (ORNIC_CAP_ROCE_V1). */
#define ORNIC_CQE_FLAG_ROCE_V1		ORNIC_BIT(5)
/* A receive from an XRC SRQ (ORNIC_CAP_XRC): src_qp holds its SRQN. */
#define ORNIC_CQE_FLAG_XRC		ORNIC_BIT(6)
/*
 * UD: the packet came with an 802.1Q tag (ORNIC_CAP_ROCE_VLAN), whose TCI
 * (PCP, DEI, VLAN ID) is vlan_tci_hi << 8 | src_qp bits 31..24.
 */
#define ORNIC_CQE_FLAG_VLAN		ORNIC_BIT(7)

struct ornic_cqe {
	__le64 wr_id;			/* ETH: descriptor index */
	__le32 byte_len;
	__be32 imm_data;		/* or invalidated rkey (le) with INV */
	__le32 qpn;			/* ETH: ring id */
	__le32 src_qp;			/* UD receive (bits 23..0); SRQN with
					 * FLAG_XRC; bits 31..24: FLAG_VLAN
					 */
	__le16 wqe_index;		/* first block of the WQE, low 16 bits */
	__u8 opcode;			/* enum ornic_cqe_opcode */
	__u8 status;			/* enum ornic_cqe_status */
	__u8 flags;			/* ORNIC_CQE_FLAG_* */
	__u8 vendor_err;		/* enum ornic_vendor_err */
	__u8 vlan_tci_hi;		/* FLAG_VLAN: the TCI's high byte */
	__u8 owner;			/* ORNIC_CQE_OWNER_PHASE; written last */
};

ORNIC_HW_ASSERT_SIZE(struct ornic_cqe, ORNIC_CQE_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe, vlan_tci_hi, 30);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe, wqe_index, 24);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe, owner, 31);

/*
 * The entry of a CQ created with ORNIC_CQ_FLAG_TIMESTAMP: the timestamp
 * half first, then the ordinary CQE, so that the owner byte stays the last
 * byte of the entry (written last).  On an IB port the first half also
 * carries how a receive arrived (every CQ of an IB port has 64-byte
 * entries; spec: infiniband.rst, "Completions").
 */
#define ORNIC_CQE_TS_SIZE		64

struct ornic_cqe_ts {
	__le64 timestamp;		/* device clock (ns) at the CQE write */
	__le16 slid;			/* IB receives: LRH source LID */
	__le16 pkey_index;		/* IB receives: index of the P_Key */
	__u8 sl;			/* IB receives: LRH service level */
	__u8 dlid_path_bits;		/* IB receives: DLID below the LMC */
	__le16 reserved0;
	__le64 reserved[2];
	struct ornic_cqe cqe;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_cqe_ts, ORNIC_CQE_TS_SIZE);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe_ts, slid, 8);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe_ts, sl, 12);
ORNIC_HW_ASSERT_OFFSET(struct ornic_cqe_ts, cqe, 32);

/* Detail for an error CQE (vendor_err). */
enum ornic_vendor_err {
	ORNIC_VERR_NONE			= 0,
	ORNIC_VERR_BAD_OPCODE		= 1,
	ORNIC_VERR_BAD_BLOCKS		= 2,
	ORNIC_VERR_BAD_SGE_COUNT	= 3,
	ORNIC_VERR_BAD_INLINE_LEN	= 4,
	ORNIC_VERR_BAD_LKEY		= 5,
	ORNIC_VERR_PD_MISMATCH		= 6,
	ORNIC_VERR_OUT_OF_BOUNDS	= 7,
	ORNIC_VERR_ACCESS		= 8,
	ORNIC_VERR_DMA			= 9,
	ORNIC_VERR_BAD_AH		= 10,
	ORNIC_VERR_MSG_TOO_LONG		= 11,
	ORNIC_VERR_RECV_TOO_SMALL	= 12,
	ORNIC_VERR_RESERVED_NONZERO	= 13,
	ORNIC_VERR_MR_STATE		= 14,	/* fast-reg MR not FREE/VALID */
	ORNIC_VERR_BAD_PAGE_LIST	= 15,	/* REG_MR pages/shape */
	ORNIC_VERR_FLUSH_TYPE		= 16,	/* FLUSH type or level invalid */
	ORNIC_VERR_MW_STATE		= 18,	/* window not FREE/VALID as needed */
	ORNIC_VERR_MW_TYPE		= 19,	/* not for this window type */
	ORNIC_VERR_MW_QP		= 20,	/* type 2 bound through another QP */
	ORNIC_VERR_MW_BIND		= 21,	/* MR without MW_BIND / LOCAL_WRITE */
	ORNIC_VERR_XRC_SRQN		= 22,	/* xrc_srqn above 24 bits */
	/* 23: reserved for other features */
	ORNIC_VERR_ODP_ERROR		= 24,	/* ODP page marked ERROR */
	ORNIC_VERR_ODP_TABLE		= 25,	/* ODP page table unreadable */
};

/* ------------------------------------------------------------------------
 * 10. Ethernet function (spec: ethernet.rst).  TX and RX rings are arrays
 * of 16-byte descriptors; producer indices count descriptors.
 */
#define ORNIC_ETH_DESC_SIZE		16

#define ORNIC_ETH_TX_FLAG_CSUM		ORNIC_BIT(0) /* reserved in 1.0 */

struct ornic_eth_tx_desc {
	__le64 addr;
	__le16 length;			/* whole frame, 14..ETH_HLEN+mtu */
	__le16 flags;
	__le32 reserved;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_eth_tx_desc, ORNIC_ETH_DESC_SIZE);

struct ornic_eth_rx_desc {
	__le64 addr;
	__le16 length;			/* buffer size */
	__le16 reserved0;
	__le32 reserved1;
};

ORNIC_HW_ASSERT_SIZE(struct ornic_eth_rx_desc, ORNIC_ETH_DESC_SIZE);

#endif /* ORNIC_HW_H */
