/*
 * wordscan.h - whether a buffer holds any of a few short words, anywhere:
 * a filter in front of an exact scan that is slower per byte, for bytes
 * in which the words are rare (wss/xenc.c checks each decrypted payload
 * for SOAP's element names, which a payload almost never spells).
 *
 * With SSE2 (every x86-64) or AVX2, 16 or 32 positions are tested at a
 * time by each word's first and last byte, and only a position where
 * both match is compared whole (the "generic SIMD" substring search);
 * the last positions, and other architectures, go byte by byte.  Work is
 * linear in n whatever the bytes: a position compared whole costs at
 * most LAB_WORD_MAX bytes per word.
 * Not for: where a word stands or how often (a yes is all it says).
 */
#ifndef UTIL_WORDSCAN_H
#define UTIL_WORDSCAN_H

#include <stddef.h>

enum { LAB_WORDS_MAX = 3, LAB_WORD_MAX = 32 };

/* The words, each 2 to LAB_WORD_MAX bytes, at most LAB_WORDS_MAX. */
typedef struct lab_words {
	const char *w[LAB_WORDS_MAX];
	size_t len[LAB_WORDS_MAX];
	size_t n;
} lab_words;

/* 1 when p[0..n) holds one of the words, else 0. */
int lab_words_any(const char *p, size_t n, const lab_words *words);

/* 1 when one of the words starts at p, `left` bytes readable there. */
int lab_words_at(const char *p, size_t left, const lab_words *words);

#endif
