# The monitoring assets (dist/prometheus, dist/grafana) checked with
# promtool against the metrics of a real upcd run: tests/monitoring/run.sh.
#
# promtool is Debian's prometheus package's, but the package is not
# installed for it: its postinst enables and starts a Prometheus server
# listening on every interface (:9090), which a test machine must not
# get.  The binary is taken out of the downloaded .deb instead (apt-get
# download, nothing started; an apt-get update first where the lists are
# empty, as on a fresh machine); a promtool already on PATH is used as it
# is.

PROMTOOL := $(BUILD)/tools/promtool

$(PROMTOOL):
	@mkdir -p $(@D)
	@if command -v promtool >/dev/null; then \
		ln -sf "$$(command -v promtool)" $@; \
	else \
		rm -rf $(@D)/deb && mkdir -p $(@D)/deb && \
		(cd $(@D)/deb && { apt-get download -q prometheus || \
			{ apt-get update -q && apt-get download -q prometheus; }; }) && \
		dpkg-deb --fsys-tarfile $(@D)/deb/prometheus_*.deb | \
			tar -xO ./usr/bin/promtool >$@.tmp && \
		chmod 0755 $@.tmp && mv $@.tmp $@ && rm -rf $(@D)/deb; \
	fi

.PHONY: monitoring-check
CHECK_SUITES += monitoring-check
monitoring-check: $(BUILD)/upcd $(PROMTOOL)
	PROMTOOL=$(PROMTOOL) tests/monitoring/run.sh $(BUILD)
