// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - the tests' hooks, unset in the programs; see hooks.h.
 */
#include "hooks.h"

struct upcc_hooks upcc_hooks;
