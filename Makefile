# docmodel: PGXS build, plus the two newcomer commands (make demo, make test) and make bench.

EXTENSION  = docmodel
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = docmodel
OBJS       = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))
# The SQL of the version in development is written once, by concern, in sql/parts/ (joined in
# name order: the install script); the upgrade from a released version is its hand-written part
# (sql/upgrade/) with every object of the parts the release lacks or defined otherwise
# (scripts/sqlbuild.pl). Released versions' install scripts (sql/docmodel--0.1.0.sql) are frozen.
SQL_PARTS  = $(sort $(wildcard sql/parts/*.sql))
DATA       = sql/$(EXTENSION)--0.1.0.sql
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql sql/$(EXTENSION)--0.1.0--$(EXTVERSION).sql
EXTRA_CLEAN = results output_iso output_columns regression.diffs regression.out tmp_check log

# Every file in test/sql, test/specs and test/t is a suite member; no list to keep.
REGRESS        = $(sort $(basename $(notdir $(wildcard test/sql/*.sql))))
REGRESS_OPTS   = --inputdir=test --load-extension=$(EXTENSION)
ISOLATION      = $(sort $(basename $(notdir $(wildcard test/specs/*.spec))))
# META_STYLE=columns (or another style): the regression tests run with docmodel.default_meta_style
# set, so create_collection without meta_style makes collections of that style; results in
# output_STYLE/ (make test runs the tests of test/columns_tests so a second time).
ifneq ($(META_STYLE),)
export PGOPTIONS := $(PGOPTIONS) -c docmodel.default_meta_style=$(META_STYLE)
REGRESS_OPTS   += --outputdir=output_$(META_STYLE)
# pg_regress (15) reads the expected outputs beside the results when the input dir has none
installcheck: output_$(META_STYLE)/expected
output_$(META_STYLE)/expected:
	mkdir -p output_$(META_STYLE) && ln -sfn ../expected $@
endif
ISOLATION_OPTS = --inputdir=test --outputdir=. --load-extension=$(EXTENSION)

# A bare `make` builds the extension (the rule below would otherwise be the first goal).
.DEFAULT_GOAL := all

# PGXS tracks no header dependencies (Debian's server is built without --enable-depend): every
# object depends on every header, so a changed struct never leaves a stale object behind.
$(OBJS): $(wildcard src/*.h src/*/*.h)

# Which PostgreSQL: PG_CONFIG when given; PG=N for major N; else the newest installed (as PGXS
# takes the newest pg_config), else the major this Debian release ships (scripts/pg_config.sh).
# A major this release neither has nor ships (make test PG=17 on bookworm) is built and tested
# inside a root of the Debian release that ships it (scripts/root.sh, scripts/inroot.sh).
DOCMODEL_DIR := $(dir $(realpath $(firstword $(MAKEFILE_LIST))))
ifneq ($(PG),)
ifeq ($(shell $(DOCMODEL_DIR)scripts/pg_config.sh --local $(PG) && echo local),local)
PG_CONFIG = /usr/lib/postgresql/$(PG)/bin/pg_config
else
IN_ROOT = $(PG)
endif
endif
ifeq ($(origin PG_CONFIG),undefined)
PG_CONFIG := $(shell $(DOCMODEL_DIR)scripts/pg_config.sh)
endif
export PG_CONFIG
PG_MAJOR := $(shell PG_CONFIG=$(PG_CONFIG) $(DOCMODEL_DIR)scripts/pg_config.sh --major 2>/dev/null)
PG_CPPFLAGS += -I$(srcdir)/src
PG_CFLAGS   += -Werror -Wall -Wmissing-prototypes
SHLIB_LINK  +=

# The targets a root runs: every one that builds or starts PostgreSQL.
ROOT_TARGETS = all install installcheck test quick demo bench bench-instr tapcheck sanitize \
	soak deb deb-check clean
ROOT_VARS = $(foreach v,TESTS META_STYLE SCENARIOS SOAK_SECONDS,$(if $($(v)),$(v)="$($(v))"))

ifneq ($(IN_ROOT),)
$(ROOT_TARGETS):
	@scripts/inroot.sh $(IN_ROOT) $@ $(ROOT_VARS)
.PHONY: $(ROOT_TARGETS)
else
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifeq ($(wildcard $(PGXS)),)
# PostgreSQL's server headers are missing: only the set-up targets can run; they install them.
all install installcheck:
	@echo "PGXS not found: run 'make test' or 'make demo', which install PostgreSQL $(PG_MAJOR) and its headers first" >&2; exit 1
else
include $(PGXS)
# pgxs.mk ships with the client package; the server headers are what the build needs.
ifeq ($(wildcard $(shell $(PG_CONFIG) --includedir-server)/postgres.h),)
$(OBJS): missing-headers
missing-headers:
	@echo "postgres.h not found (postgresql-server-dev-$(PG_MAJOR)): run 'make test' or 'make demo', which install it" >&2; exit 1
endif
endif
endif

ifeq ($(IN_ROOT),)
# The scripts, joined from the parts at build (as pg_cron and Citus do); the check refuses an
# object defined twice, or written again by hand in the upgrade's own part.
sql/$(EXTENSION)--$(EXTVERSION).sql: $(SQL_PARTS) scripts/sqlbuild.pl
	perl scripts/sqlbuild.pl install $(SQL_PARTS) > $@
sql/$(EXTENSION)--0.1.0--$(EXTVERSION).sql: sql/upgrade/$(EXTENSION)--0.1.0--$(EXTVERSION).sql.in \
		sql/$(EXTENSION)--0.1.0.sql $(SQL_PARTS) scripts/sqlbuild.pl
	perl scripts/sqlbuild.pl check sql/$(EXTENSION)--0.1.0.sql $< $(SQL_PARTS)
	perl scripts/sqlbuild.pl upgrade sql/$(EXTENSION)--0.1.0.sql $< $(SQL_PARTS) > $@
all: $(DATA_built)

.PHONY: deps test demo bench bench-instr tapcheck quick sanitize soak deb deb-check check-format format

# The C in the .clang-format style, the SQL indented with spaces, the layout rules of src/
# (make test runs it too).
check-format:
	@scripts/check_format.sh


# Install what a fresh Debian machine lacks (PostgreSQL PG_MAJOR, its headers, IPC::Run for TAP).
deps:
	@scripts/deps.sh

# TAP suites in test/t, each starting its own clusters (run as postgres when we are root).
tapcheck:
	@scripts/tap.sh

# Build, install, and run every suite (pg_regress, isolation, TAP, the examples of README.md and doc/) on throwaway clusters.
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

# The named tests only (TESTS="collection revisions_concurrent"): a contributor's short loop;
# META_STYLE=columns runs the regression tests with that default meta style.
quick: deps
	@TESTS="$(TESTS)" META_STYLE="$(META_STYLE)" scripts/quick.sh

# Finding what tests miss (none of these, nor make fuzz below, is part of make test):
# Every pg_regress and isolation suite against an ASan+UBSan build of the library.
sanitize:
	@DEPS_FOR=sanitize scripts/deps.sh
	@scripts/sanitize.sh

# pgbench with 4 clients racing on the KV API, revisions and migrations, then the checks.
SOAK_SECONDS ?= 300
soak: deps
	@SOAK_SECONDS="$(SOAK_SECONDS)" scripts/soak.sh

# The Debian package postgresql-N-docmodel for this major (debian/, pg_buildext), into dist/.
deb:
	@scripts/deb.sh

# make deb, then in a root of the release (nothing installed on this machine): dpkg -i the
# package, CREATE EXTENSION, and the autopkgtest debian/tests/installcheck.
deb-check:
ifeq ($(DOCMODEL_IN_ROOT),)
	@scripts/inroot.sh $(PG_MAJOR) deb-check
else
	@scripts/deb.sh check
endif

endif # IN_ROOT

.PHONY: format fuzz test-all dist

# Every supported major, each in its own place (the host, or the root of the release that ships
# it): one line per major ("pg17: N passed, N failed") and the total.
MAJORS ?= 15 17 18
test-all:
	@MAJORS="$(MAJORS)" scripts/test_all.sh

# The release archive PGXN takes (git archive of the tag vVERSION, else HEAD), META.json checked.
dist:
	@scripts/dist.sh

# libFuzzer over the parsers (test/fuzz), FUZZ_TIME seconds per harness.
FUZZ_TIME ?= 60
fuzz:
	@DEPS_FOR=fuzz scripts/deps.sh
	@FUZZ_TIME="$(FUZZ_TIME)" scripts/fuzz.sh

format:
	clang-format -i src/*.c src/*.h src/*/*.c src/*/*.h
