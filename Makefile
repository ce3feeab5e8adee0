# domlab - the one entry point.  See README.md.
#
#   make                         build the default preset (best)
#   make VARIANT=doom2010        build a preset
#   make VARIANT=best+attrs=vector  a preset and what differs from it
#   make ATTRS=hash BUILD=built  build axis by axis (unnamed axes: best's,
#                                or the named VARIANT's)
#   make variant-name ...        print the variant's name (its build folder)
#   make test                    the fast loop: the three presets, and the C
#                                tests on what builds every other choice
#   make check                   the full matrix: every test variant, the
#                                threads test under TSAN, the fuzz smoke run
#   make test VARIANT=x          one variant (make check VARIANT=x alike)
#   make bench QUICK=1           a five-minute look: best, xerces, doom2010
#                                and ref, send and receive, into results/
#   make bench                   quick benchmark run into results/
#   make compare [FULL=1] [ICOUNT=1]  the thorough one (ICOUNT: callgrind)
#   make compare CASES='^(tokens|attachment)'  only the cases matching
#                                an extended regex (ref/pugixml/floor too)
#   make bench DATA=PATH         also on your SOAP envelopes (a file or a
#                                folder), each file a dataset
#   make install VARIANT=x PREFIX=dir  the variant as a library (pkg-config
#                                domlab-x; docs/api.md); make uninstall
#   make worst                   hostile inputs at full size, CPU and RSS
#   make oracle                  decryption-oracle refusals timed side by side
#   make scenarios               token store and attachments over HTTP
#   make attack                  attacks on `domlab serve` under open-loop load
#   make oneshot                 one send / receive per process, instructions
#                                (callgrind) into results/oneshot/
#   make reference [FORCE=1] [REFERENCE_WAIT=min]  make compare ICOUNT=1
#                                into results/reference/, and the README's
#                                results table from it
#   make recheck [RUN=dir]       the reference's side-by-side and findings'
#                                ratios measured again, each against its interval
#   make profile-diff A=x B=y STAGE=c14n DATASET=quakes-200k  two variants'
#                                profiles of one case, and their difference
#   make ab BASE=rev [ICOUNT=1]  the working tree against the commit rev,
#                                alternating processes with a control
#   make fuzz [FUZZ_SECONDS=60]  every tests/fuzz/*.c target, that long each
#   make oss-fuzz-check          the OSS-Fuzz build (tests/fuzz/oss-fuzz/), simulated
#   make memcheck                the whole test suite under valgrind, every preset
#   make lint                    cppcheck, and the documentation checks
#   make deps                    every package development uses
#   SANITIZE=1                   ASan + UBSan build (build/<variant>-asan/)
#   TSAN=1                       ThreadSanitizer build (build/<variant>-tsan/)
#
# This file holds the presets and the axes; the rest is in mk/, one
# fragment per concern:
#   mk/variant.mk   VARIANT and the axis variables to a variant's name
#   mk/deps.mk      the Debian packages: the one rule that checks them
#   mk/build.mk     flags, sources, the libraries and binaries
#   mk/test.mk      make test, make check, memcheck
#   mk/fuzz.mk      the libFuzzer targets, smoke run and campaigns
#   mk/bench.mk     bench, compare, reference, worst, oneshot, profiles
#   mk/install.mk   make install / uninstall
#   mk/lint.mk      cppcheck and the documentation checks

# The version --version prints and an installed variant's .pc file gives.
VERSION := 0

PRESETS := doom2010 xerces best

# The axes, one line each, in the order a variant's name spells them: the
# axis, the make variable that picks its choice, the choice of each preset
# (doom2010, xerces, best), then its other choices.  Each choice is
# variants/<axis>/<choice>.c, or every .c file in variants/<axis>/<choice>/
# when it needs several.  A new axis is one more line here.
AXES :=
define axis
AXES += $(strip $(1))
var_$(strip $(1)) := $(strip $(2))
doom2010_$(strip $(1)) := $(strip $(3))
xerces_$(strip $(1)) := $(strip $(4))
best_$(strip $(1)) := $(strip $(5))
choices_$(strip $(1)) := $(sort $(3) $(4) $(5) $(6))
row_$(strip $(1)) := $(strip $(2)) $(strip $(3)) $(strip $(4)) $(strip $(5)) $(strip $(6))
endef
#                   axis      variable  doom2010    xerces    best       others
$(eval $(call axis, attrs,    ATTRS,    vector,     vector,   adaptive,  hash))
$(eval $(call axis, userdata, USERDATA, pernode,    shared,   shared))
$(eval $(call axis, build,    BUILD,    built,      direct,   deferred,  direct))
$(eval $(call axis, attrlist, ATTRLIST, copy,       cached,   cached))
$(eval $(call axis, keys,     KEYS,     reload,     cached,   cached))
$(eval $(call axis, tokens,   TOKENS,   list,       hash,     hash))
$(eval $(call axis, io,       IO,       unbuffered, buffered, buffered))
$(eval $(call axis, parser,   PARSER,   libxml2,    libxml2,  insitu))
$(eval $(call axis, emit,     EMIT,     tree,       tree,     canonical, source))
$(eval $(call axis, hash,     HASH,     fixed,      fixed,    keyed))
$(eval $(call axis, read,     READ,     framed,     framed,   framed,    eof))
$(eval $(call axis, pass,     PASS,     staged,     staged,   fused))

# Everything built goes under BUILD_DIR (default build/), one folder per variant.
BUILD_DIR ?= build

# The default goal is the first target: building the variant.
.DEFAULT_GOAL := all

include mk/variant.mk mk/deps.mk mk/build.mk mk/test.mk mk/fuzz.mk \
  mk/bench.mk mk/install.mk mk/lint.mk
