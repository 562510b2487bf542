/* SPDX-License-Identifier: GPL-2.0 */
/*
 * confdiff.h - what a reload changed, for its log line: the daemon's
 * settings by the names upcd.conf gives them ("interval 1s -> 500ms"),
 * scopes added and removed, and each kept scope's settings that moved
 * ("scope data: target 64Mi -> 48Mi").  Scopes are matched by name, as
 * the runs keep their counters by name across a reload.
 */
#ifndef UPCD_CONFDIFF_H
#define UPCD_CONFDIFF_H

#include <stddef.h>

#include "core/config.h"

/*
 * Describe the change from @old to @new in @buf ("nothing changed" if
 * none; ", " between the changes, "..." if @size cut it).  How many
 * changes there were.
 */
size_t upcd_config_diff(const struct upcc_config *old, const struct upcc_config *new, char *buf,
			size_t size);

#endif /* UPCD_CONFDIFF_H */
