/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault registry: faults injected on demand (bloxctl fault inject),
 * each with an id, what it hits, when it may fire and how often it did.
 *
 * Pure bookkeeping: the registry holds the faults and decides, at each
 * place a fault of a kind could strike (a site: a read of an LBA range,
 * an erase on a die, a command on a queue, ...), whether one fires. The
 * layers that own those places ask it (blox_fault_match()) and carry the
 * fault out themselves (an error status, a delay, a dropped connection).
 *
 * When a fault fires:
 *   - its start condition holds: at least @after sites of its kind that
 *     matched its target were seen before (after N commands), and the
 *     site's queue depth is at least @min_qd;
 *   - then it fires with chance @probability, drawn from its own generator
 *     seeded with @seed, so the same seed and the same sequence of sites
 *     give the same faults, whatever other faults do;
 *   - at most @count times (0: no limit); a fault that has fired @count
 *     times stays listed, spent, until cleared.
 *
 * Thread-safe: every call takes the registry's lock (sites are matched
 * on whichever reactor serves a queue or a device), and what it answers
 * is a copy. blox_fault_armed() takes no lock: the cheap test a site makes
 * before it builds anything.
 *
 * New kinds are added at the end of enum blox_fault_kind with a name in
 * fault.c's table; a kind says which target fields it uses.
 */
#ifndef BLOX_FAULT_H
#define BLOX_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum blox_fault_kind {
	/* media */
	BLOX_FAULT_READ_UNC, /* reads of an LBA range of a namespace fail: Unrecovered Read Error */
	BLOX_FAULT_WRITE_FAIL, /* writes to an LBA range of a namespace fail: Write Fault */
	BLOX_FAULT_DIE_FAIL, /* reads on a die of a device fail */
	BLOX_FAULT_ERASE_FAIL, /* erases on a die of a device fail (the block goes bad) */
	BLOX_FAULT_PROGRAM_FAIL, /* programs on a die of a device fail */
	/* latency */
	BLOX_FAULT_DELAY, /* "latency": reads and/or writes of a namespace complete later */
	BLOX_FAULT_GC_STORM, /* a namespace's GC runs now, as if space were short */
	/* paths */
	BLOX_FAULT_LISTENER_STOP, /* a listener accepts no connection */
	BLOX_FAULT_HOST_DROP, /* a host's connections are dropped */
	BLOX_FAULT_QUEUE_STALL, /* a host's I/O queues are not served until @until_ns */
	BLOX_FAULT_KEEPALIVE_DROP, /* "ka-ignore": keep-alives go unanswered */
	/* media, again (kinds are added at the end) */
	BLOX_FAULT_DIE_OFFLINE, /* every op on a die of a device fails: the die is gone */
	BLOX_FAULT_KINDS
};

/*
 * Which commands a latency fault hits (a mask). A site of Write Zeroes,
 * Dataset Management or Compare gives OTHER with its own bit, so that a
 * fault of the others (OTHER, as "all" was kept before the three had bits
 * of their own) and one of that command alone both match it.
 */
enum {
	BLOX_FAULT_OP_READ = 1u << 0,
	BLOX_FAULT_OP_WRITE = 1u << 1,
	BLOX_FAULT_OP_FLUSH = 1u << 2,
	BLOX_FAULT_OP_OTHER = 1u << 3, /* every I/O command but Read, Write and Flush */
	BLOX_FAULT_OP_WRITE_ZEROES = 1u << 4,
	BLOX_FAULT_OP_DSM = 1u << 5, /* Dataset Management */
	BLOX_FAULT_OP_COMPARE = 1u << 6,
	BLOX_FAULT_OP_ALL = (1u << 7) - 1, /* every I/O command */
	/*
	 * The admin queue's commands (not Fabrics commands, not Asynchronous
	 * Event Request); alone: a fault of it targets a subsystem's
	 * controllers (a host's, or every host's), not a namespace.
	 */
	BLOX_FAULT_OP_ADMIN = 1u << 7,
	/*
	 * The Fabrics commands (opcode 7Fh: Connect, Property Get and Set,
	 * Authentication Send and Receive, Disconnect) on the admin queue and
	 * the I/O queues; alone, like BLOX_FAULT_OP_ADMIN: a subsystem's
	 * controllers (a host's, or every host's). A Connect is its site
	 * before any controller exists: the host and subsystem its data names.
	 */
	BLOX_FAULT_OP_FABRICS = 1u << 8,
	/* The ops that target controllers, not a namespace (one of them alone). */
	BLOX_FAULT_OP_CTRL = BLOX_FAULT_OP_ADMIN | BLOX_FAULT_OP_FABRICS,
};

/* How a delay is drawn. */
enum blox_fault_dist {
	BLOX_FAULT_DIST_FIXED, /* delay_ns */
	BLOX_FAULT_DIST_UNIFORM, /* between delay_ns and delay_max_ns */
	BLOX_FAULT_DIST_EXPONENTIAL, /* mean delay_ns, at most delay_max_ns (0: no cap) */
};

/* The longest delay drawn, and the longest stall, stop or storm asked for. */
#define BLOX_FAULT_DELAY_MAX_NS (600ull * 1000000000ull)
#define BLOX_FAULT_DURATION_MAX_NS (24ull * 3600 * 1000000000ull)

#define BLOX_FAULT_NAME_MAX 256 /* an NQN as the target holds it, or a listener's address */

