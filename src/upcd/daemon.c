// SPDX-License-Identifier: GPL-2.0
/*
 * daemon.c - upcd running; see daemon.h.  An epoll loop over a timerfd
 * (the tick), a second timerfd (the systemd watchdog) and a signalfd
 * (SIGHUP reloads, SIGTERM/SIGINT stop).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "lib/clock.h"
#include "core/common.h"
#include "daemon.h"
#include "lib/log.h"
#include "lock.h"
#include "sys/measure.h"
#include "report/metrics.h"
#include "lib/notify.h"
#include "lib/pace.h"
#include "lib/text.h"
#include "control/scoperun.h"
#include "report/state.h"
#include "confdiff.h"
#include "sdstatus.h"

/* A bound on --once even if the cache refills as fast as it is dropped. */
#define ONCE_MAX_STEPS		1000u

/* Between rounds the reports are rewritten at least this often. */
#define REPORT_HEARTBEAT_USEC	(60ull * 1000 * 1000)

/* The tick's period: --tick, never longer than the interval. */
static uint64_t tick_usec(const struct upcd *upcd)
{
	uint64_t tick = upcd->config.tick_ms;

	return (tick < upcd->config.interval_ms ? tick : upcd->config.interval_ms) * 1000;
}

/*
 * The state file's heartbeat (state.h): the daemon rewrites it at the
 * first tick a heartbeat after the last write, so at least every
 * heartbeat plus a tick; upcc status calls it stale after missing a few.
 * --once exits after its write and promises nothing.
 */
static uint64_t state_heartbeat_ms(const struct upcd *upcd)
{
	if (upcd->options.once)
		return 0;
	return (REPORT_HEARTBEAT_USEC + tick_usec(upcd)) / 1000;
}

/*
 * The state's directory (/run/upcc) is made if missing (state.h); a path
 * another user could redirect or swap is refused, and the log says which
 * directory and whose (lib/atomicfile.h).
 */
static void write_reports(struct upcd *upcd)
{
	const struct upcc_config *config = &upcd->config;
	char why[PATH_MAX + 128];
	int err;

	upcd->reports_failed = false;
	if (config->state_path[0]) {
		err = upcc_state_write(config->state_path, upcd->runs, upcd->nr_runs,
				       upcd->page_size, config->dry_run,
				       state_heartbeat_ms(upcd), &upcd->compact, why, sizeof(why));
		if (err && !upcd->state_warned)
			upcc_log(LOG_WARNING, "cannot write state %s: %s", config->state_path, why);
		upcd->state_warned = err != 0;
		upcd->reports_failed |= err != 0;
	}
	if (config->metrics_path[0]) {
		struct upcc_metrics_daemon daemon = {
			.start_unix_usec = upcd->start_unix_usec,
			.dry_run = config->dry_run,	/* dry_run = yes or --dry-run */
			.compact = &upcd->compact,
		};

		err = upcc_metrics_write(config->metrics_path, upcd->runs, upcd->nr_runs,
					 upcd->page_size, &daemon, why, sizeof(why));
		if (err && !upcd->metrics_warned)
			upcc_log(LOG_WARNING, "cannot write metrics %s: %s", config->metrics_path,
				 why);
		upcd->metrics_warned = err != 0;
		upcd->reports_failed |= err != 0;
	}
}

/*
 * Daemon mode's time budget per scope round: half the interval, shared by
 * the scopes, so the loop keeps its rhythm; and at most a quarter of the
 * watchdog period, so a long interval cannot starve the watchdog.
 */
static uint64_t round_budget_usec(const struct upcd *upcd)
{
	uint64_t budget = upcd->config.interval_ms * 1000 / 2;
	uint64_t watchdog_usec = upcc_notify_watchdog_usec();

	if (watchdog_usec && budget > watchdog_usec / 4)
		budget = watchdog_usec / 4;
	return upcd->nr_runs ? budget / upcd->nr_runs : budget;
}


/*
 * --once: did the round leave @run above its target?  At the target, or a
 * dry run that decided, is done; a round that ended otherwise (nothing
 * more came off, the backend refused or failed, no backend, the step
 * bound) missed it.
 */
static bool round_missed_target(const struct upcc_round_report *report)
{
	if (report->end == UPCC_ROUND_IDLE)
		return false;
	return !(report->end == UPCC_ROUND_STOPPED && report->last.outcome == UPCC_STEP_DRY_RUN);
}

