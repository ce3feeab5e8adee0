/*
 * siphash.h - the reference SipHash (util/siphash.c, CC0, from
 * https://github.com/veorq/SipHash), as SipHash-1-3.  *k is the 16-byte
 * key; outlen is 8 or 16.  Returns 0.
 * Not for: anything but the hash axis's keyed choice.
 */
#ifndef LAB_SIPHASH_H
#define LAB_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

int lab_siphash(const void *in, const size_t inlen, const void *k,
		 uint8_t *out, const size_t outlen);

#endif
