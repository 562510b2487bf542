/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fanotify.h - learning the files opened since the last walk: a
 * filesystem-wide fanotify mark on each root's filesystem reports every
 * close with a file handle.  It knows roots and two callbacks, nothing of
 * who keeps the files (the inventory, inventory.h).
 */
#ifndef UPCC_FANOTIFY_H
#define UPCC_FANOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define UPCC_FANOTIFY_SEEN_SLOTS	1024u
#define UPCC_FANOTIFY_BUFFER		65536u
/* Our own opens between drains, at most: each is an event in our own
 * queue, and the queue holds fs.fanotify.max_queued_events (16384 by
 * default) before it overflows.
 */
#define UPCC_FANOTIFY_OWN_OPENS_PER_DRAIN	2048u

/* One tree whose files are learnt: the path scope's root, or one local
 * disk mount of the system scope.  Nothing of it holds the filesystem: an
 * unmount must never find it busy (fanotify's filesystem mark does not
 * pin a mount; it goes with the superblock).
 */
struct upcc_fanotify_root {
	char *path;			/* realpath: fanotify events give absolute paths */
	dev_t dev;
	bool mount_point;		/* a mount point (or /) when added or renewed */
	/* The root, for open_by_handle_at: opened when a parse meets the
	 * first event for it and closed at the parse's end, else -1.
	 */
	int mount_fd;
	bool mount_fd_failed;		/* that parse could not open it (unmounted?) */
	int32_t fsid[2];		/* statfs f_fsid: which root an event's handle is for */
	bool marked;			/* its filesystem has our fanotify mark */
};

/* Fill @root for @path (taken on success): its device and whether it is a
 * mount point now, not marked, no fd.  0 or -errno (@path unreachable).
 */
int upcc_fanotify_root_init(struct upcc_fanotify_root *root, char *path);

/* What became of a root since it was marked (or last renewed). */
enum upcc_fanotify_root_change {
	UPCC_FANOTIFY_ROOT_SAME,
	UPCC_FANOTIFY_ROOT_MISSING,	/* its path is gone */
	UPCC_FANOTIFY_ROOT_UNMOUNTED,	/* it was a mount point and is not one now */
	/* Another filesystem is at its path, or the same one mounted again
	 * (an unmount took our mark with its superblock).
	 */
	UPCC_FANOTIFY_ROOT_NEW,
};

/* How a root's files are learnt, for logs: "fanotify mark, walk" or "walks only". */
static inline const char *upcc_fanotify_root_learning(const struct upcc_fanotify_root *root)
{
	return root->marked ? "fanotify mark, walk" : "walks only";
}

/* What fanotify works on: the roots, and what to do with a file an event
 * names.
 */
struct upcc_fanotify_view {
	struct upcc_fanotify_root *roots;
	size_t nr_roots;
	/* Measure and keep a regular file a close event named, in a marked
	 * root: 0 if kept (then it counts as learnt).
	 */
	int (*learn)(void *ctx, int fd, const struct stat *st, const char *path);
	/* (@dev, @ino), learnt before, is known and measured now: note a
	 * use and return true; false: it is learnt again.
	 */
	bool (*known)(void *ctx, dev_t dev, ino_t ino);
	void *ctx;
};

/* fd -1 when unavailable. */
struct upcc_fanotify {
	int fd;				/* fanotify group, FAN_REPORT_FID */
	uint64_t events;		/* close events read */
	uint64_t learned;		/* of those, files in the tree noted */
	uint64_t overflows;		/* queue overflows: the next refresh walks */
	uint32_t own_opens;		/* files we opened since the last drain */
	bool draining;			/* in upcc_fanotify_drain: a learn opens files */
	bool need_walk;
	char why[96];			/* why not (or not for every root) */
	/* One lookup per file per drain: a small direct-mapped cache of
	 * handle hashes, cleared per drain (a collision only costs a missed
	 * duplicate or one skipped event, which the rewalk catches).
	 */
	uint64_t seen[UPCC_FANOTIFY_SEEN_SLOTS];
	/* Handles already learnt (hash -> dev, ino), kept across drains: an
	 * event for a file measured this refresh is only a use, noted
	 * without opening it (a hot set re-read sends many).
	 */
	struct upcc_fanotify_known {
		uint64_t hash;
		dev_t dev;
		ino_t ino;
	} known[UPCC_FANOTIFY_SEEN_SLOTS];
	char *buffer;			/* UPCC_FANOTIFY_BUFFER bytes, for reads */
};

/* No group yet (fd -1); upcc_fanotify_fini is then safe. */
void upcc_fanotify_init(struct upcc_fanotify *fan);
void upcc_fanotify_fini(struct upcc_fanotify *fan);

/* Mark the filesystem of each of the @nr_roots @roots (unless
 * upcc_hooks.no_fanotify).  Marking learns nothing, so it takes the roots
 * alone, not a view with its callbacks: whoever keeps the roots marks them.
 */
void upcc_fanotify_start(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			 size_t nr_roots);

/* Mark @roots[@index], a root joined later: a filesystem another of the
 * @nr_roots roots has marked already needs no second mark.
 */
void upcc_fanotify_mark_root(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			     size_t nr_roots, size_t index);

/*
 * Look at @root's path: a stat, and for a marked root a fanotify_mark(2)
 * that removes an event we never asked for, which fails only where our
 * mark is gone (ENOENT): a filesystem unmounted and mounted again between
 * two looks shows the same device and mount point, but it would send no
 * event any more.
 */
enum upcc_fanotify_root_change upcc_fanotify_check_root(const struct upcc_fanotify *fan,
							 const struct upcc_fanotify_root *root);

/*
 * Take @roots[@index] as its path shows it now (UPCC_FANOTIFY_ROOT_NEW)
 * and mark it again, with the other roots of the filesystem it was on:
 * their mark went with the same superblock.  Without a marked root left
 * the group is closed, so that every refresh walks.
 */
void upcc_fanotify_renew_root(struct upcc_fanotify *fan, struct upcc_fanotify_root *roots,
			      size_t nr_roots, size_t index);

/* Read the queued events: at most @budget of them (others' events), the
 * rest wait for the next drain.
 */
void upcc_fanotify_drain(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
			 uint64_t budget);

/*
 * Count a file we opened (and closed).  Our own events are ignored, but
 * they fill the queue as others' do: a walk of more files than it holds
 * overflowed it, the overflow made the next refresh walk every root, and
 * that walk overflowed it again, so every refresh walked.  Every
 * UPCC_FANOTIFY_OWN_OPENS_PER_DRAIN of them the queue is read (at most
 * @budget of others' events), unless a drain is under way.
 */
void upcc_fanotify_note_own_open(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
				 uint64_t budget);

/*
 * The parser under upcc_fanotify_drain, for one read's @len bytes: every
 * whole event not from @self is counted, an overflow sets need_walk, each
 * FID record's handle is looked up (known) or learnt; *@budget drops by
 * one an event.  Truncated or malformed records end the buffer.  The
 * roots' directories it opened to learn are closed when it returns.
 */
void upcc_fanotify_parse(struct upcc_fanotify *fan, const struct upcc_fanotify_view *view,
			 const char *buf, size_t len, pid_t self, uint64_t *budget);

#endif /* UPCC_FANOTIFY_H */
