// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The driver's verbs pure-logic file, built into the KUnit module as is. */
#include "../drivers/infiniband/hw/ornic/ornic_verbs_lib.c"
