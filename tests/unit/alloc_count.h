/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counting allocations in a test program: this header replaces malloc, calloc, realloc and free
 * for the whole program (the calls go on to glibc's own) and counts those made while `counting`
 * is 1. Include it in one test file only. Under AddressSanitizer the allocator is the
 * sanitizer's: ALLOC_COUNTING is 0 and the tests skip.
 */
#ifndef TESTS_ALLOC_COUNT_H
#define TESTS_ALLOC_COUNT_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define ALLOC_COUNTING 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOC_COUNTING 0
#endif
#endif
#ifndef ALLOC_COUNTING
#define ALLOC_COUNTING 1
#endif

static volatile unsigned long n_alloc, n_free; /* while counting */
static volatile int counting; /* volatile: gcc knows malloc reads no global of ours */

#if ALLOC_COUNTING
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t m);
void *__libc_realloc(void *p, size_t n);
void __libc_free(void *p);

void *malloc(size_t n);
void *calloc(size_t n, size_t m);
void *realloc(void *p, size_t n);
void free(void *p);

void *malloc(size_t n)
{
	n_alloc += counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	n_alloc += counting;
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	n_alloc += counting;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	n_free += counting && p;
	__libc_free(p);
}
#endif

#endif
