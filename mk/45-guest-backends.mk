# guest-backends: upcd's global backends (memcg, dropcache, damon, auto)
# against a real kernel, inside a 256M UML guest that the suite boots
# itself; never on the host.  Needs the UML kernel and the static builds.

CHECK_SUITES += guest-backends
.PHONY: guest-backends

# $(BUILD)/bench/workload's rule is in mk/60-bench.mk (prerequisites are
# expanded as they are read, so it is named here, not through a variable).
guest-backends: kernel $(BUILD)/static/upcd $(BUILD)/static/upcc $(BUILD)/bench/workload
	tests/guest-backends/run.sh $(GUEST_BACKENDS_ARGS)
