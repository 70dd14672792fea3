/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running as a service: the lock on the data directory (one bloxd per
 * directory), its free space, and the systemd notification protocol
 * (sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET).
 */
#include "conf.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>

/* The holder's PID as its lock file says, or 0. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	char *end;
	long pid;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	return end != buf && pid > 0 ? pid : 0;
}

int blox_dir_lock(struct blox_dir_lock *lk, const char *dir, char *err, size_t errlen)
{
	memset(lk, 0, sizeof(*lk));
	lk->fd = -1;
	if ((size_t)snprintf(lk->dir, sizeof(lk->dir), "%s", dir) >= sizeof(lk->dir) ||
	    (size_t)snprintf(lk->path, sizeof(lk->path), "%s/%s", dir, BLOX_LOCK_FILE) >=
		    sizeof(lk->path))
		return blox_fail(err, errlen, "data directory %s: path too long", dir);
	if (mkdir(dir, 0750) == 0)
		lk->made_dir = true;
	else if (errno != EEXIST)
		return blox_fail(err, errlen, "data directory %s: %s (see --data-dir)", dir,
				 strerror(errno)),
		       -errno;
	/*
	 * The holder removes the file when it stops: a lock taken on a file
	 * that is no longer (or not yet again) the one at the path is no lock,
	 * so look again.
	 */
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		char pid[32];
		int fd = open(lk->path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
		int e;

		if (fd < 0) {
			e = errno;
			blox_dir_unlock(lk);
			return blox_fail(err, errlen, "data directory %s: lock file %s: %s", dir,
					 lk->path, strerror(e)),
			       -e;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			long holder = errno == EWOULDBLOCK ? lock_holder(fd) : 0;

			e = errno;
			close(fd);
			blox_dir_unlock(lk);
			if (e != EWOULDBLOCK)
				return blox_fail(err, errlen, "data directory %s: lock %s: %s",
						 dir, lk->path, strerror(e)),
				       -e;
			if (holder)
				blox_fail(err, errlen,
					  "data directory %s is in use by bloxd (pid %ld)", dir,
					  holder);
			else
				blox_fail(err, errlen,
					  "data directory %s is in use by bloxd (pid unknown, "
					  "see %s)",
					  dir, lk->path);
			return -EBUSY;
		}
		if (fstat(fd, &a) || stat(lk->path, &b) || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev) {
			close(fd);
			continue;
		}
		lk->fd = fd;
		snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid)) {
			e = errno;
			blox_dir_unlock(lk);
			return blox_fail(err, errlen, "data directory %s: lock file %s: %s", dir,
					 lk->path, strerror(e)),
			       -e;
		}
		return 0;
	}
	blox_dir_unlock(lk);
	return blox_fail(err, errlen, "data directory %s: lock file %s keeps changing", dir,
			 lk->path),
	       -EAGAIN;
}

void blox_dir_unlock(struct blox_dir_lock *lk)
{
	if (lk->fd >= 0) {
		/* Still holding it: nobody can have taken this file meanwhile. */
		unlink(lk->path);
		close(lk->fd);
		lk->fd = -1;
	}
	/* A directory this start made goes with it when nothing else is in it. */
	if (lk->made_dir) {
		rmdir(lk->dir);
		lk->made_dir = false;
	}
}

void blox_dir_lock_keep(struct blox_dir_lock *lk)
{
	lk->made_dir = false;
}

int blox_space_get(const char *dir, struct blox_space *out)
{
	struct statvfs v;

	memset(out, 0, sizeof(*out));
	if (statvfs(dir, &v))
		return -errno;
	out->free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
	out->total_bytes = (uint64_t)v.f_blocks * v.f_frsize;
	out->full = out->free_bytes < BLOX_SPACE_LOW;
	return 0;
}

int blox_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len;
	ssize_t n;
	int fd, e;

	if (!path || !path[0])
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sun.sun_path))
		return -EAFNOSUPPORT;
	memcpy(sun.sun_path, path, len);
	/* "@name": a name in the abstract namespace (a leading NUL, no terminator). */
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sun,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
	e = n < 0 ? errno : 0;
	close(fd);
	return -e;
}
