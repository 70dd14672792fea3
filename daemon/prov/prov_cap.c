/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Capacity: a namespace or a device is made only when its data fits where
 * it is kept, unless it is marked "overcommit".
 *
 * What a thing needs (prov_cap_of_ns/_device):
 *   - a flash file in the data directory (backend nand on a device of its
 *     own, a device with a file store): the file's full size, as the NAND
 *     store lays it out (header, block meta, every page with its OOB), on
 *     the data directory's filesystem;
 *   - host memory (backend ram; backend nand with store ram; a device with
 *     a RAM store): its full size;
 *   - nothing: backends null and nand-timing (no data), a namespace on a
 *     registered device (its device's file or memory holds it).
 *
 * The rule, for each resource (the data directory's filesystem, memory):
 *
 *     need(new) + sum over made ones (not overcommitted) of
 *                 (their full size - what they take already)  <=  free
 *
 * free is statvfs()'s f_bavail * f_frsize for the filesystem, and
 * MemAvailable (/proc/meminfo; lowered to the cgroup's memory.max less
 * memory.current when bloxd runs under a memory limit) for memory; what a
 * made one takes already is its file's allocated blocks (st_blocks * 512:
 * sparse files count only what was written) or the memory its backend
 * holds, since that is out of "free" already. So what was promised to the
 * flash made before is kept for it, and written data is not counted twice.
 *
 * A new one that does not fit is refused (-ENOSPC: RESOURCE_EXHAUSTED, or
 * bloxd's exit code 5 at start-up) with what it needs and what is free;
 * with "overcommit" it is made anyway, as a sparse file or lazily filled
 * memory, with a warning in the log and in the answer, and it promises
 * nothing to the rule (its writes fail, or bloxd runs out of memory, when
 * the space is gone). At start-up a flash file that exists already was
 * admitted when it was made: it is never refused, only counted, and a
 * warning is logged when the made ones can outgrow the free space.
 */
#include "prov.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

struct prov_cap prov_cap_of_ns(const struct blox_cfg_ns *cn)
{
	struct prov_cap c = { .overcommit = cn->params.overcommit };

	if (!strcmp(cn->backend, "ram")) {
		c.kind = PROV_CAP_RAM;
		c.bytes = cn->size;
	} else if ((!strcmp(cn->backend, "nand") || cn->zoned) && !cn->device[0]) {
		c.kind = cn->store_ram ? PROV_CAP_RAM : PROV_CAP_FILE;
		c.bytes = cn->store_ram ? nand_store_ram_bytes(&cn->nand.geo)
					: nand_store_file_bytes(&cn->nand.geo);
	}
	return c;
}

struct prov_cap prov_cap_of_device(const struct blox_cfg_device *cd)
{
	return (struct prov_cap){
		.kind = cd->store_ram ? PROV_CAP_RAM : PROV_CAP_FILE,
		.bytes = cd->store_ram ? nand_store_ram_bytes(&cd->nand.geo)
				       : nand_store_file_bytes(&cd->nand.geo),
		.overcommit = cd->params.overcommit,
	};
}

const char *prov_cap_bytes_str(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)b;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0 || v >= 10 || v == (double)(uint64_t)v)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	return buf;
}

/* Bytes a file takes on its filesystem now; 0 when it is not there. */
static uint64_t file_held(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_blocks * 512;
}

/* Free bytes on the filesystem of @dir, or of its nearest existing parent. */
static int fs_free(const char *dir, uint64_t *out)
{
	char d[4096];
	struct statvfs v;

	snprintf(d, sizeof(d), "%s", dir);
	while (statvfs(d, &v)) {
		char *slash = strrchr(d, '/');
		int e = errno;

		if (e != ENOENT || !strcmp(d, "/") || !strcmp(d, "."))
			return -e;
		if (!slash)
			snprintf(d, sizeof(d), ".");
		else if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	*out = (uint64_t)v.f_bavail * v.f_frsize;
	return 0;
}

/* A number from the first line of @path; false when it is missing or "max". */
static bool read_u64_file(const char *path, uint64_t *out)
{
	FILE *f = fopen(path, "r");
	unsigned long long v;
	bool ok;

	if (!f)
		return false;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (ok)
		*out = v;
	return ok;
}

/* The memory limit of our cgroup (v2), less what it uses; false: no limit. */
static bool cgroup_room(uint64_t *out)
{
	char line[512], path[700];
	uint64_t max, cur;
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "0::", 3);
	fclose(f);
	if (!found)
		return false;
	line[strcspn(line, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
		 strcmp(line + 3, "/") ? line + 3 : "");
	if (!read_u64_file(path, &max))
		return false;
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.current",
		 strcmp(line + 3, "/") ? line + 3 : "");
	if (!read_u64_file(path, &cur))
		cur = 0;
	*out = max > cur ? max - cur : 0;
	return true;
}

