# Sourced by the kernel scripts (after "top" is set): serialise everything
# that extracts, patches or builds from build/kernel/src, so that a second
# "make kernel" (or checkpatch/kunit run) cannot re-extract the tree under a
# build in progress.  The lock is held until the script exits; scripts that
# call each other pass it on through UPCC_KERNEL_LOCK_HELD.
if [ -z "${UPCC_KERNEL_LOCK_HELD:-}" ]; then
	mkdir -p "$top/build/kernel"
	exec 9>"$top/build/kernel/.lock"
	if ! flock -n 9; then
		echo "$(basename "$0"): waiting for another kernel build or test to finish"
		flock 9
	fi
	export UPCC_KERNEL_LOCK_HELD=1
fi
