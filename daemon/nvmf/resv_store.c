/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Persist Through Power Loss: a namespace's reservation state in a file
 * of its own in the target's state directory (nvmf_tgt_set_resv_dir(),
 * bloxd's data directory), "resv-<namespace UUID>", in the form of
 * nvmf_resv_encode(). Written while PTPL is set, before the command that
 * changed the state completes: a temporary file, fsync, rename over the
 * old one, fsync of the directory, so that after a stop, a kill -9 or a
 * power cut the file holds the state before or after the command, never
 * a mix. Removed when PTPL is cleared and when the namespace is deleted;
 * read when the namespace is added.
 *
 * The writes are synchronous on the core's reactor: reservation commands
 * are rare, and the spec wants the state on stable storage before they
 * complete.
 */
#include "nvmf.h"
#include "resv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest state file read back (NVMF_RESV_MAX_REGS lines and the header). */
#define STATE_MAX (NVMF_RESV_MAX_REGS * 64 + 4096)

int nvmf_tgt_set_resv_dir(struct nvmf_tgt *tgt, const char *dir)
{
	char *d = NULL;

	if (dir && !(d = strdup(dir)))
		return -ENOMEM;
	free(tgt->resv_dir);
	tgt->resv_dir = d;
	return 0;
}

static int state_path(const struct nvmf_ns *ns, char *buf, size_t len, const char *suffix)
{
	const uint8_t *u = ns->uuid;
	int n = snprintf(buf, len,
			 "%s/resv-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x%s",
			 ns->subsys->tgt->resv_dir, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
			 u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15], suffix);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		rc = -errno;
	close(fd);
	return rc;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void nvmf_ns_resv_power_lost(struct nvmf_ns *ns)
{
	bool capable = ns->resv->ptpl_capable;

	if (ns->resv->ptpl)
		return; /* the file holds what memory holds: both stay */
	nvmf_resv_fini(ns->resv);
	nvmf_resv_init(ns->resv);
	ns->resv->ptpl_capable = capable;
}

int nvmf_ns_resv_save(struct nvmf_ns *ns)
{
	const char *dir = ns->subsys->tgt->resv_dir;
	char path[4096], tmp[4096], *text;
	int fd, rc;

	if (!dir || !ns->resv->ptpl_capable)
		return 0;
	if ((rc = state_path(ns, path, sizeof(path), "")) ||
	    (rc = state_path(ns, tmp, sizeof(tmp), ".tmp")))
		return rc;
	if (!ns->resv->ptpl) {
		if (unlink(path) && errno != ENOENT)
			return -errno;
		return errno == ENOENT ? 0 : sync_dir(dir);
	}
	text = nvmf_resv_encode(ns->resv);
	if (!text)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		free(text);
		return rc;
	}
	rc = write_all(fd, text, strlen(text));
	free(text);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	return sync_dir(dir);
}

void nvmf_ns_resv_load(struct nvmf_ns *ns)
{
	const struct blox_log *log = ns->subsys->tgt->log;
	char path[4096], *text;
	struct nvmf_resv r;
	ssize_t n;
	int fd;

	if (!ns->subsys->tgt->resv_dir)
		return;
	ns->resv->ptpl_capable = true;
	if (state_path(ns, path, sizeof(path), ""))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT)
			blox_log(log, BLOX_LOG_WARN, "%s nsid %u: reservations: %s: %s",
				 ns->subsys->nqn, ns->nsid, path, strerror(errno));
		return;
	}
	text = malloc(STATE_MAX + 1);
	n = text ? read(fd, text, STATE_MAX + 1) : -1;
	close(fd);
	nvmf_resv_init(&r);
	if (n < 0 || n > STATE_MAX) {
		blox_log(log, BLOX_LOG_WARN, "%s nsid %u: reservations: %s unreadable, not loaded",
			 ns->subsys->nqn, ns->nsid, path);
		free(text);
		return;
	}
	text[n] = '\0';
	if (nvmf_resv_decode(&r, text) || !r.ptpl) {
		blox_log(log, BLOX_LOG_WARN, "%s nsid %u: reservations: %s is not a state file, not loaded",
			 ns->subsys->nqn, ns->nsid, path);
		nvmf_resv_fini(&r);
		free(text);
		return;
	}
	free(text);
	r.ptpl_capable = true;
	nvmf_resv_fini(ns->resv);
	*ns->resv = r;
	blox_log(log, BLOX_LOG_INFO,
		 "%s nsid %u: reservations kept through the restart: %u registrants, type %u",
		 ns->subsys->nqn, ns->nsid, r.nr, r.rtype);
}

void nvmf_ns_resv_forget(struct nvmf_ns *ns)
{
	char path[4096];

	if (!ns->subsys->tgt->resv_dir || state_path(ns, path, sizeof(path), ""))
		return;
	if (!unlink(path))
		sync_dir(ns->subsys->tgt->resv_dir);
}
