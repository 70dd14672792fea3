/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * InjectFault's request checked kind by kind against what runs (the
 * namespace and its LBA range, the device and its die, the listener, the
 * subsystem) and turned into a spec for the fault registry (blox_fault.h).
 * Bad input is refused with a reason and changes nothing.
 */
#include "adm_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KINDS                                                                                  \
	"read-unc, write-fail, host-drop, erase-fail, program-fail, die-fail, latency, gc-storm, " \
	"listener-stop, queue-stall, ka-ignore, die-offline"

#define BAD(...) return snprintf(err, errlen, __VA_ARGS__), ADM_S_INVALID_ARGUMENT

static int checked(struct blox_fault_spec *s, char *err, size_t errlen)
{
	return blox_fault_spec_check(s, err, errlen) ? ADM_S_INVALID_ARGUMENT : 0;
}

/* A duration in ms as ns, 24 hours at most. */
static int duration(const char *kind, uint64_t ms, uint64_t *ns, char *err, size_t errlen)
{
	if (ms > BLOX_FAULT_DURATION_MAX_NS / 1000000)
		BAD("%s: --ms %llu: at most 24 hours (86400000 ms)", kind, (unsigned long long)ms);
	*ns = ms * 1000000;
	return 0;
}

/* A listener "ADDR:PORT" ("[ADDR]:PORT" too) that runs, as "ADDR:PORT". */
static int listener(struct blox_admin *a, const char *name, struct blox_fault_spec *s, char *err,
		    size_t errlen)
{
	const char *colon = strrchr(name, ':');
	char addr[NVMF_TRADDR_SIZE];
	struct nvmf_port *p;
	size_t alen;

	if (!name[0])
		BAD("listener-stop: a listener is needed (ADDR:PORT)");
	if (!colon || !colon[1])
		BAD("listener %s: ADDR:PORT", name);
	alen = (size_t)(colon - name);
	if (name[0] == '[' && alen >= 2 && name[alen - 1] == ']') {
		name++;
		alen -= 2;
	}
	if (alen >= sizeof(addr))
		BAD("listener %s: address too long", name);
	memcpy(addr, name, alen);
	addr[alen] = 0;
	TAILQ_FOREACH(p, &a->tgt->ports, link)
		if (!strcmp(p->addr, addr) && !strcmp(p->svcid, colon + 1))
			break;
	if (!p)
		return snprintf(err, errlen, "listener %s:%s not found (bloxctl listener list)", addr,
				colon + 1),
		       ADM_S_NOT_FOUND;
	if (snprintf(s->listener, sizeof(s->listener), "%.200s:%.32s", p->addr, p->svcid) < 0)
		BAD("listener %s: cannot be named", name);
	return 0;
}

static int latency(const Blox__Admin__FaultSpec *in, struct blox_fault_spec *s, char *err,
		   size_t errlen)
{
	int d = in->dist[0] ? blox_fault_dist_parse(in->dist) : BLOX_FAULT_DIST_FIXED;
	const uint64_t max_us = BLOX_FAULT_DELAY_MAX_NS / 1000;

	if (!in->ops[0] || !strcmp(in->ops, "both") || !strcmp(in->ops, "rw"))
		s->ops = BLOX_FAULT_OP_READ | BLOX_FAULT_OP_WRITE;
	else if (!strcmp(in->ops, "read"))
		s->ops = BLOX_FAULT_OP_READ;
	else if (!strcmp(in->ops, "write"))
		s->ops = BLOX_FAULT_OP_WRITE;
	else if (!strcmp(in->ops, "flush"))
		s->ops = BLOX_FAULT_OP_FLUSH;
	else if (!strcmp(in->ops, "write-zeroes"))
		s->ops = BLOX_FAULT_OP_WRITE_ZEROES;
	else if (!strcmp(in->ops, "dsm"))
		s->ops = BLOX_FAULT_OP_DSM;
	else if (!strcmp(in->ops, "compare"))
		s->ops = BLOX_FAULT_OP_COMPARE;
	else if (!strcmp(in->ops, "all"))
		s->ops = BLOX_FAULT_OP_ALL;
	else if (!strcmp(in->ops, "admin"))
		s->ops = BLOX_FAULT_OP_ADMIN;
	else if (!strcmp(in->ops, "fabrics"))
		s->ops = BLOX_FAULT_OP_FABRICS;
	else
		BAD("latency: op '%s': read, write, rw, flush, write-zeroes, dsm, compare, all, "
		    "admin or fabrics", in->ops);
	if (d < 0)
		BAD("latency: distribution '%s': fixed, uniform or exponential", in->dist);
	s->dist = (enum blox_fault_dist)d;
	if (!in->delay_us)
		BAD("latency: a delay is needed (--delay-us, --min-us and --max-us, or --mean-us)");
	if (in->delay_us > max_us || in->delay_max_us > max_us)
		BAD("latency: a delay of at most 600 s (%llu us)", (unsigned long long)max_us);
	if (d == BLOX_FAULT_DIST_UNIFORM && in->delay_max_us < in->delay_us)
		BAD("latency: uniform from %llu us to %llu us: the most must be at least the least",
		    (unsigned long long)in->delay_us, (unsigned long long)in->delay_max_us);
	if (d == BLOX_FAULT_DIST_EXPONENTIAL && in->delay_max_us && in->delay_max_us < in->delay_us)
		BAD("latency: an exponential delay's cap (%llu us) below its mean (%llu us)",
		    (unsigned long long)in->delay_max_us, (unsigned long long)in->delay_us);
	if (d == BLOX_FAULT_DIST_FIXED && in->delay_max_us)
		BAD("latency: a fixed delay has no maximum");
	s->delay_ns = in->delay_us * 1000;
	s->delay_max_ns = in->delay_max_us * 1000;
	return 0;
}

