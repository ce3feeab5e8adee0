# mk/gsoap.mk - the gSOAP peer (harness/gsoap/), in domlab-bench when
# Debian's gsoap and libgsoap-dev are installed (.ci/deps.sh bench).
# Included by mk/build.mk before domlab-bench's link rule, whose
# prerequisites take BENCH_OBJ as it stands there.  soapcpp2 turns harness/gsoap/quakes.h into
# $(OUT)/gen/ at build time, compiled with the wsse plugin's sources read
# from $(GSOAP_PLUGIN) (nothing of either is in the repository).  Without
# them domlab-bench has no gsoap: cases or command and tests/gsoap.sh
# skips.  gSOAP is GPL: it is linked into domlab-bench alone, never into
# a library (docs/measuring.md).  Its objects build with gSOAP's own
# flags (pkg-config gsoapssl: they fix struct soap's layout) and no
# warnings of ours: the generated code and the plugin are not ours to fix.
GSOAP_PLUGIN := /usr/share/gsoap/plugin
GSOAP_CUSTOM := /usr/share/gsoap/custom
GSOAP := $(if $(and $(shell command -v soapcpp2),$(wildcard $(GSOAP_PLUGIN)/wsseapi.c),$(shell pkg-config --exists gsoapssl && echo y)),1,0)
GSOAP_GEN := $(OUT)/gen
GSOAP_SELF := $(call obj,$(wildcard harness/gsoap/*.c))
GSOAP_SYS := $(addprefix $(GSOAP_GEN)/,soapC.o soapClient.o wsseapi.o smdevp.o mecevp.o struct_timeval.o)
# The objects that name the peer are rebuilt when it comes or goes.
GSOAP_USERS := $(call obj,harness/bench/cases.c harness/bench/bench_main.c harness/bench/cmd_bench.c)
GSOAP_STAMP := $(OUT)/gsoap.txt
ifneq ($(file <$(GSOAP_STAMP)),$(GSOAP))
$(shell mkdir -p $(OUT))
$(file >$(GSOAP_STAMP),$(GSOAP))
endif
$(GSOAP_USERS): $(GSOAP_STAMP)
ifeq ($(GSOAP),1)
GSOAP_CFLAGS := $(shell pkg-config --cflags gsoapssl) -isystem $(GSOAP_GEN) -isystem $(GSOAP_PLUGIN)
GSOAP_LIBS := $(shell pkg-config --libs gsoapssl) -lssl -lz
BENCH_OBJ += $(GSOAP_SELF) $(GSOAP_SYS)
$(GSOAP_USERS): CFLAGS_ALL += -DLAB_GSOAP
$(GSOAP_SELF): CFLAGS_ALL := $(filter-out -DOPENSSL_NO_DEPRECATED,$(CFLAGS_ALL)) $(GSOAP_CFLAGS)
$(GSOAP_SELF) $(GSOAP_SYS): $(GSOAP_GEN)/soapH.h
$(GSOAP_GEN)/soapH.h: harness/gsoap/quakes.h $(FLAGS_STAMP)
	@mkdir -p $(@D)
	@echo "  GEN $(@D): soapcpp2 $<"
	@soapcpp2 -c -C -x -L -w -d $(@D) -I/usr/share/gsoap/import $< >$(@D)/soapcpp2.log 2>&1 || { cat $(@D)/soapcpp2.log; exit 1; }
$(GSOAP_GEN)/soapC.c $(GSOAP_GEN)/soapClient.c: $(GSOAP_GEN)/soapH.h ;
$(GSOAP_GEN)/%.o: $(GSOAP_GEN)/%.c $(GSOAP_GEN)/soapH.h
	@echo "  CC  $(OUT): $<"
	@$(CC) $(OPT) -g -w $(GSOAP_CFLAGS) -c $< -o $@
$(GSOAP_GEN)/%.o: $(GSOAP_PLUGIN)/%.c $(GSOAP_GEN)/soapH.h
	@echo "  CC  $(OUT): $<"
	@$(CC) $(OPT) -g -w $(GSOAP_CFLAGS) -c $< -o $@
# The wsse import's SAML types read xsd:dateTime as a struct timeval.
$(GSOAP_GEN)/%.o: $(GSOAP_CUSTOM)/%.c $(GSOAP_GEN)/soapH.h
	@echo "  CC  $(OUT): $<"
	@$(CC) $(OPT) -g -w $(GSOAP_CFLAGS) -c $< -o $@
endif
