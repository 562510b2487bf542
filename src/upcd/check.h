/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check.h - upcd --check: the config is valid (else it did not build), and
 * for each scope which backend would act and why (or why none and what to
 * do), a sample, and what upcd would do.
 */
#ifndef UPCC_CHECK_H
#define UPCC_CHECK_H

#include "daemon.h"

/*
 * --check on the built config and runs of @upcd.  An exit code: 0, or 1 if
 * a scope has no usable backend or cannot be measured.
 */
int upcd_check(struct upcd *upcd);

#endif /* UPCC_CHECK_H */