/*
 * A die of a namespace's own device (a nand namespace not on a registered
 * device): the device's name for faults is "NQN/NSID" (prov_ns_plan()).
 */
static int own_device(struct blox_admin *a, const Blox__Admin__FaultSpec *in,
		      struct blox_fault_spec *s, char *err, size_t errlen)
{
	struct nvmf_subsys *sub = nvmf_subsys_find(a->tgt, in->nqn);
	struct nvmf_ns *ns = sub && sub->type == NVMF_SUBSYS_NVM && in->nsid ?
				     nvmf_ns_find(sub, in->nsid) : NULL;
	const struct prov_ns_rec *rec = ns ? prov_ns_rec(ns) : NULL;
	struct blox_cfg_ns *cn;
	uint32_t dies;

	if (!sub || sub->type != NVMF_SUBSYS_NVM)
		return snprintf(err, errlen, "subsystem %s not found", in->nqn), ADM_S_NOT_FOUND;
	if (!ns)
		return snprintf(err, errlen, "namespace %u not found in %s", in->nsid, in->nqn),
		       ADM_S_NOT_FOUND;
	if (!rec || rec->dev ||
	    (strcmp(rec->params.backend, "nand") && strcmp(rec->params.backend, "zns")))
		return snprintf(err, errlen,
				"%s: namespace %u of %s has no NAND device of its own (a vSSD: "
				"--device NAME; other backends have no dies)",
				in->kind, ns->nsid, sub->nqn),
		       ADM_S_FAILED_PRECONDITION;
	cn = calloc(1, sizeof(*cn));
	if (!cn)
		return snprintf(err, errlen, "out of memory"), ADM_S_INTERNAL;
	if (blox_ns_resolve(&rec->params, "namespace", cn, err, errlen)) {
		free(cn);
		return ADM_S_INTERNAL;
	}
	dies = nand_dies(&cn->nand.geo);
	free(cn);
	if (in->die >= dies)
		BAD("die %u: namespace %u of %s has dies 0 to %u", in->die, ns->nsid, sub->nqn,
		    dies - 1);
	snprintf(s->device, sizeof(s->device), "%.223s/%u", sub->nqn, ns->nsid);
	snprintf(s->subsys, sizeof(s->subsys), "%s", sub->nqn);
	s->nsid = ns->nsid;
	s->die = in->die;
	return checked(s, err, errlen);
}

int adm_fault_spec(struct blox_admin *a, const Blox__Admin__FaultSpec *in,
		   struct blox_fault_spec *s, char *err, size_t errlen)
{
	int k = blox_fault_kind_parse(in->kind);
	uint64_t now = blox_clock_now(a->tgt->clock);
	bool cond = in->count || in->after || in->min_qd || in->probability;
	struct nvmf_subsys *sub;
	struct nvmf_ns *ns;
	int st;

