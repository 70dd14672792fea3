/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to daemon/bdev: the limits' end of a backend's life. */
#ifndef BLOX_BDEV_QOS_H
#define BLOX_BDEV_QOS_H

#include "bdev.h"

/* Free @bdev's limits; commands still held are passed on first. */
void blox_bdev_qos_free(struct blox_bdev *bdev);

#endif
