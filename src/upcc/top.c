// SPDX-License-Identifier: GPL-2.0
/*
 * top.c - upcc top: the daemon's state file, redrawn with rates; see top.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "coltable.h"
#include "core/common.h"
#include "lib/clock.h"
#include "lib/text.h"
#include "report/state.h"
#include "status.h"
#include "top.h"

#define DEFAULT_DELAY_S		2.0
#define MIN_DELAY_S		0.1
#define MAX_DELAY_S		3600.0

/* One reading of the state file, and when (monotonic) it was taken. */
struct frame {
	int err;			/* 0, or why the file could not be read */
	struct upcc_state_header header;
	struct upcc_state_scope scopes[UPCC_MAX_SCOPES];
	size_t nr_scopes;
	uint64_t taken_usec;
};

struct top {
	const char *state_path;
	double delay_s;
	bool exact;			/* --bytes */
	bool screen;			/* stdout is a terminal: redraw in place */
	struct frame frames[2];		/* the last two readings */
	struct frame *now, *before;	/* before: NULL at the first */
};

static volatile sig_atomic_t stop_signal, resized;

static void on_signal(int signo)
{
	if (signo == SIGWINCH)
		resized = 1;
	else
		stop_signal = signo;
}

static void top_usage(FILE *out)
{
	fprintf(out,
		"Usage: upcc top [-d SECONDS] [-n N] [--bytes] [--state FILE | --config FILE]\n"
		"What upcd is doing, redrawn every SECONDS: per scope the unmapped cache,\n"
		"the target it aims at, what it reclaimed so far, and over the last\n"
		"interval what it reclaimed per second (RECLAIM/s), what came into the\n"
		"unmapped cache per second (INFLOW/s: its growth plus what was\n"
		"reclaimed) and control rounds per second.  Read from upcd's state file\n"
		"only: the scopes are not measured (upcc status does that).\n"
		"On a terminal: q or Ctrl-C quits.  Otherwise frames follow each other.\n\n"
		"  -d, --delay SECONDS    between frames (default 2, at least 0.1)\n"
		"  -n, --iterations N     stop after N frames (default: until quit)\n"
		"  --bytes                exact byte counts instead of sizes\n"
		"  --state FILE           upcd's state file\n"
		"  --config FILE          where to find it without --state: the config's\n"
		"                         \"state =\" (default " UPCC_DEFAULT_CONFIG_PATH ", if\n"
		"                         present; else " UPCC_DEFAULT_STATE_PATH ")\n"
		"  -h, --help             this help\n\n"
		"Exit codes: 0; 1 the --state FILE cannot be read at the first frame;\n"
		"2 bad usage, or the --config FILE cannot be used; 3 upcd was not\n"
		"running, or its state was stale, at the last frame.\n");
}

static void read_frame(const struct top *top, struct frame *frame)
{
	frame->taken_usec = upcc_monotonic_usec();
	frame->nr_scopes = 0;
	frame->err = upcc_state_read(top->state_path, &frame->header, frame->scopes,
				     UPCC_MAX_SCOPES, &frame->nr_scopes);
}

/* Is the daemon of @frame at work: its process runs and keeps its heartbeat? */
static bool frame_running(const struct frame *frame)
{
	return !frame->err && upcc_state_daemon_alive(&frame->header) &&
	       !upcc_state_stale(&frame->header, (long long)time(NULL));
}

static const struct upcc_state_scope *find_scope(const struct frame *frame, const char *name)
{
	for (size_t i = 0; frame && !frame->err && i < frame->nr_scopes; i++)
		if (strcmp(frame->scopes[i].name, name) == 0)
			return &frame->scopes[i];
	return NULL;
}

