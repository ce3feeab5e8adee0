# ---- flags ---------------------------------------------------------------------
CC ?= cc
CXX ?= c++
SUFFIX :=
OPT := -O2
ifeq ($(SANITIZE),1)
  SUFFIX := -asan
  OPT := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
endif
ifeq ($(TSAN),1)
  ifeq ($(SANITIZE),1)
    $(error SANITIZE=1 and TSAN=1 cannot share a build)
  endif
  SUFFIX := -tsan
  OPT := -O1 -fsanitize=thread
endif
# FUZZ=1: the library instrumented for libFuzzer (build/<variant>-fuzz/).
ifeq ($(FUZZ),1)
  SUFFIX := -fuzz
  CC := clang
  CXX := clang++
  OPT := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
endif
OUT := $(BUILD_DIR)/$(NAME)$(SUFFIX)

XML2_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || xml2-config --cflags 2>/dev/null)
XML2_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null || xml2-config --libs 2>/dev/null)
XMLSEC_CFLAGS := $(shell pkg-config --cflags xmlsec1-openssl 2>/dev/null)
XMLSEC_LIBS := $(shell pkg-config --libs xmlsec1-openssl 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED $(OPT) -g -fno-omit-frame-pointer $(WARN) \
              -I. $(XML2_CFLAGS) -DDOMLAB_PRESET='"$(PRESET)"' \
              -DDOMLAB_VARIANT='"$(NAME)"' $(CFLAGS)
CXXFLAGS_ALL := -std=c++17 $(OPT) -g -fno-omit-frame-pointer -Wall -Wextra -Werror -I. $(CXXFLAGS)
LIBS := $(XML2_LIBS) -lcrypto -lpthread

# Three libraries, each named for what it holds; an axis's choice goes into
# the one its contract header is in (wss/keys.h: the keys axis is wss's).
#   libdomlab-dom.a   util/, dom/ and the DOM axes' choices
#   libdomlab-wss.a   wss/ (the WS-Security pipeline) and its axes' choices
#   libdomlab-data.a  datasets/ (the generators)
WSS_AXES := $(foreach a,$(AXES),$(if $(wildcard wss/$(a).h),$(a)))
# A choice's sources: its folder's .c files (and its subfolders'), else
# its one file.
choice_file = $(or $(wildcard variants/$(1)/$(2)/*.c variants/$(1)/$(2)/*/*.c),variants/$(1)/$(2).c)
choice_src = $(foreach a,$(1),$(call choice_file,$(a),$(call choice_of,$(a))))
DOM_SRC := $(wildcard util/*.c) $(wildcard dom/*.c) $(call choice_src,$(filter-out $(WSS_AXES),$(AXES)))
WSS_SRC := $(wildcard wss/*.c) $(call choice_src,$(WSS_AXES))
DATA_SRC := $(wildcard datasets/*.c)
# harness/ is four components, one folder each: cli/ (the command line,
# libdomlab-cli.a, which domlab and domlab-bench share), bench/ (the cases
# and the Google Benchmark wrapper), refpeer/ (the libxml2 + xmlsec1
# reference peer) and reports/ (the scripts that turn runs into reports).
# bench/ and refpeer/ go into domlab-bench alone, with Google Benchmark,
# pugixml and xmlsec1.
BENCH_SRC := $(wildcard harness/bench/*.c harness/refpeer/*.c)
# The reference peer's library part, which domlab-http and the
# differential fuzz target link too: refpeer/ but its command.
REFPEER_SRC := $(filter-out harness/refpeer/cmd_ref.c,$(wildcard harness/refpeer/*.c))
# harness/http/ is `domlab serve` and `domlab load` (docs/http.md): their
# option tables and the exec of domlab-http (HTTP_SHARED) go into the cli
# library, for domlab's --help; the rest is domlab-http, the one binary
# that links libmicrohttpd and libcurl (with the reference peer).
HTTP_SHARED := harness/http/opts.c harness/http/sibling.c
HTTP_SRC := $(filter-out $(HTTP_SHARED),$(wildcard harness/http/*.c))
CLI_SRC := $(filter-out harness/cli/main.c,$(wildcard harness/cli/*.c)) $(HTTP_SHARED)
BENCH_CXX := $(wildcard harness/bench/*.cc)
TEST_SRC := $(wildcard tests/*.c)

obj = $(patsubst %.c,$(OUT)/obj/%.o,$(1))
LIB_DOM := $(OUT)/libdomlab-dom.a
LIB_WSS := $(OUT)/libdomlab-wss.a
LIB_DATA := $(OUT)/libdomlab-data.a
LIB_CLI := $(OUT)/libdomlab-cli.a
# In link order: each library before the ones it uses.
LIBS_DOMLAB := $(LIB_DATA) $(LIB_WSS) $(LIB_DOM)
BENCH_OBJ := $(call obj,$(BENCH_SRC)) $(patsubst %.cc,$(OUT)/obj/%.o,$(BENCH_CXX))
TEST_OBJ := $(call obj,$(TEST_SRC))

.PHONY: all domlab domlab-bench domlab-http variant-name variant-axes clean
all: $(OUT)/domlab $(OUT)/domlab-bench $(OUT)/domlab-http $(OUT)/test-libdomlab

# One binary alone.  Scripts name them through these targets: a path
# with '=' in it would be a variable assignment on make's command line.
domlab: $(OUT)/domlab
domlab-bench: $(OUT)/domlab-bench
domlab-http: $(OUT)/domlab-http
variant-name:
	@echo $(NAME)
variant-axes:
	@echo $(foreach a,$(AXES),$(a)=$(call choice_of,$(a)))

# Objects depend on the flags they were built with, kept in FLAGS_STAMP
# and rewritten only when they change, not on the Makefile: an edit to a
# comment or a target must not rebuild every variant.
FLAGS_STAMP := $(OUT)/flags.txt
FLAGS_NOW := $(CC) $(CFLAGS_ALL) $(XMLSEC_CFLAGS) | $(CXX) $(CXXFLAGS_ALL) | $(LIBS)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(OUT))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif

# --version's strings (harness/cli/version.h): one generated file,
# rewritten only when the version or the commit changes, so a commit
# relinks the binaries and recompiles nothing else.
COMMIT := $(or $(shell git describe --always --dirty 2>/dev/null),unknown: not a git checkout)
VERSION_C := $(OUT)/version.c
VERSION_OBJ := $(OUT)/obj/version.o
hash := \#
define VERSION_TEXT
/* Written by mk/build.mk: the version and commit of this build. */
$(hash)include "harness/cli/version.h"

const char *lab_version(void) { return "$(VERSION)"; }
const char *lab_commit(void) { return "$(COMMIT)"; }
endef
ifneq ($(file <$(VERSION_C)),$(VERSION_TEXT))
$(shell mkdir -p $(OUT))
$(file >$(VERSION_C),$(VERSION_TEXT))
endif
$(VERSION_OBJ): $(VERSION_C) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC  $(OUT): version.c"
	@$(CC) $(CFLAGS_ALL) -c $< -o $@

$(OUT)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC  $(OUT): $<"
	@$(CC) $(CFLAGS_ALL) -MMD -MP -MT '$$(OUT)/obj/$*.o' -c $< -o $@

$(OUT)/obj/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  CXX $(OUT): $<"
	@$(CXX) $(CXXFLAGS_ALL) -MMD -MP -MT '$$(OUT)/obj/$*.o' -c $< -o $@

$(LIB_DOM): $(call obj,$(DOM_SRC))
$(LIB_WSS): $(call obj,$(WSS_SRC))
$(LIB_DATA): $(call obj,$(DATA_SRC))
$(LIB_CLI): $(call obj,$(CLI_SRC)) $(VERSION_OBJ)
$(OUT)/libdomlab-%.a:
	@echo "  AR  $@"
	@rm -f $@ && ar rcs $@ $^

# domlab links only what its commands use: C, libcrypto, and libxml2 only
# where the variant's parser is libxml2; no C++ runtime, Google Benchmark,
# pugixml or xmlsec1.  Each library a process loads costs its relocations
# at every start.  Every call into libxml2 is in variants/parser/libxml2/,
# compiled into those variants alone, so under parser=insitu nothing can
# call it (a call that is left fails the link).  libcrypto
# is linked from its static archive, so the loader binds none of its
# symbols at start (docs/measuring.md); a libcrypto update then needs
# domlab rebuilt.
DOMLAB_XML2 := $(if $(filter libxml2,$(call choice_of,parser)),$(XML2_LIBS))
$(OUT)/domlab: $(call obj,harness/cli/main.c) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -Wl,--gc-sections -Wl,--as-needed -o $@ $^ $(DOMLAB_XML2) -Wl,-Bstatic -lcrypto -Wl,-Bdynamic -ldl -lpthread

include mk/gsoap.mk

$(OUT)/domlab-bench: $(BENCH_OBJ) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CXX) $(OPT) -o $@ $^ $(XMLSEC_LIBS) $(GSOAP_LIBS) $(LIBS) -lbenchmark -lpugixml

HTTP_CFLAGS := $(shell pkg-config --cflags libmicrohttpd libcurl 2>/dev/null)
HTTP_LIBS := $(shell pkg-config --libs libmicrohttpd libcurl 2>/dev/null)
$(call obj,$(HTTP_SRC)): CFLAGS_ALL += $(HTTP_CFLAGS)
$(OUT)/domlab-http: $(call obj,$(HTTP_SRC) $(REFPEER_SRC)) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -o $@ $^ $(HTTP_LIBS) $(XMLSEC_LIBS) $(LIBS)

$(OUT)/test-libdomlab: $(TEST_OBJ) $(LIB_CLI) $(LIBS_DOMLAB)
	@echo "  LD  $@"
	@$(CC) $(OPT) -o $@ $^ $(LIBS)

# The reference peer (libxml2 + xmlsec1) compiles with exactly xmlsec's
# flags: they fix xmlSecSize's type (XMLSEC_NO_SIZE_T) to the library's.
# xmlsec 1.2's OpenSSL header names RSA, DSA and EC_KEY, which
# OPENSSL_NO_DEPRECATED hides, so these objects go without it.
REF_OBJ := $(call obj,$(REFPEER_SRC) harness/bench/cases_ref.c)
$(REF_OBJ): CFLAGS_ALL := $(filter-out -DOPENSSL_NO_DEPRECATED,$(CFLAGS_ALL)) $(XMLSEC_CFLAGS)

# The tests read the conformance vectors (tests/vectors/) by absolute path,
# so test-libdomlab runs from any directory.
$(TEST_OBJ): CFLAGS_ALL += -DDOMLAB_VECTORS_DIR='"$(abspath tests/vectors)"'

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)
clean:
	rm -rf $(BUILD_DIR)
