/*
 * hostile.h - the hostile shapes behind `domlab gen` (datasets/hostile.c):
 * what an attacker sends to make parsing or receiving cost more than its
 * size says.  lab_gen (datasets/gen.c) calls it for these kinds.
 * Not for: friendly benchmark data (datasets/gen.c).
 */
#ifndef LAB_HOSTILE_H
#define LAB_HOSTILE_H

#include "datasets/gen.h"

/* Appends kind's document of about `size` bytes (count: wide-ns's
 * prefixes) to out; LAB_ENOMEM when it cannot grow. */
int lab_gen_hostile(lab_gen_kind kind, size_t size, size_t count,
		    uint64_t seed, lab_buf *out);

#endif