/* The first line: the time, the period, and what the state says of upcd. */
static void put_title(const struct top *top, FILE *out)
{
	const struct frame *frame = top->now;
	char clock[16], path[4 * 256];
	time_t t = time(NULL);
	struct tm tm;

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&t, &tm));
	fprintf(out, "upcc top - %s, every %gs%s\n", clock, top->delay_s,
		top->screen ? " (q quits)" : "");
	upcc_text_printable(path, sizeof(path), top->state_path);
	if (frame->err) {
		fprintf(out, "upcd: cannot read its state %s: %s\n", path,
			frame->err == -ENOENT ? "no such file (not running?)" :
			frame->err == -EINVAL ? "not an upcd state file (version 2)" :
			strerror(-frame->err));
		return;
	}
	if (!upcc_state_daemon_alive(&frame->header))
		fprintf(out, "upcd: not running (stale state %s of pid %ld)\n", path,
			frame->header.pid);
	else
		fprintf(out, "upcd: pid %ld %s%s, state updated %llds ago (%s)\n",
			frame->header.pid, frame_running(frame) ? "running" : "stale",
			frame->header.dry_run ? ", dry run" : "",
			(long long)time(NULL) - frame->header.updated, path);
}

enum { COL_SCOPE, COL_UNMAPPED, COL_TARGET, COL_RECLAIMED, COL_RATE, COL_INFLOW, COL_ROUNDS,
       COL_BACKEND, NR_COLS };

static const struct upcc_column top_columns[NR_COLS] = {
	[COL_SCOPE] = { .header = "SCOPE", .type = UPCC_COLUMN_TEXT, .width = 12, .left = true },
	[COL_UNMAPPED] = { .header = "UNMAPPED", .type = UPCC_COLUMN_PAGES },
	[COL_TARGET] = { .header = "TARGET", .type = UPCC_COLUMN_PAGES },
	[COL_RECLAIMED] = { .header = "RECLAIMED", .type = UPCC_COLUMN_PAGES, .extra = 1 },
	[COL_RATE] = { .header = "RECLAIM/s", .type = UPCC_COLUMN_PAGES, .extra = 1 },
	[COL_INFLOW] = { .header = "INFLOW/s", .type = UPCC_COLUMN_PAGES },
	[COL_ROUNDS] = { .header = "ROUNDS/s", .type = UPCC_COLUMN_TEXT, .width = 8 },
	[COL_BACKEND] = { .header = "BACKEND", .type = UPCC_COLUMN_TEXT, .width = 8, .left = true },
};

/* What a scope's rates are made of: counts per second over the interval. */
struct rates {
	bool known;			/* a reading before, of the same daemon and scope */
	uint64_t reclaimed_pages;	/* per second */
	uint64_t inflow_pages;
	double rounds;
};

static uint64_t per_second(uint64_t delta, double seconds)
{
	double rate = (double)delta / seconds;

	return rate >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(rate + 0.5);
}

/*
 * Over the interval from @was to @is: a counter that went down (another
 * daemon, a restart) or a daemon that changed has no rate.  The inflow is
 * what the unmapped cache grew by plus what was taken out of it.
 */
static struct rates scope_rates(const struct top *top, const struct upcc_state_scope *is)
{
	const struct upcc_state_scope *was = top->before ? find_scope(top->before, is->name) : NULL;
	double seconds;
	struct rates r = { 0 };
	uint64_t reclaimed;
	int64_t grown;

	if (!was || top->before->header.pid != top->now->header.pid ||
	    top->before->header.start_time != top->now->header.start_time ||
	    is->reclaimed_pages_total < was->reclaimed_pages_total ||
	    is->rounds_total < was->rounds_total)
		return r;
	seconds = (double)(top->now->taken_usec - top->before->taken_usec) / 1e6;
	if (seconds <= 0)
		return r;
	reclaimed = is->reclaimed_pages_total - was->reclaimed_pages_total;
	grown = (int64_t)is->unmapped_pages - (int64_t)was->unmapped_pages;
	r.known = true;
	r.reclaimed_pages = per_second(reclaimed, seconds);
	r.inflow_pages = grown + (int64_t)reclaimed > 0 ?
			 per_second((uint64_t)(grown + (int64_t)reclaimed), seconds) : 0;
	r.rounds = (double)(is->rounds_total - was->rounds_total) / seconds;
	return r;
}

