# first-run: make run on a bare machine (tests/first-run/run.sh): the build
# dependency set covers everything the build includes, and make run passes
# in a clean clone with the real dependency check.

.PHONY: first-run
CHECK_SUITES += first-run

first-run:
	tests/first-run/run.sh
