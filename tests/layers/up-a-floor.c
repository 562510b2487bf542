// SPDX-License-Identifier: GPL-2.0
/*
 * up-a-floor.c - the layers suite's fixture (tests/layers/run.sh): a file
 * that stands in core/ and calls up a floor, into sys/.  Put into core's
 * archive, core's layering check must fail on upcc_measure alone; with
 * sys put below core, the same object links.  Its call down, into core's
 * own upcc_scope_kind_name, resolves either way.
 */
#include "core/scope.h"
#include "sys/measure.h"

int upcc_layers_fixture(struct upcc_scope *scope, struct upcc_sample *sample);

int upcc_layers_fixture(struct upcc_scope *scope, struct upcc_sample *sample)
{
	if (!upcc_scope_kind_name(scope->kind))
		return -1;
	return upcc_measure(scope, sample);
}