/* The scope table, as `upcc status` has its columns (coltable.h). */
static void put_table(const struct top *top, FILE *out)
{
	static char names[UPCC_MAX_SCOPES][4 * 64], backends[UPCC_MAX_SCOPES][4 * 16];
	const struct frame *frame = top->now;
	struct upcc_cell cells[NR_COLS];
	struct upcc_coltable table;
	char rounds[24];

	if (frame->err)
		return;
	upcc_coltable_init(&table, top_columns, NR_COLS, frame->header.page_size, top->exact);
	for (size_t i = 0; i < frame->nr_scopes; i++) {
		upcc_text_printable(names[i], sizeof(names[i]), frame->scopes[i].name);
		upcc_text_printable(backends[i], sizeof(backends[i]),
				    frame->scopes[i].has_backend ? frame->scopes[i].backend : "-");
		upcc_coltable_fit(&table, COL_SCOPE, names[i]);
	}
	fputc('\n', out);
	upcc_coltable_header(&table, out);
	for (size_t i = 0; i < frame->nr_scopes; i++) {
		const struct upcc_state_scope *s = &frame->scopes[i];
		struct rates r = scope_rates(top, s);

		snprintf(rounds, sizeof(rounds), "%.1f", r.rounds);
		cells[COL_SCOPE] = (struct upcc_cell){ 0, names[i] };
		cells[COL_UNMAPPED] = (struct upcc_cell){ s->unmapped_pages, NULL };
		cells[COL_TARGET] = (struct upcc_cell){
			s->effective_target_pages ? s->effective_target_pages : s->target_pages, NULL };
		cells[COL_RECLAIMED] = (struct upcc_cell){ s->reclaimed_pages_total, NULL };
		cells[COL_RATE] = (struct upcc_cell){ r.reclaimed_pages, r.known ? NULL : "-" };
		cells[COL_INFLOW] = (struct upcc_cell){ r.inflow_pages, r.known ? NULL : "-" };
		cells[COL_ROUNDS] = (struct upcc_cell){ 0, r.known ? rounds : "-" };
		cells[COL_BACKEND] = (struct upcc_cell){ 0, backends[i] };
		upcc_coltable_row(&table, cells, out);
	}
}

/* The terminal's size; 80x24 when it will not say. */
static void screen_size(unsigned int *cols, unsigned int *rows)
{
	struct winsize ws;

	*cols = 80;
	*rows = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
	}
}

/*
 * One frame.  On a terminal: from the top left, each line cut to the
 * width and the frame to the height (a line that wrapped would scroll
 * the title away), the rest of the screen cleared.  Elsewhere as it is.
 */
static void draw(const struct top *top)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	unsigned int cols, rows, row = 0;

	if (!out)
		return;
	put_title(top, out);
	put_table(top, out);
	fclose(out);
	if (!top->screen) {
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
		fflush(stdout);
		free(text);
		return;
	}
	screen_size(&cols, &rows);
	fputs("\033[H", stdout);
	for (char *line = text, *end; *line && row < rows; line = end + 1, row++) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		fwrite(line, 1, (size_t)(end - line) < cols ? (size_t)(end - line) : cols, stdout);
		fputs("\033[K", stdout);	/* the rest of the line cleared */
		if (row + 1 < rows)
			fputc('\n', stdout);
		if (!*end)
			break;
	}
	fputs("\033[J", stdout);		/* and the rest of the screen */
	fflush(stdout);
	free(text);
}

static struct termios saved_termios;
static bool termios_saved;

/*
 * The terminal for a live view: keys read one at a time without echo
 * (q quits), the alternate screen, the cursor hidden; all undone at exit.
 */
static void screen_enter(void)
{
	struct termios raw;

	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved_termios) == 0) {
		raw = saved_termios;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		termios_saved = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
}

static void screen_leave(void)
{
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	if (termios_saved)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
}

/* Ctrl-C and SIGTERM end the loop (and the terminal is restored); a
 * resize redraws.  No SA_RESTART: the wait's poll returns at once.
 */
static void catch_signals(void)
{
	struct sigaction action = { .sa_handler = on_signal };

	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
	sigaction(SIGWINCH, &action, NULL);
}

