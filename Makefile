# SPDX-License-Identifier: ISC
# pollguard: plain make. Flags for libbsd and inih come from pkg-config.

PREFIX ?=	/usr/local
BINDIR ?=	$(PREFIX)/bin
MANDIR ?=	$(PREFIX)/share/man
DOCDIR ?=	$(PREFIX)/share/doc/pollguard
LIBEXECDIR ?=	$(PREFIX)/lib/pollguard
SYSCONFDIR ?=	/etc
BASHCOMPDIR ?=	$(PREFIX)/share/bash-completion/completions
DESTDIR ?=

# The release, in one place: the file VERSION. It is compiled in
# (PG_VERSION: the status answer, /metrics, the User-Agent) and names
# make dist's tarball; CHANGES, debian/changelog and the pages' .Dd
# follow it (tests/cli/06-version.sh).
VERSION :=	$(shell cat VERSION 2>/dev/null)

CC ?=		cc
AR ?=		ar
PKG_CONFIG ?=	pkg-config
CFLAGS ?=	-O2 -g
override CFLAGS +=	-std=c99 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 \
		-DLIBBSD_OPENBSD_VIS -Wall -Wextra -Ilib \
		-DPG_SYSCONFDIR='"$(SYSCONFDIR)"' -DPG_VERSION='"$(VERSION)"' \
		$(shell $(PKG_CONFIG) --cflags libbsd-overlay inih 2>/dev/null)
# STATIC_BASE=1 (the default) links libinih, libbsd and libmd from their
# static archives (Debian's libinih-dev, libbsd-dev, libmd-dev ship them):
# the dynamic loader then maps and relocates libc alone for
# pollguard-touch and pollguard-serve, which halves the instructions of a
# pollguard-touch run (BENCHMARKS.md). STATIC_BASE=0 links them shared.
STATIC_BASE ?=	1
ifeq ($(STATIC_BASE),1)
BASE_LIBS =	-Wl,-Bstatic $(shell $(PKG_CONFIG) --libs --static inih \
		libbsd-overlay) -Wl,-Bdynamic
else
BASE_LIBS =	$(shell $(PKG_CONFIG) --libs inih libbsd-overlay)
endif
CURL_CFLAGS =	$(shell $(PKG_CONFIG) --cflags libcurl)
CURL_LIBS =	$(shell $(PKG_CONFIG) --libs libcurl)
JANSSON_CFLAGS =	$(shell $(PKG_CONFIG) --cflags jansson)
JANSSON_LIBS =	$(shell $(PKG_CONFIG) --libs jansson)
# libssl: only to hear the TLS alert by which etcd refuses a client
# certificate (lib/etcd.c, on_alert): libcurl reports only its text.
SSL_CFLAGS =	$(shell $(PKG_CONFIG) --cflags openssl)
SSL_LIBS =	$(shell $(PKG_CONFIG) --libs openssl)

# Without the build dependencies, say what to run instead of compiling
# against headers that are not there (an undeclared getprogname() would
# even compile, to a truncated pointer). Not for goals that build
# nothing; demo and bench run scripts/deps first, then make again.
PG_PKGS =	libbsd-overlay inih libcurl jansson openssl
ifneq ($(filter-out deps demo bench clean uninstall fuzz-clean dist,$(or $(MAKECMDGOALS),all)),)
ifneq ($(shell $(PKG_CONFIG) --exists $(PG_PKGS) && echo y),y)
$(error build dependencies missing ($(PKG_CONFIG) finds not all of $(PG_PKGS)): run "sh scripts/deps" as root, or see scripts/deps for the packages)
endif
ifeq ($(VERSION),)
$(error the file VERSION is missing or empty)
endif
endif

# O=DIR builds objects, tools and test programs under DIR (make
# check-sanitize uses it); by default they are built in place.
B =		$(if $(O),$(O)/,)
LIB =		$(B)lib/libpollguard.a
LIB_OBJS =	$(addprefix $(B)lib/,clock.o config.o confkey.o \
		decide.o duration.o \
		conn.o fleet.o listen.o local.o peers.o pidfile.o proto.o \
		serve.o loglimit.o trust.o \
		kv.o stamp.o statedir.o record.o lock.o side.o unreach.o \
		status.o lease.o etcd.o etcdjson.o plugin.o ping.o)
