/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state file: what the admin API changed, as a start-up config (the
 * same JSON as --config), rebuilt from the running target and the
 * provisioning service's records (the parameters each device and
 * namespace was made with), written
 * atomically (temporary file, fsync, rename, fsync of the directory).
 * bloxd starts from it when it exists in the data directory.
 */
#ifndef BLOX_STATE_H
#define BLOX_STATE_H

#include <stddef.h>

#include "mgmt.h"

/*
 * The running configuration of @p's target as JSON text (malloc'd): its
 * listeners, the registered devices and the subsystems with their hosts
 * and namespaces, each as it was asked for. NULL on ENOMEM.
 */
char *blox_state_json(const struct blox_prov *p);
/* Write @text to @path atomically. 0 or -errno with a reason in @err. */
int blox_state_write(const char *path, const char *text, char *err,
		     size_t errlen);

#endif