/* Memory the host can give: MemAvailable, or sysinfo's free and buffers. */
static uint64_t mem_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;
	char line[256];
	uint64_t avail = 0, room;
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
	if (f)
		fclose(f);
	if (found) {
		avail = (uint64_t)kb * 1024;
	} else {
		struct sysinfo si;

		if (!sysinfo(&si))
			avail = ((uint64_t)si.freeram + si.bufferram) * si.mem_unit;
	}
	if (cgroup_room(&room) && room < avail)
		avail = room;
	return avail;
}

/* Free and promised bytes of the two resources. */
struct cap_pool {
	uint64_t free[3], promised[3]; /* by enum prov_cap_kind */
	bool fs_known;
};

static int pool_init(struct blox_prov *p, struct cap_pool *pool, char *err, size_t errlen)
{
	int rc;

	memset(pool, 0, sizeof(*pool));
	pool->free[PROV_CAP_RAM] = mem_free();
	rc = fs_free(p->data_dir, &pool->free[PROV_CAP_FILE]);
	if (rc)
		return blox_fail(err, errlen, "data directory %s: %s", p->data_dir,
				 strerror(-rc)),
		       rc;
	return 0;
}

/* A made one of @c, of which @held is taken already: its rest is promised. */
static void pool_promise(struct cap_pool *pool, const struct prov_cap *c, uint64_t held)
{
	if (c->kind != PROV_CAP_NONE && !c->overcommit && c->bytes > held)
		pool->promised[c->kind] += c->bytes - held;
}

/* "on /var/lib/bloxd for its flash file, 77 GiB free" and the like. */
static void describe(const struct blox_prov *p, const struct cap_pool *pool,
		     const struct prov_cap *c, char *buf, size_t len)
{
	char need[32], free_[32], prom[96] = "";
	uint64_t pr = pool->promised[c->kind];

	if (pr)
		snprintf(prom, sizeof(prom), ", %s of it promised to what was made before",
			 prov_cap_bytes_str(pr, need, sizeof(need)));
	prov_cap_bytes_str(c->bytes, need, sizeof(need));
	prov_cap_bytes_str(pool->free[c->kind], free_, sizeof(free_));
	if (c->kind == PROV_CAP_FILE)
		snprintf(buf, len, "needs %s on %s for its flash file, %s free%s", need,
			 p->data_dir, free_, prom);
	else
		snprintf(buf, len, "needs %s of RAM, the host has %s available%s", need, free_,
			 prom);
}

/* Admit a new @c into @pool (see the top of the file). */
static int pool_admit(struct blox_prov *p, struct cap_pool *pool, const struct prov_cap *c,
		      const char *what, char *warn, size_t warnlen, char *err, size_t errlen)
{
	uint64_t f, need;
	char d[4400]; /* the data directory's path is in it */

	if (warn && warnlen)
		warn[0] = '\0';
	if (c->kind == PROV_CAP_NONE)
		return 0;
	f = pool->free[c->kind];
	need = c->bytes + pool->promised[c->kind];
	if (need >= c->bytes && need <= f) {
		pool_promise(pool, c, 0);
		return 0;
	}
	describe(p, pool, c, d, sizeof(d));
	if (!c->overcommit) {
		blox_fail(err, errlen, "%s %s; with overcommit it is made anyway, as %s", what, d,
			  c->kind == PROV_CAP_FILE ? "a sparse file" : "lazily filled memory");
		return -ENOSPC;
	}
	snprintf(warn, warnlen, "%s is overcommitted: it %s; %s", what, d,
		 c->kind == PROV_CAP_FILE ? "its writes fail once the filesystem is full"
					  : "bloxd can run out of memory");
	blox_log(p->log, BLOX_LOG_WARN, "%s", warn);
	return 0;
}

/* The path of device @name's flash file. */
static void device_file(const struct blox_prov *p, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/dev-%s.nand", p->data_dir, name);
}

/* Everything @p has made, promised into @pool. */
static void pool_made(struct blox_prov *p, struct cap_pool *pool)
{
	const struct prov_device *d;
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	char path[4200];

	TAILQ_FOREACH(d, &p->devices, link) {
		device_file(p, d->cfg.name, path, sizeof(path));
		pool_promise(pool, &d->cap,
			     d->cap.kind == PROV_CAP_FILE ? file_held(path)
							  : blox_nand_dev_mem_bytes(d->dev));
	}
	TAILQ_FOREACH(s, &p->tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			const struct prov_ns_rec *rec = prov_ns_rec(ns);

			if (!rec)
				continue;
			pool_promise(pool, &rec->cap,
				     rec->cap.kind == PROV_CAP_FILE
					     ? (rec->store_path ? file_held(rec->store_path) : 0)
				     : blox_bdev_mem_bytes(ns->bdev));
		}
}

