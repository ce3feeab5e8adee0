# ---- install --------------------------------------------------------------------
# make install VARIANT=v PREFIX=dir [DESTDIR=stage]: the variant as a static
# library an application links through pkg-config (docs/api.md);
# make uninstall with the same VARIANT and PREFIX removes what it wrote.
# Everything is named after the pkg-config module, domlab-<variant> with
# each '=' made '-': `pkg-config 'm = 1'` and CMake's pkg_check_modules
# (even unspaced, 'm=1') read '=' in a module list as a version
# constraint; '+' is a name's, as in gtk+-3.0; no axis or choice has a '-'.
#   lib/libdomlab-<v>.a         dom/, wss/ and the variant's choices
#   lib/pkgconfig/domlab-<v>.pc
#   include/domlab-<v>/         the public headers, by their source paths
# so variants sit side by side under one prefix.  Static only: the
# application then runs the code the benchmark measured, and the headers'
# structs carry no ABI promise that a shared library's soname would make.
# The library needs libcrypto, and libxml2 when the parser is libxml2:
# every call into it is in that parser's folder.
PREFIX ?= /usr/local
DESTDIR ?=
PC_NAME := domlab-$(subst =,-,$(NAME))
PC_PREFIX := $(abspath $(PREFIX))
INSTALL_HEADERS := util/buf.h util/err.h util/alloc.h util/timeline.h dom/dom.h \
  dom/feed.h \
  wss/wss.h wss/caps.h wss/crypto.h wss/c14n.h
LIB_INSTALL := $(OUT)/lib$(PC_NAME).a
INSTALL_ROOT := $(DESTDIR)$(PC_PREFIX)
INSTALL_INC := include/$(PC_NAME)
INSTALLED := lib/lib$(PC_NAME).a lib/pkgconfig/$(PC_NAME).pc \
  $(addprefix $(INSTALL_INC)/,$(INSTALL_HEADERS))

# One archive of both libraries' objects ('q': a member name two objects
# share, variants/attrs/hash.o and variants/tokens/hash.o, stays twice).
$(LIB_INSTALL): $(call obj,$(DOM_SRC) $(WSS_SRC))
	@echo "  AR  $@"
	@rm -f $@ && ar qc $@ $^ && ranlib $@

# The .pc file names the prefix, so install writes it for the PREFIX given.
PC_LINES := 'prefix=$(PC_PREFIX)' 'libdir=$${prefix}/lib' \
  'includedir=$${prefix}/$(INSTALL_INC)' 'variant=$(NAME)' '' \
  'Name: $(PC_NAME)' \
  'Description: domlab DOM and WS-Security pipeline, variant $(NAME)' \
  'Version: $(VERSION)' 'Requires.private: libcrypto$(if $(filter libxml2,$(call choice_of,parser)), libxml-2.0)' \
  'Libs: -L$${libdir} -l$(PC_NAME)' 'Libs.private: -lpthread' \
  'Cflags: -I$${includedir}'

.PHONY: install uninstall install-name
install: $(LIB_INSTALL)
	@install -d $(INSTALL_ROOT)/lib/pkgconfig
	@install -m 644 $(LIB_INSTALL) $(INSTALL_ROOT)/lib/
	@printf '%s\n' $(PC_LINES) >$(INSTALL_ROOT)/lib/pkgconfig/$(PC_NAME).pc
	@for h in $(INSTALL_HEADERS); do \
	  install -D -m 644 $$h $(INSTALL_ROOT)/$(INSTALL_INC)/$$h || exit 1; \
	done
	@echo "installed $(NAME) as pkg-config module $(PC_NAME) in $(INSTALL_ROOT)"

# The files install wrote, then the folders under include/ it made.
uninstall:
	@rm -f $(addprefix $(INSTALL_ROOT)/,$(INSTALLED))
	@for d in $(sort $(dir $(INSTALL_HEADERS))); do \
	  [ ! -d $(INSTALL_ROOT)/$(INSTALL_INC)/$$d ] || rmdir $(INSTALL_ROOT)/$(INSTALL_INC)/$$d || exit 1; \
	done
	@[ ! -d $(INSTALL_ROOT)/$(INSTALL_INC) ] || rmdir $(INSTALL_ROOT)/$(INSTALL_INC)
	@echo "uninstalled $(PC_NAME) from $(INSTALL_ROOT)"

# The pkg-config module a variant installs as, for scripts.
install-name:
	@echo $(PC_NAME)

