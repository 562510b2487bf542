#!/usr/bin/env bash
# Scenario (g)'s disk: a copy of the data image on an ext4 filesystem of the
# bench's own, on a loop device the bench creates and removes, so that QEMU's
# cache=none (O_DIRECT) works whatever filesystem the checkout is on.  The
# loop device reads its backing file with direct I/O too (--direct-io=on),
# so neither layer leaves the image in the host page cache.  Nothing else on
# the host is touched: one loop device, one mount under DIR.
#
#   loopimg.sh up IMAGE DIR [MORE...]   prints the copy's path, the backing
#                                       file's, then each MORE image's copy
#   loopimg.sh down DIR                 unmounts, detaches, removes the backing file
set -euo pipefail

die() { echo "loopimg: $*" >&2; exit 1; }

down() {
	local dir=$1 dev
	if mountpoint -q "$dir/cachenone.mnt" 2>/dev/null; then
		umount "$dir/cachenone.mnt"
	fi
	if [ -f "$dir/cachenone.dev" ]; then
		dev=$(cat "$dir/cachenone.dev")
		# only the device that still points at our backing file
		if losetup -n -O BACK-FILE "$dev" 2>/dev/null | grep -qF "$dir/cachenone.ext4"; then
			losetup -d "$dev"
		fi
		rm -f "$dir/cachenone.dev"
	fi
	rm -f "$dir/cachenone.ext4"
	rmdir "$dir/cachenone.mnt" 2>/dev/null || true
}

case ${1:-} in
up)
	image=${2:?usage: loopimg.sh up IMAGE DIR [MORE...]}
	dir=${3:?usage: loopimg.sh up IMAGE DIR [MORE...]}
	shift 3
	more=("$@")
	[ "$(id -u)" = 0 ] || die "needs root (losetup, mount)"
	down "$dir"
	size_mib=256
	for f in "$image" "${more[@]}"; do size_mib=$(( size_mib + $(stat -c %s "$f") / 1048576 )); done
	truncate -s "${size_mib}M" "$dir/cachenone.ext4"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dir/cachenone.ext4"
	dev=$(losetup --find --show --direct-io=on "$dir/cachenone.ext4" 2>/dev/null) ||
		dev=$(losetup --find --show "$dir/cachenone.ext4") ||
		die "losetup failed"
	echo "$dev" >"$dir/cachenone.dev"
	mkdir -p "$dir/cachenone.mnt"
	mount -t ext4 "$dev" "$dir/cachenone.mnt"
	dd if="$image" of="$dir/cachenone.mnt/data.img" bs=4M oflag=direct status=none
	# what the copy left in the host cache: our own files only
	dd if="$dir/cachenone.mnt/data.img" iflag=nocache count=0 status=none
	dd if="$dir/cachenone.ext4" iflag=nocache count=0 status=none
	echo "loopimg: $dev ($(losetup -n -O DIO "$dev" | tr -d ' ' | sed 's/1/direct-io on/;s/0/direct-io off/')) at $dir/cachenone.mnt" >&2
	echo "$dir/cachenone.mnt/data.img"
	echo "$dir/cachenone.ext4"
	for f in "${more[@]}"; do
		copy=$dir/cachenone.mnt/more-$(basename "$f")
		dd if="$f" of="$copy" bs=4M oflag=direct status=none
		dd if="$copy" iflag=nocache count=0 status=none
		echo "$copy"
	done
	dd if="$dir/cachenone.ext4" iflag=nocache count=0 status=none
	;;
down) down "${2:?usage: loopimg.sh down DIR}" ;;
*) die "usage: loopimg.sh up IMAGE DIR | down DIR" ;;
esac