/*
 * What the rounds freed is scattered order-0 pages; under a balloon that
 * reports free pages, compaction turns it into blocks the host can take
 * (compact.h).  Its CPU is logged, and counted, apart from upcd's own.
 */
static void compact_after_round(struct upcd *upcd, uint64_t freed_pages)
{
	struct upcc_compact *compact = &upcd->compact;
	uint64_t cpu_before = compact->cpu_usec_total;

	if (upcd->config.dry_run ||
	    !upcc_compact_after_round(compact, freed_pages, upcd->page_size,
				      upcc_monotonic_usec()))
		return;
	if (compact->last_error)
		upcc_log(LOG_WARNING, "compacting memory for free page reporting: %s",
			 strerror(-compact->last_error));
	else
		upcc_log(LOG_INFO, "compacted memory for free page reporting in %.1f ms of CPU",
			 (double)(compact->cpu_usec_total - cpu_before) / 1000.0);
}


/* Compaction as the config allows it ("compact ="), at start and on reload. */
static void probe_compaction(struct upcd *upcd)
{
	upcc_compact_probe(&upcd->compact, upcd->config.compact);
	upcc_log(LOG_INFO, "compaction for free page reporting %s%s", upcd->compact.why,
		 upcd->compact.enabled && upcd->config.dry_run ? " (but not in a dry run)" : "");
}

/*
 * After a round: its one log line, and what it freed for compaction.
 * Compaction is a guest-wide decision: a path or cgroup scope bounds part
 * of the cache, and is how upcd runs on a host it shares (the tests on a
 * build machine among them), so only system and node scopes count.
 */
static uint64_t round_end(struct upcd *upcd, const struct upcc_scope_run *run,
			  const struct upcc_round_report *report)
{
	upcd_log_round(&upcd->round, run, report);
	if (run->scope.kind == UPCC_SCOPE_SYSTEM || run->scope.kind == UPCC_SCOPE_NODE)
		return report->reclaimed_pages;
	return 0;
}

/*
 * The control loop, for the daemon and --once alike: a round for every
 * scope.  A scope above its trigger (with --once: above its target) gets
 * steps until it is at its target, nothing more comes off, or @limits
 * end it (upcc_control_round, as kswapd keeps going until the node is
 * balanced).  Then the reports are written.  Returns how many scopes
 * failed to measure; *@missed counts those --once would call missed.
 */
static int control_round(struct upcd *upcd, const struct upcc_round_limits *limits,
			 unsigned int *missed)
{
	uint64_t freed_pages = 0;
	int failures = 0;

	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		struct upcc_round_report report;

		if (i && upcc_pace_stop_now())
			break;		/* a signal waits: the next scopes wait for the next round */
		upcd_round_log_begin(&upcd->round, &upcd->logs[i]);
		if (upcc_control_round(run, upcc_measure, upcd->page_size, limits, &report))
			failures++;
		else if (round_missed_target(&report))
			(*missed)++;
		freed_pages += round_end(upcd, run, &report);
	}
	compact_after_round(upcd, freed_pages);
	write_reports(upcd);
	return failures;
}

/*
 * STATUS= for `systemctl status`: what the scopes are at, sent when it
 * says something new, but its figures (and "last round 3s ago") at most
 * every UPCD_STATUS_MIN_USEC: a datagram to PID 1 a round is waste.
 * @now_anyway (start), or none sent yet (status_usec 0: a reload clears
 * it), sends it whatever the time.
 */
static void send_status(struct upcd *upcd, bool now_anyway)
{
	uint64_t now = upcc_monotonic_usec();
	char text[sizeof(upcd->status)];

	now_anyway |= !upcd->status_usec;
	if (!now_anyway && now - upcd->status_usec < UPCD_STATUS_MIN_USEC)
		return;
	upcd_status_text(text, sizeof(text), upcd->runs, upcd->nr_runs, upcd->page_size,
			 upcd->config.dry_run, now);
	if (!now_anyway && strcmp(text, upcd->status) == 0)
		return;
	upcc_notify_status("%s", text);
	memcpy(upcd->status, text, sizeof(text));
	upcd->status_usec = now;
}

/*
 * The daemon's tick: every scope samples what is cheap; a round (the
 * costly refresh) runs where the interval is up, the sample is above the
 * trigger, or the last round ran out of time (upcc_control_tick).  The
 * reports are written after any round.
 */
