# docmodel: PGXS build, plus the two newcomer commands (make demo, make test) and make bench.

EXTENSION  = docmodel
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = docmodel
OBJS       = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))
# sql/docmodel.sql is the install script of the version in development; released versions'
# scripts (sql/docmodel--0.1.0.sql) are frozen, and upgrade scripts carry every change since.
DATA       = $(filter-out sql/$(EXTENSION)--$(EXTVERSION).sql,$(wildcard sql/$(EXTENSION)--*.sql)) \
	sql/$(EXTENSION)--$(EXTVERSION).sql
EXTRA_CLEAN = sql/$(EXTENSION)--$(EXTVERSION).sql results output_iso regression.diffs \
	regression.out tmp_check log

# Every file in test/sql, test/specs and test/t is a suite member; no list to keep.
REGRESS        = $(sort $(basename $(notdir $(wildcard test/sql/*.sql))))
REGRESS_OPTS   = --inputdir=test --load-extension=$(EXTENSION)
ISOLATION      = $(sort $(basename $(notdir $(wildcard test/specs/*.spec))))
ISOLATION_OPTS = --inputdir=test --outputdir=. --load-extension=$(EXTENSION)

# A bare `make` builds the extension (the rule below would otherwise be the first goal).
.DEFAULT_GOAL := all

# PGXS tracks no header dependencies (Debian's server is built without --enable-depend): every
# object depends on every header, so a changed struct never leaves a stale object behind.
$(OBJS): $(wildcard src/*.h)

PG_CONFIG ?= pg_config
PG_CPPFLAGS += -I$(srcdir)/src
PG_CFLAGS   += -Werror -Wall -Wmissing-prototypes
SHLIB_LINK  +=

PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifeq ($(wildcard $(PGXS)),)
# PostgreSQL's server headers are missing: only the set-up targets can run; they install them.
all install installcheck:
	@echo "PGXS not found: run 'make test' or 'make demo', which install PostgreSQL 15 and its headers first" >&2; exit 1
else
include $(PGXS)
# pgxs.mk ships with the client package; the server headers are what the build needs.
ifeq ($(wildcard $(shell $(PG_CONFIG) --includedir-server)/postgres.h),)
$(OBJS): missing-headers
missing-headers:
	@echo "postgres.h not found (postgresql-server-dev-15): run 'make test' or 'make demo', which install it" >&2; exit 1
endif
endif

# The install script is kept whole in sql/docmodel.sql and copied at build (as pgvector does).
sql/$(EXTENSION)--$(EXTVERSION).sql: sql/$(EXTENSION).sql
	cp $< $@
all: sql/$(EXTENSION)--$(EXTVERSION).sql

.PHONY: deps test demo bench bench-instr tapcheck format quick fuzz sanitize soak

# Install what a fresh Debian machine lacks (PostgreSQL 15, its headers, IPC::Run for TAP).
deps:
	@scripts/deps.sh

# TAP suites in test/t, each starting its own clusters (run as postgres when we are root).
tapcheck:
	@scripts/tap.sh

# Build, install, and run every suite (pg_regress, isolation, TAP, README examples) on throwaway clusters.
test: deps
	@scripts/test.sh

# Build, install, and run the tour (demo/*.sql in order) on a throwaway cluster.
demo: deps
	@scripts/demo.sh

# Benchmarks against the hand-written SQL each feature replaces (test/bench/scenarios/*.sh).
bench: deps
	@scripts/bench.sh $(SCENARIOS)

# The same pairs counted in CPU instructions under valgrind (steady on a noisy machine).
bench-instr: deps
	@scripts/instr.sh $(SCENARIOS)

# The named tests only (TESTS="collection revisions_concurrent"): a contributor's short loop.
quick: deps
	@TESTS="$(TESTS)" scripts/quick.sh

# Finding what tests miss (none of these is part of make test):
# libFuzzer over the parsers (test/fuzz), FUZZ_TIME seconds per harness.
FUZZ_TIME ?= 60
fuzz:
	@DEPS_FOR=fuzz scripts/deps.sh
	@FUZZ_TIME="$(FUZZ_TIME)" scripts/fuzz.sh

# Every pg_regress and isolation suite against an ASan+UBSan build of the library.
sanitize:
	@DEPS_FOR=sanitize scripts/deps.sh
	@scripts/sanitize.sh

# pgbench with 4 clients racing on the KV API, revisions and migrations, then the checks.
SOAK_SECONDS ?= 300
soak: deps
	@SOAK_SECONDS="$(SOAK_SECONDS)" scripts/soak.sh

format:
	clang-format -i src/*.c src/*.h
