# make install / make uninstall: upcd, upcc, the systemd unit, the config
# file, the man pages and bash completion, and the monitoring examples
# (Prometheus rules, Grafana dashboard), under PREFIX (default /usr/local)
# and DESTDIR.  debian/rules installs with PREFIX=/usr.
#
#   make install [PREFIX=/usr] [DESTDIR=/tmp/root]
#   make uninstall (same variables)
#
# upcd's config path is compiled in (/etc/upcc/upcd.conf), so SYSCONFDIR
# does not follow PREFIX.  The config file is installed only where there is
# none, and uninstall removes it only if it is still the shipped one: an
# operator's edits are never overwritten or lost.  The unit goes where
# systemd looks for it: /lib/systemd/system for PREFIX=/usr on Debian 12
# (pkg-config systemd), PREFIX/lib/systemd/system otherwise
# (/usr/local/lib/systemd/system is on systemd's unit path).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Examples an operator copies to the monitoring server, not files upcd
# reads: where Debian keeps a package's examples (dh_compress leaves
# them uncompressed, so they are copied as they are).
EXAMPLESDIR ?= $(PREFIX)/share/doc/upcc/examples
ifeq ($(PREFIX),/usr)
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
else
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
endif

INSTALL ?= install
INSTALL_MANPAGES := docs/man/upcd.8 docs/man/upcc.8 docs/man/upcd.conf.5
INSTALL_UNIT := $(BUILD)/install/upcd.service

.PHONY: install uninstall install-check

# Rebuilt whenever SBINDIR may differ: the rule is cheap.
.PHONY: $(INSTALL_UNIT)
$(INSTALL_UNIT): systemd/upcd.service.in
	@mkdir -p $(@D)
	sed 's|@SBINDIR@|$(SBINDIR)|g' $< >$@

install: $(BUILD)/upcd $(BUILD)/upcc $(INSTALL_UNIT)
	$(INSTALL) -D -m 0755 $(BUILD)/upcd $(DESTDIR)$(SBINDIR)/upcd
	$(INSTALL) -D -m 0755 $(BUILD)/upcc $(DESTDIR)$(BINDIR)/upcc
	$(INSTALL) -D -m 0644 $(INSTALL_UNIT) $(DESTDIR)$(SYSTEMDUNITDIR)/upcd.service
	$(INSTALL) -D -m 0644 docs/man/upcd.8 $(DESTDIR)$(MANDIR)/man8/upcd.8
	$(INSTALL) -D -m 0644 docs/man/upcc.8 $(DESTDIR)$(MANDIR)/man8/upcc.8
	$(INSTALL) -D -m 0644 docs/man/upcd.conf.5 $(DESTDIR)$(MANDIR)/man5/upcd.conf.5
	$(INSTALL) -D -m 0644 dist/bash-completion/upcd $(DESTDIR)$(BASHCOMPDIR)/upcd
	$(INSTALL) -D -m 0644 dist/bash-completion/upcc $(DESTDIR)$(BASHCOMPDIR)/upcc
	$(INSTALL) -D -m 0644 dist/prometheus/upcc.rules.yml $(DESTDIR)$(EXAMPLESDIR)/upcc.rules.yml
	$(INSTALL) -D -m 0644 dist/grafana/upcc.json $(DESTDIR)$(EXAMPLESDIR)/upcc.json
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf ]; then \
		echo "install: keeping $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf (the shipped one is dist/upcd.conf)"; \
	else \
		echo "$(INSTALL) -D -m 0644 dist/upcd.conf $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf"; \
		$(INSTALL) -D -m 0644 dist/upcd.conf $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf; \
	fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/upcd $(DESTDIR)$(BINDIR)/upcc \
		$(DESTDIR)$(SYSTEMDUNITDIR)/upcd.service \
		$(DESTDIR)$(MANDIR)/man8/upcd.8 $(DESTDIR)$(MANDIR)/man8/upcc.8 \
		$(DESTDIR)$(MANDIR)/man5/upcd.conf.5 \
		$(DESTDIR)$(BASHCOMPDIR)/upcd $(DESTDIR)$(BASHCOMPDIR)/upcc \
		$(DESTDIR)$(EXAMPLESDIR)/upcc.rules.yml $(DESTDIR)$(EXAMPLESDIR)/upcc.json
	rmdir $(DESTDIR)$(EXAMPLESDIR) $(DESTDIR)$(patsubst %/,%,$(dir $(EXAMPLESDIR))) 2>/dev/null || true
	@if cmp -s dist/upcd.conf $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/upcc 2>/dev/null || true; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf ]; then \
		echo "uninstall: keeping $(DESTDIR)$(SYSCONFDIR)/upcc/upcd.conf (edited)"; \
	fi

# The suite: install into a scratch DESTDIR and check what landed, the
# unit, the man pages and completion against the programs' --help, and
# uninstall (tests/install/run.sh).
CHECK_SUITES += install-check
install-check: $(BUILD)/upcd $(BUILD)/upcc
	tests/install/run.sh $(BUILD)