/* A fault as asked for. Fields a kind does not use stay 0. */
struct blox_fault_spec {
	enum blox_fault_kind kind;
	/* Target: a subsystem's NQN (namespace and path kinds), a host's NQN, a device. */
	char subsys[BLOX_FAULT_NAME_MAX];
	char host[BLOX_FAULT_NAME_MAX];
	char device[BLOX_FAULT_NAME_MAX];
	char listener[BLOX_FAULT_NAME_MAX]; /* "ADDR:PORT" */
	uint32_t nsid;
	uint64_t lba, nlb; /* the range: [lba, lba + nlb) */
	uint32_t die;
	uint32_t qid; /* QUEUE_STALL: the I/O queue (0: every one) */
	/*
	 * BLOX_FAULT_OP_* (DELAY): 0 means reads and writes; BLOX_FAULT_OP_ADMIN
	 * or BLOX_FAULT_OP_FABRICS alone: nsid 0, @host optional ("": every host).
	 */
	unsigned ops;
	enum blox_fault_dist dist;
	uint64_t delay_ns, delay_max_ns;
	uint64_t duration_ns; /* QUEUE_STALL, LISTENER_STOP, GC_STORM (0: until cleared) */
	/*
	 * The end of its time on the target's clock (set by whoever injects
	 * it, from @duration_ns); 0: none. From then on it matches no site
	 * that says what time it is, and is listed as ended.
	 */
	uint64_t until_ns;
	uint32_t superblocks; /* GC_STORM: victims to collect (0: as long as @duration_ns) */
	/* When and how often. */
	uint64_t count; /* fires at most this often; 0: no limit */
	double probability; /* each time its start condition holds; 0 < p <= 1 */
	uint64_t seed;
	uint64_t after; /* start: after this many matching sites */
	uint32_t min_qd; /* start: at a queue depth of at least this */
	bool persist; /* kept in the data directory across restarts */
};

/* A place a fault could strike. */
struct blox_fault_site {
	enum blox_fault_kind kind;
	const char *subsys, *host, *device, *listener; /* NULL: not known here */
	uint32_t nsid;
	uint64_t lba, nlb;
	uint32_t die;
	uint32_t qid;
	unsigned op; /* BLOX_FAULT_OP_* */
	uint32_t qd; /* commands in flight on the queue, this one included */
	uint64_t now; /* the target's clock, checked against a fault's until_ns; 0: not checked */
};

struct blox_fault {
	uint32_t id;
	struct blox_fault_spec spec;
	uint64_t seen; /* sites that matched its target while it was not spent */
	uint64_t fired;
	uint64_t rng; /* its generator's state */
};

struct blox_fault_reg;

/* 0 or -ENOMEM. */
int blox_fault_reg_create(struct blox_fault_reg **out);
/* NULL: nothing. */
void blox_fault_reg_destroy(struct blox_fault_reg *r);

/* The kind's name ("read-unc", ...) or NULL; a name's kind or -1. */
const char *blox_fault_kind_name(enum blox_fault_kind k);
int blox_fault_kind_parse(const char *name);
const char *blox_fault_dist_name(enum blox_fault_dist d);
int blox_fault_dist_parse(const char *name);

/*
 * Check @s: its kind's target given, a range that is not empty and does
 * not wrap, a probability in (0, 1], a distribution that makes sense.
 * 0, or -EINVAL with a reason in @err.
 */
int blox_fault_spec_check(const struct blox_fault_spec *s, char *err, size_t errlen);

/*
 * Add a fault as @s asks (checked as blox_fault_spec_check() does) with
 * the next id (or @id when not 0, as a persisted fault comes back; -EEXIST
 * if taken). 0 and *out_id, -EINVAL (reason in @err), -EEXIST, -ENOSPC
 * (BLOX_FAULT_MAX faults already) or -ENOMEM.
 */
#define BLOX_FAULT_MAX 256
int blox_fault_add(struct blox_fault_reg *r, const struct blox_fault_spec *s, uint32_t id,
		   uint32_t *out_id, char *err, size_t errlen);
/* 0 or -ENOENT. */
int blox_fault_remove(struct blox_fault_reg *r, uint32_t id);
/* Remove every fault; how many there were. */
size_t blox_fault_clear(struct blox_fault_reg *r);

/* How many faults are listed. */
size_t blox_fault_count(struct blox_fault_reg *r);
/* Up to @max faults, in id order, copied into @out; how many there are in all. */
size_t blox_fault_list(struct blox_fault_reg *r, struct blox_fault *out, size_t max);
/* Fault @id copied into @out: true, or false when there is none. */
bool blox_fault_get(struct blox_fault_reg *r, uint32_t id, struct blox_fault *out);
/* Whether @f fired its count, or its time is over at @now (0: not checked). */
bool blox_fault_spent(const struct blox_fault *f, uint64_t now);
/* Whether any fault of @k is listed and not spent (a cheap test before building a site). */
bool blox_fault_armed(const struct blox_fault_reg *r, enum blox_fault_kind k);

/*
 * Whether a fault fires at @site: the first (in id order) of its kind
 * whose target matches, whose start condition holds and whose draw says
 * so. Every fault of the kind whose target matches counts the site as
 * seen. true with the fault that fired copied into @out (NULL: not
 * wanted; its @fired counted), or false. @r NULL: false.
 */
bool blox_fault_match(struct blox_fault_reg *r, const struct blox_fault_site *site,
		      struct blox_fault *out);

/*
 * Whether a fault of @site's kind whose target matches @site is listed,
 * spent or not (nothing counted, nothing drawn). @r NULL: false.
 */
bool blox_fault_listed(struct blox_fault_reg *r, const struct blox_fault_site *site);
/*
 * A delay drawn for fault @id (BLOX_FAULT_DELAY) from its distribution and
 * its generator, at most BLOX_FAULT_DELAY_MAX_NS; 0 when there is no such
 * fault.
 */
uint64_t blox_fault_delay_ns(struct blox_fault_reg *r, uint32_t id);

#endif
