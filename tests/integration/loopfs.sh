# SPDX-License-Identifier: GPL-2.0
# loopfs.sh - sourced by the integration suites: a scratch ext4 image on a
# loop device, under build/integration/, that the suite makes, mounts and
# removes on exit whatever happens.  The suite defines fail and finish.
#
#   loopfs_init NAME        sets $work, $mnt, $loop (empty), pids=() and the
#                           traps that kill pids, unmount, detach and remove
#   loopfs_mount SIZE [OPT] truncate, losetup, mkfs.ext4, mount [-o OPT]

loopfs_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if mountpoint -q "$mnt" 2>/dev/null; then umount "$mnt" || umount -l "$mnt"; fi
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work"
}

loopfs_init() {
	mkdir -p build/integration
	work=$(mktemp -d "$PWD/build/integration/$1.XXXXXX")
	mnt=$work/mnt
	loop=
	pids=()
	trap loopfs_cleanup EXIT
	trap 'exit 1' INT TERM
}

loopfs_mount() {
	local size=$1 opts=${2:+-o $2}

	mkdir -p "$mnt"
	truncate -s "$size" "$work/disk.img"
	loop=$(losetup -f --show "$work/disk.img") || { loop=; fail "setup: losetup"; finish; }
	mkfs.ext4 -q -F "$loop" || { fail "setup: mkfs.ext4"; finish; }
	# shellcheck disable=SC2086 # $opts is "-o OPTIONS" or nothing
	mount $opts "$loop" "$mnt" || { fail "setup: mount"; finish; }
}