static void daemon_tick(struct upcd *upcd)
{
	struct upcc_round_limits limits = {
		.budget_usec = round_budget_usec(upcd),
		.on_step = upcd_log_round_step,
		.context = &upcd->round,
	};
	uint64_t freed_pages = 0;
	bool rounds = false;

	for (size_t i = 0; i < upcd->nr_runs; i++) {
		struct upcc_scope_run *run = &upcd->runs[i];
		struct upcc_tick_report tick;

		if (i && upcc_pace_stop_now())
			break;
		upcd_round_log_begin(&upcd->round, &upcd->logs[i]);
		upcc_control_tick(run, upcc_measure, upcd->page_size,
				  upcd->config.interval_ms * 1000, &limits, &tick);
		rounds |= tick.round;
		if (!tick.round)
			continue;
		if (tick.above_trigger)
			upcc_log(LOG_DEBUG, "scope %s: round started by a tick above the trigger",
				 run->scope.name);
		freed_pages += round_end(upcd, run, &tick.round_report);
	}
	if (rounds)
		compact_after_round(upcd, freed_pages);
	/* After a round; between rounds only the effective target moves (it
	 * decays on ticks alone): at most once an interval when it did, else
	 * once a minute.  An idle daemon writes next to nothing.
	 */
	uint64_t now = upcc_monotonic_usec(), since = now - upcd->last_report_usec, aim = 0;

	for (size_t i = 0; i < upcd->nr_runs; i++)
		aim += upcd->runs[i].state.effective_target_pages;
	if (rounds || since >= REPORT_HEARTBEAT_USEC ||
	    (aim != upcd->last_report_aim && since >= upcd->config.interval_ms * 1000)) {
		write_reports(upcd);
		upcd->last_report_usec = now;
		upcd->last_report_aim = aim;
	}
	send_status(upcd, false);
}

/* --once: one round with no time budget (the step bound still holds). */
static int serve_once(struct upcd *upcd)
{
	struct upcc_round_limits limits = {
		.budget_usec = UINT64_MAX,
		.max_steps = ONCE_MAX_STEPS,
		.on_step = upcd_log_round_step,
		.context = &upcd->round,
	};
	unsigned int missed = 0;
	int failures = control_round(upcd, &limits, &missed);
	size_t unusable = 0;

	if (upcc_pace_stop_now()) {
		upcc_log(LOG_NOTICE, "signal: stopping");
		return UPCC_EXIT_OK;
	}
	/* A dry run that shows what a scope with no backend "would" do has
	 * not shown that the real run could: it fails as the real one would.
	 */
	for (size_t i = 0; i < upcd->nr_runs; i++)
		unusable += !upcd->runs[i].backend_ready;
	if (unusable) {
		upcc_log(LOG_ERR, "%zu of %zu scope(s) have no usable backend", unusable,
			 upcd->nr_runs);
		return UPCC_EXIT_FAILURE;
	}
	/* --once is run by scripts and timers: a report it could not write
	 * is a failure they must see, not only a log line.
	 */
	if (failures || upcd->reports_failed)
		return UPCC_EXIT_FAILURE;
	return missed ? UPCC_EXIT_TARGET_MISSED : UPCC_EXIT_OK;
}

static int arm_timer(int fd, uint64_t period_usec)
{
	struct itimerspec spec = {
		.it_interval = { (time_t)(period_usec / 1000000), (long)(period_usec % 1000000) * 1000 },
	};

	spec.it_value = spec.it_interval;
	if (!spec.it_value.tv_sec && !spec.it_value.tv_nsec)
		spec.it_value.tv_nsec = 1;
	return timerfd_settime(fd, 0, &spec, NULL);
}

static void watchdog_ping(struct upcd *upcd)
{
	upcc_notify("WATCHDOG=1");
	upcd->last_ping_usec = upcc_monotonic_usec();
}

/*
 * The pace hook (pace.h), run by walks and per-file loops every few dozen
 * files: a walk of a big tree can take longer than the watchdog period,
 * so the ping is sent from inside it when half the period has passed, and
 * a waiting SIGTERM, SIGINT or SIGHUP cuts the work short (the signals are
 * blocked for the signalfd, so they wait in the pending set).
 */
