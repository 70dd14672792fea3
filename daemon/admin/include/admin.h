/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin API, the one public header of daemon/admin/: the BloxAdmin
 * service on a unix socket (optionally TLS), a thin protobuf layer: every
 * change goes through the provisioning service (prov.h), every figure
 * comes from a telemetry snapshot (telemetry.h).
 */
#ifndef BLOX_ADMIN_H
#define BLOX_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "telemetry.h"

struct blox_mdns;

struct blox_admin;

/*
 * Check @o before anything is made (bloxd's exit code 2 when it fails,
 * with the reason in @err): the socket's directory exists, or is bloxd's
 * own run directory (the default socket's, made by blox_admin_create()) or
 * the data directory @data_dir (made by the lock step); the group exists;
 * with --admin-tls, its certificate, key and CA are given and readable.
 */
int blox_admin_check_opts(const struct blox_admin_opts *o, const char *data_dir, char *err,
			  size_t errlen);
/*
 * Serve the admin API for @prov's target (its data directory keeps the
 * state file); its Stats read windows from @tm's samples.
 */
int blox_admin_create(struct blox_prov *prov, struct blox_telemetry *tm,
		      const struct blox_admin_opts *o, struct blox_admin **out, char *err,
		      size_t errlen);
/* Close every admin connection and the sockets; pending answers are dropped. */
void blox_admin_destroy(struct blox_admin *a);
/*
 * bloxd is stopping: namespace creates are refused from now on, and those
 * still being made are undone when they finish. Then keep the loop running
 * while blox_admin_busy(): namespaces are still being made or torn down
 * off the loop.
 */
void blox_admin_stop(struct blox_admin *a);
bool blox_admin_busy(const struct blox_admin *a);
/*
 * Answers still in an admin connection's output (not yet written to its
 * socket): a stop waits a little for them, so that the answers of work
 * that ended during the stop ("shutting down") reach their clients.
 */
bool blox_admin_flushing(const struct blox_admin *a);
/*
 * Stopping: write the state file again from the running target when its
 * last write failed (each change wrote it already).
 */
void blox_admin_save_state(struct blox_admin *a);
/* The mDNS announcer GetStatus reports on; NULL (--no-mdns): "off". */
void blox_admin_set_mdns(struct blox_admin *a, const struct blox_mdns *m);

#endif
