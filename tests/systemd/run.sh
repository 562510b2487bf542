#!/usr/bin/env bash
# tests/systemd/run.sh - the Debian package under a real systemd: a Debian 12
# guest (mkimage.sh: mmdebstrap, Debian's stock 6.1 kernel, systemd as
# PID 1) booted under QEMU (TCG; KVM is used when /dev/kvm works), which
# installs the package built from this tree, upgrades it to the same
# package with a bumped version, removes and purges it, and checks the
# service on the way (guest.sh: Type=notify readiness, reload good and bad,
# watchdog restart, journal, metrics, stop, mincore on 6.1).  The guest
# writes one line per check to a virtio-serial port; this script asserts
# that every expected check ran and passed.
#
# Everything lives under build/systemd/ (the image, cached by its inputs,
# under build/systemd-image/).  The guest boots a qcow2 overlay, so the
# image is never modified.  Ends on "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
# One block, read whole before it runs (editing the file mid-run is safe).
{
work=build/systemd
images=build/systemd-image
timeout_s=${SYSTEMD_TEST_TIMEOUT:-1200}
mkdir -p "$work"
rm -rf "${work:?}/run"
mkdir -p "$work/run/payload/upgrade"
run=$work/run
. tests/unit/programs/lib.sh
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

t0=$(date +%s)
image=$(tests/systemd/mkimage.sh "$images" 2>"$run/mkimage.log")
rc=$?
t_image=$(($(date +%s) - t0))
result "Debian 12 image (mmdebstrap, linux-image-amd64): ${t_image} s" $rc "$(tail -n 5 "$run/mkimage.log")"
[ $rc -eq 0 ] || finish

t1=$(date +%s)
deb=$(scripts/build-deb.sh build/deb 2>"$run/deb.log")
rc=$?
t_deb=$(($(date +%s) - t1))
result "package built (${t_deb} s)" $rc "$(tail -n 5 "$run/deb.log")"
[ $rc -eq 0 ] || finish
cp "$deb" "$run/payload/"

# The upgrade: the same package, its version bumped (V -> V+1).
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -R "$deb" "$run/repack"
sed -i "s/^Version: .*/Version: $version+1/" "$run/repack/DEBIAN/control"
dpkg-deb -b --root-owner-group "$run/repack" \
	"$run/payload/upgrade/upcc_${version}+1_$(dpkg-deb -f "$deb" Architecture).deb" >/dev/null
rm -rf "$run/repack"
cp tests/systemd/guest.sh "$run/payload/"
mke2fs -q -t ext4 -L UPCCTEST -d "$run/payload" "$run/payload.img" 64M >/dev/null
qemu-img create -q -f qcow2 -b "$(realpath "$image/root.img")" -F raw "$run/root.qcow2"

# KVM only where a vCPU can really be set up: a nested /dev/kvm may open
# and still abort QEMU at the first register load ("failed to set MSR
# 0x10a", seen here).  A paused guest that is still alive after 3 s passed.
kvm_works() {
	timeout 3 qemu-system-x86_64 -accel kvm -cpu max -m 64 -display none -monitor none \
		-serial none -nodefaults -S >/dev/null 2>&1
	[ $? -eq 124 ]
}
accel=tcg
if [ -w /dev/kvm ] && [ "${SYSTEMD_TEST_ACCEL:-}" != tcg ] && kvm_works; then
	accel=kvm
fi
echo "run.sh: QEMU accelerator: $accel"
: >"$run/results"
t2=$(date +%s)
timeout --kill-after=10 "$timeout_s" qemu-system-x86_64 -accel "$accel" -cpu max -m 1024 -smp 1 \
	-display none -monitor none -serial "file:$run/console.log" -no-reboot -nic none \
	-kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 systemd.show_status=0" \
	-drive "file=$run/root.qcow2,if=virtio,format=qcow2" \
	-drive "file=$run/payload.img,if=virtio,format=raw,readonly=on" \
	-device virtio-serial-pci -chardev "file,id=results,path=$run/results" \
	-device virtserialport,chardev=results,name=upcc.results
rc=$?
t_guest=$(($(date +%s) - t2))
rm -f "$run/root.qcow2"
grep -q '^DONE' "$run/results"
result "guest ($accel) booted, ran every check and powered off: ${t_guest} s (qemu exit $rc)" $? \
	"$(tail -n 20 "$run/console.log")"

sed -n 's/^INFO /guest: /p' "$run/results"
while IFS= read -r line; do
	case $line in
	PASS\ *) result "guest: ${line#PASS }" 0 ;;
	FAIL\ *)
		name=${line#FAIL }
		detail=
		[[ $name == *": "* ]] && detail=${name#*: }
		result "guest: ${name%%: *}" 1 "$detail"
		;;
	esac
done <"$run/results"
# Every check guest.sh has must have reported: a guest that died half way
# must not pass on the checks it got to.
want=$(grep -cE '^\s*result "' tests/systemd/guest.sh)
got=$(grep -cE '^(PASS|FAIL) ' "$run/results")
[ "$got" -eq "$want" ]
result "all $want guest checks reported ($got)" $?
echo "timings: image ${t_image} s, package ${t_deb} s, guest ${t_guest} s, total $(($(date +%s) - t0)) s"
finish
}
