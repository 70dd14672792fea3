/* SPDX-License-Identifier: BSD-3-Clause */
/* unit_bdev's tests in files of their own, run by test_bdev.c's main(). */
#ifndef BLOX_TEST_BDEV_H
#define BLOX_TEST_BDEV_H

/* devcut.c: a registered device's power cut with protected vSSDs on it. */
void test_device_cut_plp(void **state);

#endif
