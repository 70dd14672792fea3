/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What test_nand_store's files share: the temporary directory and store
 * of a test, its set-up and teardown, a data pattern, and the tests of
 * store_part.c (test_nand_store.c runs them all).
 */
#ifndef BLOX_TEST_STORE_TESTS_H
#define BLOX_TEST_STORE_TESTS_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nand.h"
#include "nand_fixture.h"

struct sfx {
	char dir[64];
	char path[96];
	struct nand_store *store;
	struct nand_dev *dev;
	struct nand_geometry geo;
	uint32_t done;
};

/* cmocka set-up and teardown: a fresh directory, the small geometry. */
int setup(void **state);
int teardown(void **state);

/* A data pattern of @seed. */
void fill(uint8_t *p, size_t n, uint32_t seed);
bool all_bytes(const uint8_t *p, size_t n, uint8_t v);

/* A file store at f->path (@file) or a RAM store of @g into f->store. */
int open_store(struct sfx *f, bool file, const struct nand_geometry *g);
/* Destroy f->dev if any and close f->store. */
void close_store(struct sfx *f);

/* store_part.c */
void test_ram_read_part(void **state);
void test_file_read_part(void **state);
void test_ram_part_after_erase(void **state);
void test_file_part_coherent(void **state);
void test_file_part_reopen(void **state);
void test_file_short_reopen(void **state);
void test_file_mapped(void **state);
void test_store_peek(void **state);

/* store_huge.c */
void test_file_huge_pages(void **state);
void test_file_huge_pages_off(void **state);

#endif