/* A key waiting on the terminal: true if it says quit. */
static bool quit_key(void)
{
	char keys[16];
	ssize_t n = read(STDIN_FILENO, keys, sizeof(keys));

	for (ssize_t i = 0; i < n; i++)
		if (keys[i] == 'q' || keys[i] == 'Q')
			return true;
	return false;
}

/*
 * Until the next frame is due: keys (on a terminal), a resize (redrawn
 * at once), a signal.  False when it is time to stop.
 */
static bool wait_next(const struct top *top)
{
	uint64_t due = upcc_monotonic_usec() + (uint64_t)(top->delay_s * 1e6);
	struct pollfd key = { .fd = STDIN_FILENO, .events = POLLIN };
	bool keys = top->screen && termios_saved;

	for (;;) {
		uint64_t now = upcc_monotonic_usec();
		int ready;

		if (stop_signal)
			return false;
		if (resized) {
			resized = 0;
			if (top->screen)
				draw(top);
		}
		if (now >= due)
			return true;
		ready = poll(keys ? &key : NULL, keys ? 1 : 0, (int)((due - now + 999) / 1000));
		if (ready > 0 && (key.revents & POLLIN) && quit_key())
			return false;
		if (ready > 0 && (key.revents & (POLLHUP | POLLERR)))
			keys = false;	/* the terminal went away: wait on the time alone */
	}
}

static int parse_options(int argc, char **argv, struct top *top, long *iterations,
			 const char **config_path)
{
	static const struct option long_options[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "bytes", no_argument, NULL, 'b' },
		{ "state", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "d:n:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'd':
			errno = 0;
			top->delay_s = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(top->delay_s >= MIN_DELAY_S) ||
			    top->delay_s > MAX_DELAY_S) {
				fprintf(stderr, "upcc top: --delay \"%s\": a number of seconds from 0.1 to 3600\n",
					optarg);
				return UPCC_EXIT_USAGE;
			}
			break;
		case 'n':
			errno = 0;
			*iterations = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || *iterations < 1) {
				fprintf(stderr, "upcc top: --iterations \"%s\": a whole number, at least 1\n",
					optarg);
				return UPCC_EXIT_USAGE;
			}
			break;
		case 'b': top->exact = true; break;
		case 's': top->state_path = optarg; break;
		case 'c': *config_path = optarg; break;
		case 'h': top_usage(stdout); return -1;
		default: top_usage(stderr); return UPCC_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "upcc top: unexpected argument \"%s\"\n", argv[optind]);
		return UPCC_EXIT_USAGE;
	}
	return 0;
}

int upcc_top_main(int argc, char **argv)
{
	static struct top top = { .delay_s = DEFAULT_DELAY_S };
	static char found_state[PATH_MAX];
	const char *config_path = NULL;
	long iterations = 0;
	int err;

	err = parse_options(argc, argv, &top, &iterations, &config_path);
	if (err)
		return err < 0 ? 0 : err;
	if (!top.state_path) {
		err = upcc_status_find_state(config_path, found_state, sizeof(found_state));
		if (err)
			return err;
		top.state_path = found_state;
	}
	top.now = &top.frames[0];
	read_frame(&top, top.now);
	if (top.now->err && top.state_path != found_state) {
		/* A file asked for by name that is not there is a mistake to say at once. */
		fputs("upcc top: cannot read state file ", stderr);
		upcc_fputs_printable(top.state_path, stderr);
		fprintf(stderr, ": %s\n", strerror(-top.now->err));
		return UPCC_EXIT_FAILURE;
	}
	top.screen = isatty(STDOUT_FILENO);
	catch_signals();
	if (top.screen)
		screen_enter();
	for (long frame = 1;; frame++) {
		draw(&top);
		if ((iterations && frame >= iterations) || !wait_next(&top))
			break;
		top.before = top.now;
		top.now = top.now == &top.frames[0] ? &top.frames[1] : &top.frames[0];
		read_frame(&top, top.now);
	}
	if (top.screen)
		screen_leave();
	return frame_running(top.now) ? 0 : UPCC_EXIT_NOT_RUNNING;
}