# lib/'s headers, one a layer (lib/pollguard.h lists them); those whose
# names end in -int.h are private to the sources below them.
LIB_HDRS =	$(filter-out %-int.h,$(wildcard lib/*.h))
# lib/state-int.h: private to the state directory's sources.
STATE_OBJS =	$(addprefix $(B)lib/,stamp.o statedir.o record.o lock.o side.o \
		lease.o unreach.o)
TOOLS =		bin/pollguard-check bin/pollguard-touch bin/pollguard-serve \
		bin/pollguard-status bin/pollguard-run
LIBEXEC =	bin/pollguard-touch-curl
MAN1 =		man/pollguard-check.1 man/pollguard-touch.1 man/pollguard-status.1 \
		man/pollguard-run.1
MAN5 =		man/pollguard.conf.5
MAN7 =		man/pollguard.7
MAN8 =		man/pollguard-serve.8
MANPAGES =	$(MAN1) $(MAN5) $(MAN7) $(MAN8)
# In $(DOCDIR), with the installed paths; the Debian package leaves
# them to dh (DOCS=), which installs CHANGES as changelog.gz and has
# debian/copyright for LICENSE.
DOCS =		README CHANGES LICENSE
# etc/: installed under $(DOCDIR)/examples; pollguard.conf also as
# $(SYSCONFDIR)/pollguard.conf when there is none.
EXAMPLES =	pollguard.conf cron.d/pollguard inetd.conf xinetd.d/pollguard \
		systemd/pollguard.socket systemd/pollguard@.service \
		systemd/pollguard.service tmpfiles.d/pollguard.conf \
		stunnel/pollguard.conf systemd/pollguard-job@.service \
		systemd/pollguard-job@.timer prometheus/pollguard.rules.yml \
		pollguard-etcd.conf icinga2/pollguard.conf
UNIT_TESTS =	$(patsubst %.c,$(B)%,$(wildcard tests/unit/t_*.c))
TEST_PROGS =	$(UNIT_TESTS) $(B)tests/pgstate
BIN_OBJS =	$(addprefix $(B)bin/,tool.o pollguard-check.o check-decide.o \
		check-claim.o check-round.o check-side.o check-peer.o \
		pollguard-touch.o touch-common.o touch-run.o touch-plain.o \
		touch-ping.o pollguard-serve.o pollguard-status.o status-ask.o \
		status-plugin.o status-test.o etcd.o pollguard-run.o)

all: $(addprefix $(B),$(TOOLS) $(LIBEXEC))

$(B)%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<
$(LIB_OBJS) $(BIN_OBJS): $(LIB_HDRS)
$(STATE_OBJS): lib/state-int.h
$(addprefix $(B)lib/,config.o confkey.o): lib/conf-int.h
# The default config path and LIBEXECDIR (where pollguard-touch finds
# pollguard-touch-curl) are compiled in: rebuild when either changes, so
# that "make; make install PREFIX=/usr" installs tools that look in /usr.
$(LIB_OBJS) $(BIN_OBJS) $(TEST_PROGS): $(B)sysconfdir.stamp
# So are the compiler and its flags: objects built with other ones (make
# CFLAGS=-O0, or before pkg-config knew a package) are not mixed in.
# Expanded here, once: a target's own flags (touch-plain.o's) would
# otherwise pass to the stamp when that target is the first to need it.
STAMPED :=	$(SYSCONFDIR) $(LIBEXECDIR) $(CC) $(subst ',,$(CFLAGS))
$(B)sysconfdir.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(STAMPED)' | cmp -s - $@ || echo '$(STAMPED)' >$@
$(BIN_OBJS): bin/tool.h
# peers.o and ping.o use libcurl; a tool that does not ask peers or
# ping does not pull them from the archive, and does not link libcurl.
$(B)lib/peers.o $(B)lib/ping.o: $(B)lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CURL_CFLAGS) -c -o $@ $<
$(addprefix $(B)bin/,pollguard-status.o status-ask.o status-plugin.o \
    status-test.o \
    etcd.o): bin/status.h
# The etcd backend: etcd.o (libcurl) and etcdjson.o (jansson) are pulled
# from the archive only by the tools that use it: check, status and
# pollguard-touch-curl, pollguard-touch with the lease hooks of
# bin/etcd.c and the ping hooks of bin/touch-ping.c, which
# pollguard-touch (bin/touch-plain.c: no lease, no ping) execs for a
# cluster on etcd or with a ping (from beside itself, else from
# LIBEXECDIR). lease.o needs neither.
$(B)lib/etcd.o $(B)lib/etcdjson.o: $(B)lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(CURL_CFLAGS) $(JANSSON_CFLAGS) $(SSL_CFLAGS) -c -o $@ $<
$(B)bin/touch-plain.o: override CFLAGS += \
		-DPG_LIBEXECDIR='"$(LIBEXECDIR)"'
$(addprefix $(B)bin/,pollguard-check.o check-decide.o check-claim.o \
    check-round.o check-side.o etcd.o pollguard-run.o): bin/check.h
$(addprefix $(B)bin/,check-claim.o check-peer.o): bin/check-peer.h
$(addprefix $(B)bin/,pollguard-touch.o touch-common.o touch-run.o \
    touch-plain.o etcd.o touch-ping.o pollguard-run.o): bin/touch.h
ETCD_LINK =	$(CURL_LIBS) $(JANSSON_LIBS) $(SSL_LIBS)

$(LIB): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

# Each tool links only what it uses: only pollguard-check,
# pollguard-status, pollguard-run and pollguard-touch-curl link libcurl.
$(B)bin/pollguard-check: $(addprefix $(B)bin/,pollguard-check.o \
    check-decide.o check-claim.o check-round.o check-side.o check-peer.o \
    tool.o etcd.o) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) \
	    $(ETCD_LINK) $(BASE_LIBS)

$(B)bin/pollguard-status: $(addprefix $(B)bin/,pollguard-status.o \
    status-ask.o status-plugin.o status-test.o tool.o etcd.o) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) \
	    $(ETCD_LINK) $(BASE_LIBS)

$(B)bin/pollguard-touch-curl: $(addprefix $(B)bin/,pollguard-touch.o \
    touch-common.o touch-run.o touch-ping.o tool.o etcd.o) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) \
	    $(ETCD_LINK) $(BASE_LIBS)

# pollguard-run: check's decision and touch's run, with the lease hooks
# of bin/etcd.c and the ping hooks of bin/touch-ping.c.
$(B)bin/pollguard-run: $(addprefix $(B)bin/,pollguard-run.o check-decide.o \
    check-claim.o check-round.o check-side.o check-peer.o touch-common.o \
    touch-run.o touch-ping.o tool.o etcd.o) \
    $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) \
	    $(ETCD_LINK) $(BASE_LIBS)

$(B)bin/pollguard-serve: $(addprefix $(B)bin/,pollguard-serve.o tool.o) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(BASE_LIBS)

$(B)bin/pollguard-touch: $(addprefix $(B)bin/,pollguard-touch.o \
    touch-common.o touch-run.o touch-plain.o tool.o) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIB) $(BASE_LIBS)

$(TEST_PROGS): $(B)%: %.c $(LIB) $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(TEST_LIBS) $(BASE_LIBS)
$(UNIT_TESTS): tests/unit/tap.h
$(B)tests/unit/t_state $(B)tests/pgstate: lib/state-int.h
$(B)tests/unit/t_etcdjson: TEST_LIBS = $(JANSSON_LIBS)
$(B)tests/unit/t_plugin: TEST_LIBS = $(CURL_LIBS)

# tests/connflood: the load test's client (tests/cli/94-load.sh), which
# holds a thousand connections; it needs none of lib/.
TEST_PROGS +=	$(B)tests/connflood
$(B)tests/connflood: tests/connflood.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/connflood.c $(BASE_LIBS)

# tests/delayproxy: a TCP proxy that delays and drops connections on
# demand (tests/cli/86-delayproxy.sh, tests/soak.sh); none of lib/.
TEST_PROGS +=	$(B)tests/delayproxy
$(B)tests/delayproxy: tests/delayproxy.c tests/proxy.c tests/proxy.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/delayproxy.c tests/proxy.c $(BASE_LIBS)

# tests/pathproxy: an HTTP proxy that routes only some paths, a gateway
# set up for 0.3 (tests/cli/96c-gateway.sh); none of lib/.
TEST_PROGS +=	$(B)tests/pathproxy
$(B)tests/pathproxy: tests/pathproxy.c tests/proxy.c tests/proxy.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/pathproxy.c tests/proxy.c $(BASE_LIBS)

# tests/stallproxy: proxies that forward until told to stall, then
# accept and never answer (tests/cli/69-etcd-stall.sh); none of lib/.
TEST_PROGS +=	$(B)tests/stallproxy
$(B)tests/stallproxy: tests/stallproxy.c tests/proxy.c tests/proxy.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/stallproxy.c tests/proxy.c $(BASE_LIBS)

# tests/clockrec: the soak's job, which logs its clocks (tests/soak.sh).
TEST_PROGS +=	$(B)tests/clockrec
$(B)tests/clockrec: tests/clockrec.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/clockrec.c $(BASE_LIBS)

# tests/preempt.so: an LD_PRELOAD shim that sleeps after each send on a
# TCP socket (tests/cli/96-preempt.sh, tests/race-load.sh). Never built
# with a sanitizer: it is preloaded ahead of the sanitizer's runtime.
TEST_PROGS +=	$(B)tests/preempt.so
$(B)tests/preempt.so: tests/preempt.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize%,$(CFLAGS)) -fPIC -shared -o $@ \
	    tests/preempt.c -ldl

# tests/clockshim.so: an LD_PRELOAD shim that scales one node's
# CLOCK_BOOTTIME and CLOCK_MONOTONIC and shows the slew in adjtimex(2)
# (tests/cli/32b-clock-rate.sh). Never built with a sanitizer, as above.
TEST_PROGS +=	$(B)tests/clockshim.so
$(B)tests/clockshim.so: tests/clockshim.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -fsanitize%,$(CFLAGS)) -fPIC -shared -o $@ \
	    tests/clockshim.c -ldl

# Build dependencies: scripts/deps installs what is missing (as root) or
# names the apt-get line. The README runs it before make check; check
# itself installs nothing, so anyone with the packages can run it.
deps:
	@sh scripts/deps

# TESTS: the tests to run, as tests/run takes them (default: all).
check:
	@$(MAKE) --no-print-directory all $(TEST_PROGS)
	@sh tests/run $(TESTS)

# The whole suite again, against tools and unit tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer in build/sanitize, but
# for the tests that build or read the tree itself and run none of the
# tools of PG_BUILD (SAN_SKIP): a second run of those shows nothing new,
# and they are the longest (CI's minutes).
SAN_CFLAGS =	-O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all
SAN_SKIP =	tests/cli/03-deps.sh tests/cli/04-licence.sh \
		tests/cli/05-dist.sh tests/cli/70-install.sh tests/cli/73-deb.sh
SAN_TESTS =	$(wildcard tests/unit/t_*.c) \
		$(filter-out $(SAN_SKIP),$(wildcard tests/cli/*.sh))
check-sanitize:
	@$(MAKE) --no-print-directory O=build/sanitize CFLAGS='$(SAN_CFLAGS)' \
	    LDFLAGS='$(SAN_CFLAGS)' all $(TEST_PROGS:$(B)%=build/sanitize/%)
	@nm build/sanitize/bin/pollguard-serve | grep -q __asan_init || \
	    { echo "build/sanitize: not built with ASan"; exit 1; }
	@ASAN_OPTIONS=verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1 \
	    PG_BUILD=$(CURDIR)/build/sanitize sh tests/run $(SAN_TESTS)

# The tests of pollguard-check and pollguard-serve, with the tools run
# under valgrind's memcheck (wrappers in build/valgrind/bin). Any error
# or leak fails the tool (exit 97) and is kept in build/valgrind/log.
# One test per core: memcheck keeps its core busy, more only stretches
# the tests' times. The longest first (about 160, 110, 110 and 45 s on
# 2 cores): tests/run starts them in this order.
VG_TESTS =	tests/cli/80-serve.sh tests/cli/90-peers.sh \
		tests/cli/30-check.sh tests/cli/81-inetd.sh
VG =		valgrind -q --tool=memcheck --vgdb=no --error-exitcode=97 \
		--leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible
check-valgrind:
	@$(MAKE) --no-print-directory all tests/pgstate tests/connflood
	@rm -rf build/valgrind
	@mkdir -p build/valgrind/bin build/valgrind/tests build/valgrind/log
	@chmod 1777 build/valgrind/log	# run_as and setpriv tests log there too
	@# A log file of its own per run: with tests side by side a PID comes
	@# back, and a user cannot write over root's file in a sticky directory.
	@for t in $(TOOLS); do \
	    printf '#!/bin/sh\nexec %s --log-file="$$(mktemp %s/XXXXXXXX)" %s "$$@"\n' \
	    '$(VG)' $(CURDIR)/build/valgrind/log $(CURDIR)/$$t \
	    >build/valgrind/$$t; chmod 755 build/valgrind/$$t; done
	@# The tests' own programs run as they are (81-inetd's connflood).
	@for p in pgstate connflood; do \
	    ln -s $(CURDIR)/tests/$$p build/valgrind/tests/$$p; done
	@PG_BUILD=$(CURDIR)/build/valgrind PG_CMD_TIMEOUT=120 \
	    sh tests/run -j "$${PG_TEST_JOBS:-$$(nproc)}" $(VG_TESTS); st=$$?; \
	n=$$(find build/valgrind/log -type f -size +0 | wc -l); \
	find build/valgrind/log -type f -size +0 -exec cat {} + | head -n 60; \
	echo "valgrind: $$(ls build/valgrind/log | wc -l) runs, $$n with errors"; \
	[ $$st -eq 0 ] && [ $$n -eq 0 ]

# make bench: pollguard against the tools an operator would use instead
# (bench/run); writes BENCHMARKS.md and bench/check-peers.png. The tools
# are built with release flags in build/bench, with the helpers it needs.
BENCH_CFLAGS =	-O2 -DNDEBUG
PGBENCH_SRCS =	bench/pgbench.c bench/pgnet.c bench/pgrace.c
$(B)bench/pgbench: $(PGBENCH_SRCS) bench/pgbench.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PGBENCH_SRCS) $(BASE_LIBS)
bench: deps
	@$(MAKE) --no-print-directory O=build/bench CFLAGS='$(BENCH_CFLAGS)' \
	    all build/bench/tests/pgstate build/bench/tests/connflood \
	    build/bench/tests/delayproxy build/bench/bench/pgbench
	@bash bench/run

# make race: the race on a busy machine (tests/race-load.sh), three
# nodes, RACE_ROUNDS rounds (1000) in RACE_SECONDS at most (900);
# RACE_DELAY_MS delays every question (tests/delayproxy).
race:
	@$(MAKE) --no-print-directory all $(B)tests/pgstate $(B)tests/preempt.so \
	    $(B)tests/delayproxy
	@PG_TOP=$(CURDIR) PG_BUILD=$(CURDIR)/$(B) PG_BIN=$(CURDIR)/$(B)bin \
	    PG_PGSTATE=$(CURDIR)/$(B)tests/pgstate bash tests/race-load.sh

# make soak: three nodes for SOAK_MINUTES (10) under a nemesis that kills,
# stops, delays, drops, fills disks and steps wall clocks
# (tests/soak.sh); SOAK_SEED replays a run's choices. Not in make check.
soak:
	@$(MAKE) --no-print-directory all $(B)tests/pgstate $(B)tests/delayproxy \
	    $(B)tests/clockrec
	@PG_TOP=$(CURDIR) PG_BUILD=$(CURDIR)/$(B) PG_BIN=$(CURDIR)/$(B)bin \
	    PG_PGSTATE=$(CURDIR)/$(B)tests/pgstate bash tests/soak.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo

# make deb: an unsigned binary package, built by dpkg-buildpackage from a
# copy of the tree in build/deb (it writes beside the tree it builds), so
# that the source tree stays clean; the .deb ends in build/. The copy
# holds the files git knows or would add (not build/, not objects), or,
# outside a git checkout, every file but build/ and objects. The
# package's upstream version must be VERSION, or VERSION+/~ more.
deb:
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version) && \
	case $${v%-*} in $(VERSION)|$(VERSION)[+~]*) ;; *) echo "make deb:" \
	    "debian/changelog says $$v, VERSION $(VERSION)" >&2; \
	    exit 1 ;; esac
	rm -rf build/deb
	mkdir -p build/deb/pollguard
	if git rev-parse --git-dir >/dev/null 2>&1; then \
	    git ls-files -co --exclude-standard; \
	else \
	    find . \( -path ./build -o -path ./.git -o -path ./tests/.cache \) \
	        -prune -o -type f ! -name '*.[oa]' -print; \
	fi | sed 's|^\./||' | grep -v '^build/' | \
	    while read -r f; do [ -e "$$f" ] && echo "$$f"; done | \
	    tar -cf - -T - | tar -xf - -C build/deb/pollguard
	cd build/deb/pollguard && dpkg-buildpackage -b -us -uc
	cp build/deb/pollguard_*.deb build/

# make dist: pollguard-$(VERSION).tar.gz (in O=DIR when given), the
# files git ls-files lists and MANIFEST, which names them with their
# commit; the same bytes from the same files, also when packed again
# from the unpacked tarball (scripts/dist). make distcheck unpacks it
# outside git, builds it, runs make check (DISTCHECK_TESTS: a subset;
# default all), installs it into a DESTDIR and uninstalls it to the
# configuration alone, packs it again to the same bytes, and checks
# that make clean leaves the tarball's files (scripts/distcheck).
DIST =		$(B)pollguard-$(VERSION).tar.gz
dist:
	@sh scripts/dist $(DIST)
distcheck: dist
	@sh scripts/distcheck $(DIST) $(DISTCHECK_TESTS)
.PHONY: dist distcheck

# Installed pages and examples name the installed paths.
# Only the tools' paths: PATH lines and other programs keep theirs.
SUBST =		sed -e 's|/usr/local/bin/pollguard-|$(BINDIR)/pollguard-|g' \
		    -e 's|/usr/local/share/doc/pollguard|$(DOCDIR)|g' \
		    -e 's|/usr/local/lib/pollguard|$(LIBEXECDIR)|g' \
		    -e 's|/etc/pollguard\.conf|$(SYSCONFDIR)/pollguard.conf|g'
CONF =		$(DESTDIR)$(SYSCONFDIR)/pollguard.conf

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSCONFDIR) \
	    $(addprefix $(DESTDIR)$(MANDIR)/man,1 5 7 8) \
	    $(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(sort $(dir $(EXAMPLES))))
	install -m 755 $(addprefix $(B),$(TOOLS)) $(DESTDIR)$(BINDIR)
	install -d $(DESTDIR)$(LIBEXECDIR)
	install -m 755 $(addprefix $(B),$(LIBEXEC)) $(DESTDIR)$(LIBEXECDIR)
	set -e; for f in $(MANPAGES); do \
	    d=$(DESTDIR)$(MANDIR)/man$${f##*.}/$${f#man/}; \
	    $(SUBST) $$f >$$d; chmod 644 $$d; done
	set -e; for f in $(EXAMPLES); do \
	    d=$(DESTDIR)$(DOCDIR)/examples/$$f; \
	    $(SUBST) etc/$$f >$$d; chmod 644 $$d; done
	set -e; for f in $(DOCS); do \
	    $(SUBST) $$f >$(DESTDIR)$(DOCDIR)/$$f; \
	    chmod 644 $(DESTDIR)$(DOCDIR)/$$f; done
	# bash-completion loads a file by the command's name: one file, and
	# a link for each other tool.
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 etc/bash-completion/pollguard \
	    $(DESTDIR)$(BASHCOMPDIR)/pollguard-check
	ln -sf pollguard-check $(DESTDIR)$(BASHCOMPDIR)/pollguard-touch
	ln -sf pollguard-check $(DESTDIR)$(BASHCOMPDIR)/pollguard-serve
	ln -sf pollguard-check $(DESTDIR)$(BASHCOMPDIR)/pollguard-status
	ln -sf pollguard-check $(DESTDIR)$(BASHCOMPDIR)/pollguard-run
	@if [ -e $(CONF) ]; then \
	    echo "make install: $(CONF) exists: not replaced"; \
	else \
	    echo "$(SUBST) etc/pollguard.conf >$(CONF)"; \
	    $(SUBST) etc/pollguard.conf >$(CONF).new && \
	    chmod 644 $(CONF).new && mv $(CONF).new $(CONF); \
	fi

# The configuration stays: it is the operator's, whether or not it was
# changed since make install put it there.
uninstall:
	rm -f $(TOOLS:bin/%=$(DESTDIR)$(BINDIR)/%) \
	    $(LIBEXEC:bin/%=$(DESTDIR)$(LIBEXECDIR)/%) \
	    $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) \
	    $(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%) \
	    $(MAN7:man/%=$(DESTDIR)$(MANDIR)/man7/%) \
	    $(MAN8:man/%=$(DESTDIR)$(MANDIR)/man8/%) \
	    $(EXAMPLES:%=$(DESTDIR)$(DOCDIR)/examples/%) \
	    $(DOCS:%=$(DESTDIR)$(DOCDIR)/%) \
	    $(TOOLS:bin/%=$(DESTDIR)$(BASHCOMPDIR)/%)
	-rmdir $(addprefix $(DESTDIR)$(DOCDIR)/examples/,$(filter-out ./, \
	    $(sort $(dir $(EXAMPLES))))) $(DESTDIR)$(DOCDIR)/examples \
	    $(DESTDIR)$(DOCDIR) 2>/dev/null

clean:
	rm -f lib/*.o lib/libpollguard.a sysconfdir.stamp bin/*.o $(TOOLS) \
	    $(LIBEXEC) \
	    $(TEST_PROGS)
	rm -rf build

.PHONY: all bench check check-sanitize check-valgrind clean deb deps demo install race soak uninstall FORCE

# libFuzzer targets (tests/fuzz/README): built with clang, ASan and UBSan
# into build/fuzz, apart from the normal objects. make fuzz runs each for
# FUZZ_TIME seconds and fails when one crashes, leaks or hangs.
FUZZ_CC ?=	clang
FUZZ_TIME ?=	60
FUZZ_DIR =	build/fuzz
FUZZ_CFLAGS =	$(CFLAGS) -O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fsanitize=fuzzer-no-link $(CURL_CFLAGS) $(JANSSON_CFLAGS) \
		$(SSL_CFLAGS)
FUZZ_TARGETS =	request answer config numbers outcome status etcd
FUZZ_LIB =	$(LIB_OBJS:%=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/lib/%.o: lib/%.c $(wildcard lib/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_DIR)/bin/%.o: bin/%.c $(LIB_HDRS) bin/tool.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

# request needs only the library (lib/serve.c answers); answer runs
# lib/peers.c and hands libcurl the fuzz input. Every target links all
# of FUZZ_LIB, peers.o included, and so libcurl.
$(FUZZ_DIR)/fuzz_answer: FUZZ_LINK = $(CURL_LIBS) \
    -Wl,--wrap=curl_multi_add_handle
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Ibin -o $@ $< \
	    $(filter $(FUZZ_DIR)/bin/%.o,$^) $(FUZZ_LIB) $(BASE_LIBS) \
	    $(FUZZ_LINK) $(CURL_LIBS) $(JANSSON_LIBS) $(SSL_LIBS)
.SECONDARY: $(FUZZ_LIB)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

fuzz: fuzz-build
	@sh tests/fuzz/run $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf $(FUZZ_DIR)

.PHONY: fuzz fuzz-build fuzz-clean

# The peer protocol's model (doc/model, doc/SAFETY.md), checked with SPIN
# (Debian's spin). model-rule compares the model's decision rule with
# pg_decide, pg_settle and pg_settle_poll on every input of the model's
# domain; model runs that and every configuration exhaustively;
# model-mutants puts each known-bad rule back and requires that SPIN
# finds a counterexample. pan's files go to build/model.
MODEL_DIR =	build/model
$(MODEL_DIR)/rulecmp: tests/model/rulecmp.c $(LIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/model/rulecmp.c $(LIB) \
	    $(BASE_LIBS)

model-rule: $(MODEL_DIR)/rulecmp
	@rm -rf $(MODEL_DIR)/rule && mkdir -p $(MODEL_DIR)/rule && \
	    cp doc/model/*.pml $(MODEL_DIR)/rule/ && \
	    (cd $(MODEL_DIR)/rule && spin ruledrv.pml) | $(MODEL_DIR)/rulecmp

model: model-rule
	@PG_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) sh tests/model/run configs

model-mutants:
	@PG_MODEL_DIR=$(CURDIR)/$(MODEL_DIR) sh tests/model/run mutants

.PHONY: model model-rule model-mutants