	memset(s, 0, sizeof(*s));
	if (k < 0)
		BAD("unknown fault kind '%s' (" KINDS ")", in->kind);
	s->kind = (enum blox_fault_kind)k;
	if (!(in->probability >= 0 && in->probability <= 1)) /* NaN too */
		BAD("probability %g: must be above 0 and at most 1", in->probability);
	s->probability = in->probability > 0 ? in->probability : 1;
	s->count = in->count;
	s->seed = in->seed;
	s->after = in->after;
	s->min_qd = in->min_qd;
	s->persist = in->persist;
	if ((st = duration(in->kind, in->duration_ms, &s->duration_ns, err, errlen)))
		return st;
	if (in->duration_ms && k != BLOX_FAULT_LISTENER_STOP && k != BLOX_FAULT_QUEUE_STALL &&
	    k != BLOX_FAULT_GC_STORM)
		BAD("%s: no --ms (listener-stop, queue-stall, gc-storm)", in->kind);
	if (in->superblocks && k != BLOX_FAULT_GC_STORM)
		BAD("%s: no --superblocks (gc-storm)", in->kind);
	s->until_ns = s->duration_ns ? now + s->duration_ns : 0;
	if (k == BLOX_FAULT_ERASE_FAIL || k == BLOX_FAULT_PROGRAM_FAIL || k == BLOX_FAULT_DIE_FAIL ||
	    k == BLOX_FAULT_DIE_OFFLINE) {
		/* A die of a registered device: the next erases or programs on it. */
		const struct prov_device *dev = prov_device_find(a->prov, in->device);
		uint32_t dies;

		if (!in->device[0] && in->nqn[0])
			return own_device(a, in, s, err, errlen);
		if (!in->device[0])
			BAD("%s: a device is needed (--device, or a namespace's NQN NSID)", in->kind);
		if (!dev)
			return snprintf(err, errlen, "device %s not found", in->device), ADM_S_NOT_FOUND;
		dies = nand_dies(&blox_nand_dev_nand_config(dev->dev)->geo);
		if (in->die >= dies)
			BAD("die %u: device %s has dies 0 to %u", in->die, in->device, dies - 1);
		snprintf(s->device, sizeof(s->device), "%s", in->device);
		s->die = in->die;
		return checked(s, err, errlen);
	}
	if (k == BLOX_FAULT_LISTENER_STOP) {
		if ((st = listener(a, in->listener, s, err, errlen)))
			return st;
		return checked(s, err, errlen);
	}
	if (!in->nqn[0])
		BAD("a subsystem NQN is required");
	sub = nvmf_subsys_find(a->tgt, in->nqn);
	if (!sub || sub->type != NVMF_SUBSYS_NVM)
		return snprintf(err, errlen, "subsystem %s not found", in->nqn), ADM_S_NOT_FOUND;
	snprintf(s->subsys, sizeof(s->subsys), "%s", sub->nqn);
	snprintf(s->host, sizeof(s->host), "%s", in->host_nqn);
	if (k == BLOX_FAULT_HOST_DROP) {
		if (!in->host_nqn[0])
			BAD("host-drop: a host NQN is needed (--host)");
		/* Without a condition: once, now (the admin method drops it); the fault ends at once. */
		if (!cond) {
			if (s->persist)
				BAD("host-drop without --after, --probability, --count or --min-qd "
				    "happens once, now: no --persist");
			s->count = 1;
			s->until_ns = now ? now : 1;
		} else if (!in->count) {
			s->count = 1; /* after N commands: once, unless --count says more */
		}
		return checked(s, err, errlen);
	}
	if (k == BLOX_FAULT_QUEUE_STALL || k == BLOX_FAULT_KEEPALIVE_DROP) {
		if (k == BLOX_FAULT_QUEUE_STALL && !in->duration_ms)
			BAD("queue-stall: how long is needed (--ms N)");
		if (k == BLOX_FAULT_QUEUE_STALL && in->qid > a->tgt->lim.max_io_queues)
			BAD("queue-stall: --qid %u: a controller has I/O queues 1 to %u", in->qid,
			    a->tgt->lim.max_io_queues);
		s->qid = k == BLOX_FAULT_QUEUE_STALL ? in->qid : 0;
		return checked(s, err, errlen);
	}
	if (k == BLOX_FAULT_DELAY && (!strcmp(in->ops, "admin") || !strcmp(in->ops, "fabrics"))) {
		/*
		 * The admin queue, or the Fabrics commands: the subsystem's
		 * controllers (the host's, or every host's).
		 */
		if (in->nsid)
			BAD("latency --op %s: %s a controller's: no NSID (NQN [--host HOSTNQN])",
			    in->ops, in->ops[0] == 'a' ? "the admin queue is" : "Fabrics commands are");
		if ((st = latency(in, s, err, errlen)))
			return st;
		return checked(s, err, errlen);
	}
	ns = in->nsid ? nvmf_ns_find(sub, in->nsid) : NULL;
	if (!ns)
		return snprintf(err, errlen, "namespace %u not found in %s", in->nsid, in->nqn),
		       ADM_S_NOT_FOUND;
	s->nsid = ns->nsid;
	s->host[0] = 0;
	if (in->qid)
		BAD("%s: no --qid (queue-stall)", in->kind);
	if (k == BLOX_FAULT_DELAY) {
		if ((st = latency(in, s, err, errlen)))
			return st;
		return checked(s, err, errlen);
	}
	if (k == BLOX_FAULT_GC_STORM) {
		if (cond || s->persist)
			BAD("gc-storm happens now: no --count, --probability, --after, --min-qd or "
			    "--persist");
		if (in->superblocks && in->duration_ms)
			BAD("gc-storm: --superblocks or --ms, not both");
		s->superblocks = in->superblocks ? in->superblocks : in->duration_ms ? 0 : 4;
		s->count = 1;
		return checked(s, err, errlen);
	}
	s->lba = in->lba;
	s->nlb = in->nlb ? in->nlb : 1;
	if (s->lba >= ns->nblocks || s->nlb > ns->nblocks - s->lba)
		BAD("range %llu+%llu: past the end of namespace %u (%llu blocks)",
		    (unsigned long long)s->lba, (unsigned long long)s->nlb, ns->nsid,
		    (unsigned long long)ns->nblocks);
	return checked(s, err, errlen);
}
