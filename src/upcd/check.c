// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - upcd --check: each scope's backend, a sample of it, and what
 * upcd would do; see check.h.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/common.h"
#include "core/resolve.h"
#include "fscheck.h"
#include "report/steplog.h"
#include "sys/measure.h"

/*
 * The state and metrics files, checked as their writers will open their
 * directories (fscheck.h), one line each.  The state file's lock is taken
 * there at start-up, where a directory that cannot be used is a bad config
 * (lock.h): UPCC_EXIT_USAGE; a metrics file that cannot be written is
 * warned about every round: UPCC_EXIT_FAILURE; else 0.
 */
static int check_reports(const struct upcd *upcd)
{
	const struct upcc_config *config = &upcd->config;
	char what[2 * PATH_MAX + 256];
	int rc = UPCC_EXIT_OK;

	if (!config->state_path[0]) {
		printf("state: none\n");
	} else if (upcd_check_report_dir(config->state_path, true, what, sizeof(what))) {
		printf("state %s: cannot be written: %s\n", config->state_path, what);
		rc = UPCC_EXIT_USAGE;
	} else {
		printf("state %s: %s\n", config->state_path, what);
	}
	if (!config->metrics_path[0]) {
		printf("metrics: none (metrics = is not set)\n");
	} else if (upcd_check_report_dir(config->metrics_path, false, what, sizeof(what))) {
		printf("metrics %s: cannot be written: %s\n", config->metrics_path, what);
		if (rc == UPCC_EXIT_OK)
			rc = UPCC_EXIT_FAILURE;
	} else {
		printf("metrics %s: %s\n", config->metrics_path, what);
	}
	return rc;
}

/*
 * --check: the config is valid (else upcd_build_config failed, exit 2); for
 * each scope say which backend would act and why (or why none and what
 * to do), measure it and say what upcd would do for the whole excess.
 * 0, or 1 if a scope has no usable backend or cannot be measured.
 */
int upcd_check(struct upcd *upcd)
{
	const char *config_path = upcd->options.config_path;
	uint64_t page = upcd->page_size;
	size_t bad = 0;
	int reports;

	if (!config_path)
		config_path = access(UPCC_DEFAULT_CONFIG_PATH, F_OK) == 0 ?
			      UPCC_DEFAULT_CONFIG_PATH : "(built-in defaults)";
	printf("config %s: valid: %zu scope%s, interval %llu ms\n", config_path, upcd->nr_runs,
	       upcd->nr_runs == 1 ? "" : "s", (unsigned long long)upcd->config.interval_ms);
	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		const struct upcc_scope *scope = &run->scope;
		enum upcc_phase phase = UPCC_PHASE_RECLAIMING;
		struct upcc_sample sample;
		struct upcc_plan plan;
		char why[PATH_MAX + 128];
		uint64_t excess;
		int err;

		/* Not an error: a valid setting that few mean. */
		if (scope->config.target.value == 0)
			printf("NOTICE scope %s: target = 0 means drop all clean unmapped cache down to nothing\n",
			       scope->name);
		if (!run->backend_ready) {
			printf("scope %s: no usable backend: %s\n", scope->name, run->backend_error);
			bad++;
		} else {
			printf("scope %s: backend %s (%s)\n", scope->name, run->backend.ops->name,
			       run->backend.why);
			/* The one backend setting: said where it applies. */
			if (strcmp(run->backend.ops->name, "damon") == 0)
				printf("scope %s: damon: cold after %llu ms unused (damon_min_age)\n",
				       scope->name,
				       (unsigned long long)upcd->config.damon_min_age_ms);
		}
		err = upcc_measure(scope, &sample);
		if (err) {
			printf("scope %s: cannot measure: %s\n", scope->name,
			       upcc_measure_explain(scope, err, why, sizeof(why)));
			bad += run->backend_ready;
			continue;
		}
		/* At the configured target: the working set is the running
		 * daemon's to learn.
		 */
		plan = upcc_plan_step(&scope->config, &sample, &phase, NULL, 0, page);
		excess = upcd_excess_pages(sample.unmapped_pages, &plan.policy);
		printf("scope %s: unmapped %s, target %s, trigger %s, working set cap %s, dirty %s: ",
		       scope->name, UPCD_SIZE(sample.unmapped_pages, page),
		       UPCD_SIZE(plan.policy.target_pages, page),
		       UPCD_SIZE(plan.policy.trigger_pages, page),
		       UPCD_SIZE(plan.policy.wset_cap_pages, page),
		       UPCD_SIZE(sample.dirty_pages + sample.writeback_pages, page));
		if (!excess)
			printf("at or below the target: nothing to do\n");
		else if (sample.unmapped_pages > plan.policy.trigger_pages)
			printf("over the trigger: would reclaim %s, down to the target, in steps of at most %s\n",
			       UPCD_SIZE(excess, page), UPCD_SIZE(plan.step, page));
		else
			printf("below the trigger: nothing to do until it passes it (--once now: would reclaim %s, down to the target)\n",
			       UPCD_SIZE(excess, page));
	}
	reports = check_reports(upcd);
	if (bad) {
		printf("check: %zu of %zu scope%s cannot be controlled\n", bad, upcd->nr_runs,
		       upcd->nr_runs == 1 ? "" : "s");
		return reports == UPCC_EXIT_USAGE ? reports : UPCC_EXIT_FAILURE;
	}
	if (reports) {
		printf("check: %s cannot be written\n",
		       reports == UPCC_EXIT_USAGE ? "the state file" : "the metrics file");
		return reports;
	}
	printf("check: ok\n");
	return UPCC_EXIT_OK;
}