static bool pace_check(void *ctx)
{
	struct upcd *upcd = ctx;
	sigset_t pending;

	if (upcd->watchdog_usec &&
	    upcc_monotonic_usec() - upcd->last_ping_usec >= upcd->watchdog_usec / 2)
		watchdog_ping(upcd);
	if (sigpending(&pending))
		return false;
	return sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 ||
	       sigismember(&pending, SIGHUP) == 1;
}

/*
 * A reload that took says what it changed, by the settings' names in
 * upcd.conf (confdiff.h): "reloaded: 2 scope(s), interval 1000 ms:
 * target of scope data 64Mi -> 48Mi"; in the journal the count is
 * CHANGES= and the list CHANGED=.
 */
static void log_reloaded(const struct upcd *upcd, const struct upcc_config *old_config)
{
	char changed[700], shown[1400], count[24];
	size_t changes = upcd_config_diff(old_config, &upcd->config, changed, sizeof(changed));
	const struct upcc_journal_field fields[] = {
		{ "UPCC_EVENT", "reload" },
		{ "CHANGES", (snprintf(count, sizeof(count), "%zu", changes), count) },
		{ "CHANGED", shown },
		{ NULL, NULL },
	};

	/* Paths from the config (path, exclude, state) may hold anything a
	 * file name may: the field shows them as the message does.
	 */
	upcc_text_printable(shown, sizeof(shown), changed);

	upcc_log_fields(LOG_NOTICE, fields, "reloaded: %zu scope(s), interval %llu ms: %s",
			upcd->config.nr_scopes, (unsigned long long)upcd->config.interval_ms, shown);
}

/*
 * SIGHUP: a new config replaces the old only if it parses, its state file
 * is not another upcd's (a new state = moves the lock, lock.h) and its
 * backends work.
 */
static void reload(struct upcd *upcd)
{
	struct upcc_config new_config, old_config = upcd->config;
	struct upcc_scope_run *new_runs = NULL;
	int err, new_lock = -1;

	upcc_notify("RELOADING=1");
	if (upcd_build_config(&upcd->options, &new_config)) {
		upcc_log(LOG_ERR, "reload: keeping the old configuration");
		upcc_notify("READY=1");
		return;
	}
	if (upcd_lock_state(upcd->lock_fd, new_config.state_path, &new_lock)) {
		upcc_log(LOG_ERR, "reload: keeping the old configuration");
		upcc_config_free(&new_config);
		upcc_notify("READY=1");
		return;
	}
	/* The old backends the new config changes let go first: two fadvise
	 * inventories or two DAMON contexts for one scope must never coexist.
	 * One it leaves as it was is taken over, running (scoperun.h).
	 */
	upcc_runs_release_changed(&new_config, upcd_run_mode(&upcd->options, &new_config),
				  upcd->runs, upcd->nr_runs);
	upcd->config = new_config;
	err = upcc_runs_build(&upcd->config, upcd_run_mode(&upcd->options, &upcd->config), upcd->runs,
			      upcd->nr_runs, &new_runs);
	if (err) {
		/* What was taken over goes with the new runs: the old
		 * configuration starts its backends afresh.
		 */
		upcc_log(LOG_ERR, "reload: a scope has no backend: keeping the old configuration");
		if (new_lock != upcd->lock_fd)
			upcd_lock_release(new_lock);
		upcc_runs_free(new_runs, upcd->config.nr_scopes);
		upcc_config_free(&upcd->config);
		upcd->config = old_config;
		for (size_t i = 0; i < upcd->nr_runs; i++) {
			/* One the build never reached (ENOMEM) still runs. */
			upcc_run_release(&upcd->runs[i]);
			upcc_run_setup(&upcd->runs[i], &upcd->config, upcd->config.dry_run);
		}
	} else {
		log_reloaded(upcd, &old_config);
		free(upcd->runs);
		upcc_config_free(&old_config);
		if (new_lock != upcd->lock_fd)
			upcd_lock_release(upcd->lock_fd);
		upcd->lock_fd = new_lock;
		upcd->runs = new_runs;
		upcd->nr_runs = upcd->config.nr_scopes;
		memset(upcd->logs, 0, sizeof(upcd->logs));
		if (upcd->config.dry_run != old_config.dry_run)
			upcc_log(LOG_NOTICE, "reloaded: %s", upcd->config.dry_run ?
				 "dry run: deciding and reporting, reclaiming nothing" :
				 "dry run over: reclaiming");
		if (upcd->config.compact != old_config.compact)
			probe_compaction(upcd);
	}
	upcc_notify("READY=1");
}

