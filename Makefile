# pollguard: plain make. Flags for libbsd and inih come from pkg-config.

PREFIX ?=	/usr/local
BINDIR ?=	$(PREFIX)/bin
MANDIR ?=	$(PREFIX)/share/man
DESTDIR ?=

CC ?=		cc
AR ?=		ar
PKG_CONFIG ?=	pkg-config
CFLAGS ?=	-O2 -g
override CFLAGS +=	-std=c99 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64 \
		-DLIBBSD_OPENBSD_VIS -Wall -Wextra -Ilib \
		$(shell $(PKG_CONFIG) --cflags libbsd-overlay inih)
BASE_LIBS =	$(shell $(PKG_CONFIG) --libs inih libbsd-overlay)
CURL_CFLAGS =	$(shell $(PKG_CONFIG) --cflags libcurl)
CURL_LIBS =	$(shell $(PKG_CONFIG) --libs libcurl)

LIB_OBJS =	lib/config.o lib/decide.o lib/duration.o lib/proto.o lib/state.o
TOOLS =		bin/pollguard-check bin/pollguard-touch bin/pollguard-serve
MAN1 =		man/pollguard-check.1 man/pollguard-touch.1
MAN5 =		man/pollguard.conf.5
MAN7 =		man/pollguard.7
MAN8 =		man/pollguard-serve.8
UNIT_TESTS =	$(patsubst %.c,%,$(wildcard tests/unit/t_*.c))
TEST_PROGS =	$(UNIT_TESTS) tests/pgstate

all: $(TOOLS)

BIN_OBJS =	bin/tool.o bin/peers.o bin/pollguard-check.o \
		bin/pollguard-touch.o bin/pollguard-serve.o

$(LIB_OBJS) $(BIN_OBJS): lib/pollguard.h
$(BIN_OBJS): bin/tool.h
bin/peers.o bin/pollguard-check.o: bin/peers.h
bin/peers.o: bin/peers.c
	$(CC) $(CFLAGS) $(CURL_CFLAGS) -c -o $@ bin/peers.c

lib/libpollguard.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

# Each tool links only what it uses: only pollguard-check links libcurl.
bin/pollguard-check: bin/pollguard-check.o bin/peers.o bin/tool.o \
    lib/libpollguard.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bin/pollguard-check.o bin/peers.o \
	    bin/tool.o lib/libpollguard.a $(CURL_LIBS) $(BASE_LIBS)

bin/pollguard-serve: bin/pollguard-serve.o bin/tool.o lib/libpollguard.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bin/pollguard-serve.o bin/tool.o \
	    lib/libpollguard.a $(BASE_LIBS)

bin/pollguard-touch: bin/pollguard-touch.o bin/tool.o lib/libpollguard.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ bin/pollguard-touch.o bin/tool.o \
	    lib/libpollguard.a $(BASE_LIBS)

$(TEST_PROGS): %: %.c lib/libpollguard.a lib/pollguard.h
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< lib/libpollguard.a $(BASE_LIBS)
$(UNIT_TESTS): tests/unit/tap.h

# The README's commands: dependencies first (installed as root, or named).
deps:
	@sh scripts/deps

check: deps
	@$(MAKE) --no-print-directory all $(TEST_PROGS)
	@sh tests/run

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(TOOLS) $(DESTDIR)$(BINDIR)
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5
	install -m 644 $(MAN7) $(DESTDIR)$(MANDIR)/man7
	install -m 644 $(MAN8) $(DESTDIR)$(MANDIR)/man8

uninstall:
	rm -f $(TOOLS:bin/%=$(DESTDIR)$(BINDIR)/%) \
	    $(MAN1:man/%=$(DESTDIR)$(MANDIR)/man1/%) \
	    $(MAN5:man/%=$(DESTDIR)$(MANDIR)/man5/%) \
	    $(MAN7:man/%=$(DESTDIR)$(MANDIR)/man7/%) \
	    $(MAN8:man/%=$(DESTDIR)$(MANDIR)/man8/%)

clean:
	rm -f lib/*.o lib/libpollguard.a bin/*.o $(TOOLS) $(TEST_PROGS)

.PHONY: all check clean deps demo install uninstall

# libFuzzer targets (tests/fuzz/README): built with clang, ASan and UBSan
# into build/fuzz, apart from the normal objects. make fuzz runs each for
# FUZZ_TIME seconds and fails when one crashes, leaks or hangs.
FUZZ_CC ?=	clang
FUZZ_TIME ?=	60
FUZZ_DIR =	build/fuzz
FUZZ_CFLAGS =	$(CFLAGS) -O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-fsanitize=fuzzer-no-link $(CURL_CFLAGS)
FUZZ_TARGETS =	request answer config numbers
FUZZ_LIB =	$(LIB_OBJS:%=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/lib/%.o: lib/%.c lib/pollguard.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
$(FUZZ_DIR)/bin/%.o: bin/%.c lib/pollguard.h bin/tool.h bin/peers.h
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

# request includes pollguard-serve.c for its static request path and
# catches syslog; answer runs peers.c and hands libcurl the fuzz input.
$(FUZZ_DIR)/fuzz_request: bin/pollguard-serve.c $(FUZZ_DIR)/bin/tool.o
$(FUZZ_DIR)/fuzz_request: FUZZ_LINK = -Wl,--wrap=syslog
$(FUZZ_DIR)/fuzz_answer: $(FUZZ_DIR)/bin/peers.o
$(FUZZ_DIR)/fuzz_answer: FUZZ_LINK = $(CURL_LIBS) \
    -Wl,--wrap=curl_multi_add_handle
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Ibin -o $@ $< \
	    $(filter $(FUZZ_DIR)/bin/%.o,$^) $(FUZZ_LIB) $(BASE_LIBS) \
	    $(FUZZ_LINK)
.SECONDARY: $(FUZZ_LIB)

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

fuzz: fuzz-build
	@sh tests/fuzz/run $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf $(FUZZ_DIR)
clean: fuzz-clean

.PHONY: fuzz fuzz-build fuzz-clean
