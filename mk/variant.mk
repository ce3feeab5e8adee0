# ---- which variant ----------------------------------------------------------
# A variant's name is a preset, then "+axis=choice" for each axis whose
# choice differs from the preset's, in the order of AXES: best,
# best+attrs=vector, doom2010+parser=insitu.  VARIANT may give the
# differing axes in any order, and an axis variable (ATTRS=hash) overrides
# VARIANT's choice for its axis; NAME is the canonical name, the build
# folder's.  Without VARIANT the preset is best.
empty :=
space := $(empty) $(empty)
axis_vars := $(strip $(foreach a,$(AXES),$($(var_$(a)))))
name_words := $(subst +, ,$(or $(VARIANT),best))
PRESET := $(firstword $(name_words))
given := $(wordlist 2,$(words $(name_words)),$(name_words))
ifeq ($(filter $(PRESET),$(PRESETS)),)
  $(error VARIANT=$(VARIANT) is not a preset ($(PRESETS)) followed by +axis=choice for each axis that differs, as in best+attrs=vector)
endif
$(foreach g,$(given),$(if $(and $(filter 2,$(words $(subst =, ,$(g)))),\
  $(filter $(firstword $(subst =, ,$(g))),$(AXES))),,\
  $(error VARIANT=$(VARIANT): '$(g)' is not axis=choice for an axis of: $(AXES))))
choice_of = $(or $($(var_$(1))),$(patsubst $(1)=%,%,$(lastword $(filter $(1)=%,$(given)))),$($(PRESET)_$(1)))
$(foreach a,$(AXES),$(if $(filter $(call choice_of,$(a)),$(choices_$(a))),,\
  $(error $(a)=$(call choice_of,$(a)) is not one of: $(choices_$(a)))))
# build=deferred is the insitu parser's (variants/build/deferred.c).
ifeq ($(call choice_of,build)$(call choice_of,parser),deferredlibxml2)
  $(error build=deferred needs parser=insitu: libxml2 builds every node (best with libxml2: best+build=direct+parser=libxml2))
endif
CHOICES := $(foreach a,$(AXES),$(call choice_of,$(a)))
NAME := $(PRESET)$(subst $(space),,$(foreach a,$(AXES),\
  $(if $(filter-out $($(PRESET)_$(a)),$(call choice_of,$(a))),+$(a)=$(call choice_of,$(a)))))
