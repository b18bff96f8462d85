// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: what the MR and MW commands carry (see ornic_mr_cmd.h).  What the
 * KUnit suite calls is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "ornic_admin_cmd.h"
#include "ornic_mr_cmd.h"

/* --- commands ------------------------------------------------------------- */

int ornic_cmd_rereg_mr(struct ornic_admin_sqe *sqe, u32 key, u8 flags,
		       const struct ornic_mr_xlat *xlat, u32 pdn,
		       u32 access)
{
	struct ornic_admin_rereg_mr *c = (struct ornic_admin_rereg_mr *)sqe;

	if (!flags || (flags & ~ORNIC_REREG_MR_ALL) ||
	    !(flags & ORNIC_REREG_MR_TRANSLATION) != !xlat)
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_REREG_MR);
	c->key = cpu_to_le32(key);
	c->flags = flags;
	/* Parts that do not change stay zero: the device checks that. */
	if (xlat) {
		c->mem = xlat->mem;
		c->iova = cpu_to_le64(xlat->iova);
		c->length = cpu_to_le64(xlat->length);
		c->first_page_offset = cpu_to_le32(xlat->first_page_offset);
	}
	if (flags & ORNIC_REREG_MR_PD)
		c->pd = cpu_to_le32(pdn);
	if (flags & ORNIC_REREG_MR_ACCESS)
		c->access = cpu_to_le32(access);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_rereg_mr);

void ornic_cmd_reg_mr(struct ornic_admin_sqe *sqe,
		      const struct ornic_mr_xlat *xlat, u32 pdn, u32 access,
		      u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	c->mem = xlat->mem;
	c->iova = cpu_to_le64(xlat->iova);
	c->length = cpu_to_le64(xlat->length);
	c->pd = cpu_to_le32(pdn);
	c->access = cpu_to_le32(access);
	c->key_variant = key_variant;
	c->first_page_offset = cpu_to_le32(xlat->first_page_offset);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr);

void ornic_cmd_reg_mr_physical(struct ornic_admin_sqe *sqe, u32 pdn,
			       u32 access, u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	/* No page list: the device ignores mem for a PHYSICAL MR. */
	c->iova = 0;
	c->length = cpu_to_le64(U64_MAX);
	c->pd = cpu_to_le32(pdn);
	c->access = cpu_to_le32(access);
	c->key_variant = key_variant;
	c->flags = ORNIC_MR_FLAG_PHYSICAL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr_physical);

void ornic_cmd_reg_mr_fast(struct ornic_admin_sqe *sqe, u32 pdn,
			   u32 max_pages, u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	/* Only the capacity: REG_MR work requests bring the pages. */
	c->mem.num_pages = cpu_to_le32(max_pages);
	c->pd = cpu_to_le32(pdn);
	c->key_variant = key_variant;
	c->flags = ORNIC_MR_FLAG_FAST_REG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr_fast);

int ornic_cmd_alloc_mw(struct ornic_admin_sqe *sqe, u32 pdn, u8 type,
		       u8 key_variant)
{
	struct ornic_admin_alloc_mw *c = (struct ornic_admin_alloc_mw *)sqe;

	if (type != ORNIC_MW_TYPE_1 && type != ORNIC_MW_TYPE_2)
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_ALLOC_MW);
	c->pd = cpu_to_le32(pdn);
	c->type = type;
	c->key_variant = key_variant;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_alloc_mw);

/* --- access flags, window types, rereg flags ------------------------------- */

int ornic_access_from_ib(int ib_access, bool atomics, bool flush,
			 u32 *access)
{
	int flush_rights = IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;
	int known = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		    flush_rights;

	/* Optional flags (relaxed ordering) are hints a device may ignore. */
	ib_access &= ~IB_ACCESS_OPTIONAL;
	if (ib_access & ~known)
		return -EOPNOTSUPP;
	if ((ib_access & IB_ACCESS_REMOTE_ATOMIC) && !atomics)
		return -EOPNOTSUPP;
	if ((ib_access & flush_rights) && !flush)
		return -EOPNOTSUPP;
	*access = 0;
	if (ib_access & IB_ACCESS_LOCAL_WRITE)
		*access |= ORNIC_ACCESS_LOCAL_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_WRITE)
		*access |= ORNIC_ACCESS_REMOTE_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_READ)
		*access |= ORNIC_ACCESS_REMOTE_READ;
	if (ib_access & IB_ACCESS_REMOTE_ATOMIC)
		*access |= ORNIC_ACCESS_REMOTE_ATOMIC;
	if (ib_access & IB_ACCESS_FLUSH_GLOBAL)
		*access |= ORNIC_ACCESS_FLUSH_GLOBAL;
	if (ib_access & IB_ACCESS_FLUSH_PERSISTENT)
		*access |= ORNIC_ACCESS_FLUSH_PERSISTENT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_access_from_ib);

int ornic_mr_access_from_ib(int ib_access, bool atomics, bool flush, bool mw,
			    u32 *access)
{
	int err;

	if ((ib_access & IB_ACCESS_MW_BIND) && !mw)
		return -EOPNOTSUPP;
	err = ornic_access_from_ib(ib_access & ~IB_ACCESS_MW_BIND, atomics,
				   flush, access);
	if (err)
		return err;
	if (ib_access & IB_ACCESS_MW_BIND)
		*access |= ORNIC_ACCESS_MW_BIND;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_access_from_ib);

int ornic_mw_type_from_ib(enum ib_mw_type type, u8 *hw)
{
	switch (type) {
	case IB_MW_TYPE_1:
		*hw = ORNIC_MW_TYPE_1;
		return 0;
	case IB_MW_TYPE_2:
		*hw = ORNIC_MW_TYPE_2;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mw_type_from_ib);

/*
 * The parts of an MR a rereg_user_mr changes, as REREG_MR flags; -EINVAL
 * for none, -EOPNOTSUPP for a flag this driver does not know.
 */
int ornic_rereg_flags_from_ib(int ib_flags, u8 *flags)
{
	if (!ib_flags)
		return -EINVAL;
	if (ib_flags & ~IB_MR_REREG_SUPPORTED)
		return -EOPNOTSUPP;
	*flags = 0;
	if (ib_flags & IB_MR_REREG_TRANS)
		*flags |= ORNIC_REREG_MR_TRANSLATION;
	if (ib_flags & IB_MR_REREG_PD)
		*flags |= ORNIC_REREG_MR_PD;
	if (ib_flags & IB_MR_REREG_ACCESS)
		*flags |= ORNIC_REREG_MR_ACCESS;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_rereg_flags_from_ib);
