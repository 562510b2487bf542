#!/usr/bin/env bash
# W5's database disk: a pgbench database (bench/pg/w5.sh init, Debian's
# postgresql-15 on this machine, the major version the guest image runs) in
# an ext4 image file made with mke2fs -d (no loop mount), its files owned by
# the guest's postgres user.  The guest boots it through a qcow2 overlay, so
# every run starts from the same database.
#
#   mkpgdata.sh IMAGE SCALE ROOT_IMG
#
# ROOT_IMG is the guest's Debian root (tests/systemd/mkimage.sh with
# postgresql-15); its /etc/passwd, read with debugfs, gives the uid and gid
# (the image's postgres user is made by its own package install, so they
# differ from this machine's).  The database is /pg in the image.  The
# staging directory is under /var/tmp: the postgres user must reach it,
# whatever the checkout's parents allow.
set -euo pipefail
cd "$(dirname "$0")/../.."
image=${1:?usage: mkpgdata.sh IMAGE SCALE ROOT_IMG}
scale=${2:?usage: mkpgdata.sh IMAGE SCALE ROOT_IMG}
root_img=${3:?usage: mkpgdata.sh IMAGE SCALE ROOT_IMG}

die() { echo "mkpgdata: $*" >&2; exit 1; }
[ -s "$root_img" ] || die "$root_img missing"
owner=$(debugfs -R 'cat /etc/passwd' "$root_img" 2>/dev/null | awk -F: '$1 == "postgres" { print $3 ":" $4 }')
[ -n "$owner" ] || die "no postgres user in $root_img (an image without postgresql-15?)"

bench/pg/w5.sh deps >/dev/null
stage=$(mktemp -d /var/tmp/upcc-pgdata.XXXXXX)
trap 'rm -rf --one-file-system "$stage"' EXIT
chmod 755 "$stage"
t0=$(date +%s)
bench/pg/w5.sh init "$stage/pg" "$scale" >&2
# Only what the database needs: no log of this machine's server.
rm -f "$stage/pg/server.log"
chown -R "$owner" "$stage/pg"
data_mib=$(du -sm "$stage/pg" | cut -f1)
# ext4 metadata and journal, and room for the runs' WAL and stats
size_mib=$(( data_mib * 110 / 100 + 256 ))
rm -f "$image.tmp"
mke2fs -q -t ext4 -L UPCCPG -d "$stage" "$image.tmp" "${size_mib}M"
mv "$image.tmp" "$image"
echo "mkpgdata: $image: scale $scale, $data_mib MiB of database, owner $owner, $(( $(date +%s) - t0 )) s" >&2
