#!/usr/bin/env bash
# Build the guest's data disk: an ext4 image file (4 KiB blocks, so that the
# same image also mounts with -o dax from virtio-pmem) holding
#   scan/  SCAN_MIB of 64 MiB files   (W1's scan, W2's stream)
#   hot/   HOT_MIB of 4 MiB files     (W2's hot set, 10% of RAM)
#   hot25/ HOT25_MIB of 4 MiB files   (W3's hot set, 25% of RAM)
#   map/mapped  8 MiB                 (kept mmapped by the guest)
# The image size is rounded up to 128 MiB, a multiple of the memory block
# size that virtio-pmem needs.
#
#   mkimage.sh IMAGE SCAN_MIB HOT_MIB HOT25_MIB
set -euo pipefail
cd "$(dirname "$0")/../.."
top=$PWD
image=${1:?usage: mkimage.sh IMAGE SCAN_MIB HOT_MIB}
scan_mib=${2:?usage: mkimage.sh IMAGE SCAN_MIB HOT_MIB}
hot_mib=${3:?usage: mkimage.sh IMAGE SCAN_MIB HOT_MIB HOT25_MIB}
hot25_mib=${4:?usage: mkimage.sh IMAGE SCAN_MIB HOT_MIB HOT25_MIB}
workload=$top/build/bench/workload

die() { echo "mkimage: $*" >&2; exit 1; }
[ -x "$workload" ] || die "$workload missing (make bench)"
[ "$scan_mib" -ge 64 ] && [ $((scan_mib % 64)) -eq 0 ] || die "SCAN_MIB must be a multiple of 64"
for h in "$hot_mib" "$hot25_mib"; do
	[ "$h" -ge 4 ] && [ $((h % 4)) -eq 0 ] || die "HOT_MIB and HOT25_MIB must be multiples of 4"
done

stage=$(mktemp -d "$top/build/bench-host/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{scan,hot,hot25,map}
"$workload" mkfiles "$stage/scan" 64M $((scan_mib / 64)) >/dev/null
"$workload" mkfiles "$stage/hot" 4M $((hot_mib / 4)) >/dev/null
"$workload" mkfiles "$stage/hot25" 4M $((hot25_mib / 4)) >/dev/null
"$workload" mkfiles "$stage/map" 8M 1 >/dev/null
mv "$stage/map/f000000" "$stage/map/mapped"
# ext4 metadata + journal: ~6%, rounded up to the 128 MiB block
need_mib=$(( (scan_mib + hot_mib + hot25_mib + 8) * 106 / 100 + 64 ))
size_mib=$(( (need_mib + 127) / 128 * 128 ))
rm -f "$image.tmp"
truncate -s "${size_mib}M" "$image.tmp"
mkfs.ext4 -q -F -b 4096 -O ^metadata_csum,^64bit -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$stage" "$image.tmp"
mv "$image.tmp" "$image"
echo "mkimage: $image ${size_mib} MiB (scan $scan_mib MiB, hot $hot_mib MiB, hot25 $hot25_mib MiB, map 8 MiB)"