static int add_fd(int epoll_fd, int fd)
{
	struct epoll_event event = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}

static int drain_fd(int fd, void *buffer, size_t size)
{
	return read(fd, buffer, size) < 0 && errno != EAGAIN ? -errno : 0;
}

static int event_loop(struct upcd *upcd, int signal_fd)
{
	uint64_t watchdog_usec = upcc_notify_watchdog_usec();
	int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	int tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	int watchdog_fd = watchdog_usec ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK) : -1;
	uint64_t interval_ms = upcd->config.interval_ms, period_usec = tick_usec(upcd);
	bool running = true;
	int rc = 0;

	if (epoll_fd < 0 || tick_fd < 0 || (watchdog_usec && watchdog_fd < 0) ||
	    add_fd(epoll_fd, signal_fd) || add_fd(epoll_fd, tick_fd) ||
	    arm_timer(tick_fd, period_usec) ||
	    (watchdog_fd >= 0 && (add_fd(epoll_fd, watchdog_fd) ||
				  arm_timer(watchdog_fd, watchdog_usec / 2)))) {
		upcc_log(LOG_ERR, "cannot set up the event loop: %s", strerror(errno));
		rc = UPCC_EXIT_FAILURE;
		running = false;
	}
	if (running) {
		/* Ready once set up: the first round may walk a big tree. */
		upcc_notify("READY=1");
		watchdog_ping(upcd);
		daemon_tick(upcd);
		send_status(upcd, true);
	}
	while (running) {
		struct epoll_event event;
		int ready = epoll_wait(epoll_fd, &event, 1, -1);

		if (ready < 0 && errno == EINTR)
			continue;
		if (ready < 0) {
			upcc_log(LOG_ERR, "epoll_wait: %s", strerror(errno));
			rc = UPCC_EXIT_FAILURE;
			break;
		}
		if (event.data.fd == signal_fd) {
			struct signalfd_siginfo info;

			if (drain_fd(signal_fd, &info, sizeof(info)))
				continue;
			if (info.ssi_signo == SIGHUP) {
				reload(upcd);
				/* The reloaded scopes have not been measured yet:
				 * STATUS= after the next tick's round, whatever the time.
				 */
				upcd->status_usec = 0;
				if (upcd->config.interval_ms != interval_ms ||
				    tick_usec(upcd) != period_usec) {
					interval_ms = upcd->config.interval_ms;
					period_usec = tick_usec(upcd);
					arm_timer(tick_fd, period_usec);
				}
			} else {
				upcc_log(LOG_NOTICE, "signal %u: stopping", info.ssi_signo);
				running = false;
			}
		} else if (event.data.fd == tick_fd) {
			uint64_t expirations;

			drain_fd(tick_fd, &expirations, sizeof(expirations));
			daemon_tick(upcd);
		} else {
			uint64_t expirations;

			drain_fd(watchdog_fd, &expirations, sizeof(expirations));
			watchdog_ping(upcd);
		}
	}
	upcc_notify("STOPPING=1");
	if (watchdog_fd >= 0)
		close(watchdog_fd);
	if (tick_fd >= 0)
		close(tick_fd);
	if (epoll_fd >= 0)
		close(epoll_fd);
	return rc;
}

/* Signals arrive through a signalfd, so they must not be delivered the old way. */
static int block_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
}

int upcd_serve(struct upcd *upcd)
{
	int rc, signal_fd;

	upcd->start_unix_usec = upcc_realtime_usec();
	upcd->round.page_size = upcd->page_size;
	upcd->round.once = upcd->options.once;
	if (upcd->config.dry_run && !upcd->options.dry_run)
		upcc_log(LOG_NOTICE,
			 "dry run (\"dry_run = yes\" in the config): deciding and reporting, reclaiming nothing");
	probe_compaction(upcd);
	upcd->watchdog_usec = upcc_notify_watchdog_usec();
	signal_fd = block_signals();
	upcc_pace_set(pace_check, upcd);
	if (signal_fd < 0) {
		upcc_log(LOG_ERR, "signalfd: %s", strerror(errno));
		return UPCC_EXIT_FAILURE;
	}
	rc = upcd->options.once ? serve_once(upcd) : event_loop(upcd, signal_fd);
	close(signal_fd);
	return rc;
}
