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

# tests/connflood: the load test's client (tests/cli/94-load.sh), which
# holds a thousand connections; it needs none of lib/.
TEST_PROGS +=	tests/connflood
tests/connflood: tests/connflood.c
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ tests/connflood.c $(BASE_LIBS)

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
