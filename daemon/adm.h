/*
 * The admin plane inside bloxd: the BloxAdmin service (proto/
 * blox_admin.proto) on a unix stream socket, and optionally on TCP with
 * TLS and client certificates, served on the target's event loop.
 */
#ifndef BLOX_ADM_H
#define BLOX_ADM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvmf.h"
#include "tcp.h"

#define BLOX_DEFAULT_ADMIN_SOCKET "/run/bloxd/bloxd.sock"

struct blox_admin_opts {
	const char *socket_path; /* NULL: BLOX_DEFAULT_ADMIN_SOCKET */
	const char *group; /* socket group; NULL: bloxd's own */
	/* TLS listener ADDR:PORT (NULL: none), with its PEM files. */
	const char *tls_listen, *tls_cert, *tls_key, *tls_ca;
	uint32_t idle_timeout_ms; /* a silent client is closed; 0: 60 s */
	const char *data_dir; /* state file and namespace stores */
	const char *devices_json; /* shared devices of the config, or NULL */
};

struct blox_admin;

int blox_admin_create(struct nvmf_tgt *tgt, struct nvmf_tcp *tcp,
		      const struct blox_admin_opts *o, struct blox_admin **out,
		      char *err, size_t errlen);
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

#endif
