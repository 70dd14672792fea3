/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the libFuzzer targets share: a reader that takes typed values off
 * the fuzzer's input (zeros once it runs out, so every input is a valid
 * program), and FUZZ_CHECK, which aborts, so that a broken invariant is a
 * crash libFuzzer keeps a reproducer of, like a sanitizer report.
 */
#ifndef BLOX_FUZZ_UTIL_H
#define BLOX_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                              \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__,     \
				__LINE__, #cond);                                          \
			fprintf(stderr, __VA_ARGS__);                                      \
			fputc('\n', stderr);                                               \
			abort();                                                           \
		}                                                                          \
	} while (0)

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline void fz_bytes(struct fz *f, void *dst, size_t len)
{
	size_t take = len < f->n ? len : f->n;

	memcpy(dst, f->p, take);
	memset((uint8_t *)dst + take, 0, len - take);
	f->p += take;
	f->n -= take;
}

/* fz_u8() .. fz_u64(): the next value, little-endian as on the wire. */
#define FZ_TAKE(name, type)                       \
	static inline type name(struct fz *f)     \
	{                                         \
		type v;                           \
		fz_bytes(f, &v, sizeof(v));       \
		return v;                         \
	}
FZ_TAKE(fz_u8, uint8_t)
FZ_TAKE(fz_u16, uint16_t)
FZ_TAKE(fz_u32, uint32_t)
FZ_TAKE(fz_u64, uint64_t)

/* libFuzzer's entry points. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