int prov_cap_admit(struct blox_prov *p, const struct prov_cap *c, const char *what, char *warn,
		   size_t warnlen, char *err, size_t errlen)
{
	struct cap_pool pool;
	int rc;

	if (warn && warnlen)
		warn[0] = '\0';
	if (c->kind == PROV_CAP_NONE)
		return 0;
	if ((rc = pool_init(p, &pool, err, errlen)))
		return rc;
	pool_made(p, &pool);
	return pool_admit(p, &pool, c, what, warn, warnlen, err, errlen);
}

int prov_cap_admit_device(struct blox_prov *p, const struct blox_cfg_device *cd, char *warn,
			  size_t warnlen, char *err, size_t errlen)
{
	struct prov_cap c = prov_cap_of_device(cd);
	char path[4200], what[64];

	if (warn && warnlen)
		warn[0] = '\0';
	device_file(p, cd->name, path, sizeof(path));
	/* Its flash file from before it was deleted: admitted when it was made. */
	if (c.kind == PROV_CAP_FILE && access(path, F_OK) == 0)
		return 0;
	snprintf(what, sizeof(what), "device %s", cd->name);
	return prov_cap_admit(p, &c, what, warn, warnlen, err, errlen);
}

/* The flash file of config item @c, when it has one: its path into @path. */
static bool cfg_file(const struct blox_prov *p, const struct prov_cap *c, const char *dev,
		     const char *nqn, uint32_t nsid, char *path, size_t len)
{
	char file[64];

	if (c->kind != PROV_CAP_FILE)
		return false;
	if (dev) {
		device_file(p, dev, path, len);
	} else {
		prov_store_file(nqn, nsid, file, sizeof(file));
		snprintf(path, len, "%s/%s", p->data_dir, file);
	}
	return true;
}

int prov_cap_plan(struct blox_prov *p, const struct blox_config *cfg, char *err, size_t errlen)
{
	struct cap_pool pool;
	char path[4200], what[320], warn[512], a[32], b[32];
	int rc;

	if ((rc = pool_init(p, &pool, err, errlen)))
		return rc;
	pool_made(p, &pool);
	/* Flash files there already: admitted when they were made. Then the new ones, in order. */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < cfg->nr_devices; i++) {
			const struct blox_cfg_device *cd = &cfg->devices[i];
			struct prov_cap c = prov_cap_of_device(cd);
			bool there = cfg_file(p, &c, cd->name, NULL, 0, path, sizeof(path)) &&
				     access(path, F_OK) == 0;

			snprintf(what, sizeof(what), "device %s", cd->name);
			if (pass == 0 && there)
				pool_promise(&pool, &c, file_held(path));
			if (pass == 1 && !there &&
			    (rc = pool_admit(p, &pool, &c, what, warn, sizeof(warn), err, errlen)))
				return rc;
		}
		for (size_t si = 0; si < cfg->nr_subsys; si++)
			for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++) {
				const struct blox_cfg_ns *cn = &cfg->subsys[si].ns[n];
				struct prov_cap c = prov_cap_of_ns(cn);
				bool there = cfg_file(p, &c, NULL, cfg->subsys[si].nqn, cn->nsid,
						      path, sizeof(path)) &&
					     access(path, F_OK) == 0;

				snprintf(what, sizeof(what), "%snamespace %u of %s",
					 c.kind == PROV_CAP_RAM ? "RAM " : "", cn->nsid,
					 cfg->subsys[si].nqn);
				if (pass == 0 && there)
					pool_promise(&pool, &c, file_held(path));
				if (pass == 1 && !there &&
				    (rc = pool_admit(p, &pool, &c, what, warn, sizeof(warn), err,
						     errlen)))
					return rc;
			}
		if (pass == 0 && pool.promised[PROV_CAP_FILE] > pool.free[PROV_CAP_FILE])
			blox_log(p->log, BLOX_LOG_WARN,
				 "the flash files in %s can still grow by %s, more than the %s free",
				 p->data_dir, prov_cap_bytes_str(pool.promised[PROV_CAP_FILE], a, sizeof(a)),
				 prov_cap_bytes_str(pool.free[PROV_CAP_FILE], b, sizeof(b)));
	}
	return 0;
}
