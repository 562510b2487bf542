/* SPDX-License-Identifier: GPL-2.0 */
/* unit.h - what every cmocka test file includes, in the order cmocka needs. */
#ifndef UPCC_UNIT_H
#define UPCC_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* Fixture path: UPCC_FIXTURES is the absolute fixtures directory (Makefile). */
#define FIXTURE(name)	UPCC_FIXTURES "/" name

#endif /* UPCC_UNIT_H */
