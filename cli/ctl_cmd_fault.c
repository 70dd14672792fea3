/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl fault: faults on demand (docs/FAULTS.md says what each does).
 * power-cut: a namespace's drive loses power and comes back. inject: a
 * fault (an LBA range that reads as uncorrectable, writes to a range that
 * fail, a die's erases, programs or reads that fail, added latency, a GC
 * storm, a listener that refuses connections, a host dropped, a host's
 * queues stalled, keep-alives unanswered); list: the faults with how often
 * each fired; clear: one or all.
 */
#include "ctl.h"
#include "blox_parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_fault(const Blox__Admin__Fault *f)
{
	const Blox__Admin__FaultSpec *s = f->spec;
	char when[160] = "", rate[48] = "";
	int n = 0;

	if (s->count)
		n += snprintf(when + n, sizeof(when) - n, ", %llu times at most",
			      (unsigned long long)s->count);
	if (s->after)
		n += snprintf(when + n, sizeof(when) - n, ", after %llu commands",
			      (unsigned long long)s->after);
	if (s->min_qd)
		snprintf(when + n, sizeof(when) - n, ", at QD >= %u", s->min_qd);
	if (s->probability < 1)
		snprintf(rate, sizeof(rate), ", probability %g (seed %llu)", s->probability,
			 (unsigned long long)s->seed);
	if (!strcmp(s->kind, "latency")) {
		char d[96], what[600];

		if (!strcmp(s->dist, "uniform"))
			snprintf(d, sizeof(d), "uniform %llu-%llu us", (unsigned long long)s->delay_us,
				 (unsigned long long)s->delay_max_us);
		else if (!strcmp(s->dist, "exponential"))
			snprintf(d, sizeof(d), "exponential, mean %llu us%s", (unsigned long long)s->delay_us,
				 s->delay_max_us ? " (capped)" : "");
		else
			snprintf(d, sizeof(d), "%llu us", (unsigned long long)s->delay_us);
		if (!strcmp(s->ops, "admin") || !strcmp(s->ops, "fabrics"))
			snprintf(what, sizeof(what), "%s commands of %s on %s",
				 s->ops[0] == 'a' ? "admin" : "Fabrics",
				 s->host_nqn[0] ? s->host_nqn : "every host", s->nqn);
		else
			snprintf(what, sizeof(what), "%s of namespace %u of %s",
				 !strcmp(s->ops, "both")	  ? "reads and writes"
				 : !strcmp(s->ops, "flush")	  ? "flushes"
				 : !strcmp(s->ops, "write-zeroes") ? "Write Zeroes"
				 : !strcmp(s->ops, "dsm")	  ? "Dataset Management"
				 : !strcmp(s->ops, "compare")	  ? "Compares"
				 : !strcmp(s->ops, "all")	  ? "every I/O command"
								  : s->ops,
				 s->nsid, s->nqn);
		printf("fault %u: latency, %s: +%s%s%s%s: seen %llu, fired "
		       "%llu, held now %llu%s\n",
		       f->id, what, d,
		       rate, when, s->persist ? ", kept" : "", (unsigned long long)f->seen,
		       (unsigned long long)f->fired, (unsigned long long)f->held,
		       f->spent ? " (spent)" : "");
		return;
	}
	if (!strcmp(s->kind, "gc-storm")) {
		if (s->superblocks)
			printf("fault %u: gc-storm, namespace %u of %s: %u victims asked\n", f->id,
			       s->nsid, s->nqn, s->superblocks);
		else
			printf("fault %u: gc-storm, namespace %u of %s: %llu ms%s\n", f->id, s->nsid,
			       s->nqn, (unsigned long long)s->duration_ms,
			       f->spent && !f->remaining_ms ? " (over)" : "");
		return;
	}
	if (!strcmp(s->kind, "listener-stop") || !strcmp(s->kind, "queue-stall") ||
	    !strcmp(s->kind, "ka-ignore")) {
		char what[600], left[64] = "";

		if (s->listener[0])
			snprintf(what, sizeof(what), "listener %s refuses connections", s->listener);
		else if (s->qid)
			snprintf(what, sizeof(what), "I/O queue %u of %s on %s", s->qid,
				 s->host_nqn[0] ? s->host_nqn : "every host", s->nqn);
		else
			snprintf(what, sizeof(what), "%s of %s on %s",
				 s->kind[0] == 'q' ? "I/O queues" : "keep-alives",
				 s->host_nqn[0] ? s->host_nqn : "every host", s->nqn);
		if (s->duration_ms)
			snprintf(left, sizeof(left), ", %llu ms (%llu left)",
				 (unsigned long long)s->duration_ms, (unsigned long long)f->remaining_ms);
		printf("fault %u: %s, %s%s%s%s%s: seen %llu, fired %llu, held now %llu%s\n", f->id,
		       s->kind, what, left, rate, when, s->persist ? ", kept" : "",
		       (unsigned long long)f->seen, (unsigned long long)f->fired,
		       (unsigned long long)f->held,
		       f->spent ? (s->duration_ms ? " (over)" : " (spent)") : "");
		return;
	}
	if (s->device[0]) {
		printf("fault %u: %s, die %u of device %s%s%s: seen %llu, fired %llu%s\n", f->id,
		       s->kind, s->die, s->device, rate, when, (unsigned long long)f->seen,
		       (unsigned long long)f->fired, f->spent ? " (spent)" : "");
		return;
	}
	if (!s->nsid && s->count <= 1 && !s->after && !s->min_qd && s->probability >= 1 && f->spent) {
		printf("fault %u: %s, host %s on %s: fired %llu%s\n", f->id, s->kind, s->host_nqn,
		       s->nqn, (unsigned long long)f->fired,
		       f->fired ? " (its controllers dropped)" : " (none connected)");
		return;
	}
	if (!s->nsid) {
		printf("fault %u: %s, host %s on %s%s%s%s: seen %llu, fired %llu%s\n", f->id, s->kind,
		       s->host_nqn, s->nqn, rate, when, s->persist ? ", kept" : "",
		       (unsigned long long)f->seen, (unsigned long long)f->fired,
		       f->spent ? " (spent)" : "");
		return;
	}
	printf("fault %u: %s, namespace %u of %s, LBAs %llu-%llu%s%s%s: seen %llu, fired %llu%s\n",
	       f->id, s->kind, s->nsid, s->nqn, (unsigned long long)s->lba,
	       (unsigned long long)(s->lba + s->nlb - 1), rate, when, s->persist ? ", kept" : "",
	       (unsigned long long)f->seen, (unsigned long long)f->fired,
	       f->spent ? " (spent)" : "");
}

static void print_one(const ProtobufCMessage *m)
{
	print_fault((const Blox__Admin__Fault *)m);
}

static void print_list(const ProtobufCMessage *m)
{
	const Blox__Admin__FaultList *l = (const void *)m;

	if (!l->n_faults)
		printf("no faults\n");
	for (size_t i = 0; i < l->n_faults; i++)
		print_fault(l->faults[i]);
}

/* A probability: above 0, at most 1. */
static int parse_probability(const char *v, double *out)
{
	char *end;
	double p;

	errno = 0;
	p = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(p))
		return ctl_usage_err("fault inject: --probability '%s' is not a number", v);
	if (!(p > 0 && p <= 1))
		return ctl_usage_err("fault inject: --probability %s: must be above 0 and at most 1",
				     v);
	*out = p;
	return 0;
}

static int fault_inject(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__FaultSpec r = BLOX__ADMIN__FAULT_SPEC__INIT;
	uint64_t min_qd = 0, die = 0, sbs = 0, delay = 0, min_us = 0, max_us = 0, mean = 0, qid = 0;
	const struct {
		const char *opt;
		uint64_t *v;
		uint64_t max;
	} nums[] = {
		{ "--lba", &r.lba, UINT64_MAX },
		{ "--nlb", &r.nlb, UINT64_MAX },
		{ "--count", &r.count, UINT64_MAX },
		{ "--seed", &r.seed, UINT64_MAX },
		{ "--after", &r.after, UINT64_MAX },
		{ "--min-qd", &min_qd, UINT32_MAX },
		{ "--die", &die, UINT32_MAX },
		{ "--ms", &r.duration_ms, UINT64_MAX },
		{ "--superblocks", &sbs, UINT32_MAX },
		{ "--delay-us", &delay, UINT64_MAX },
		{ "--min-us", &min_us, UINT64_MAX },
		{ "--max-us", &max_us, UINT64_MAX },
		{ "--mean-us", &mean, UINT64_MAX },
		{ "--qid", &qid, UINT16_MAX },
	};
	const char *dist = NULL;
	char *pos[3];
	int npos = 0;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		size_t k;

		if (o[0] != '-') {
			if (npos == 3)
				return ctl_usage_err("fault inject: unexpected '%s'", o);
			pos[npos++] = argv[i];
			continue;
		}
		if (!strcmp(o, "--persist")) {
			r.persist = true;
			continue;
		}
		if (!v)
			return ctl_usage_err("fault inject: %s needs a value", o);
		i++;
		if (!strcmp(o, "--host")) {
			r.host_nqn = (char *)v;
			continue;
		}
		if (!strcmp(o, "--device")) {
			r.device = (char *)v;
			continue;
		}
		if (!strcmp(o, "--op")) {
			r.ops = (char *)v;
			continue;
		}
		if (!strcmp(o, "--dist")) {
			dist = v;
			continue;
		}
		if (!strcmp(o, "--probability")) {
			if (parse_probability(v, &r.probability))
				return CTL_EX_USAGE;
			continue;
		}
		for (k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!strcmp(o, nums[k].opt))
				break;
		if (k == sizeof(nums) / sizeof(nums[0]))
			return ctl_usage_err("fault inject: unknown option '%s'", o);
		if (blox_parse_count(v, nums[k].max, nums[k].v))
			return ctl_usage_err("fault inject: %s '%s' is not a number", o, v);
	}
	if (npos >= 1 && (!strcmp(pos[0], "erase-fail") || !strcmp(pos[0], "program-fail") ||
			  !strcmp(pos[0], "die-fail") || !strcmp(pos[0], "die-offline"))) {
		/* A registered device's die, or one of a namespace's own device. */
		bool own = npos == 3 && !r.device[0];

		if ((npos != 1 && !own) || (npos == 1 && !r.device[0]) ||
		    !ctl_has_flag(argc, argv, "--die"))
			return ctl_usage_err("fault inject: %s --device NAME --die N, or %s NQN NSID --die N",
					     pos[0], pos[0]);
		if (own) {
			r.nqn = pos[1];
			if (ctl_parse_nsid(pos[2], &r.nsid))
				return CTL_EX_USAGE;
		}
		r.kind = pos[0];
		r.die = (uint32_t)die;
		r.min_qd = (uint32_t)min_qd;
		return ctl_call(c, "InjectFault", &r.base, print_one);
	}
	r.superblocks = (uint32_t)sbs;
	if (npos >= 1 && !strcmp(pos[0], "listener-stop")) {
		if (npos != 2)
			return ctl_usage_err("fault inject: listener-stop ADDR:PORT [--ms N]");
		r.kind = pos[0];
		r.listener = pos[1];
		r.min_qd = (uint32_t)min_qd;
		return ctl_call(c, "InjectFault", &r.base, print_one);
	}
	if (npos >= 1 && !strcmp(pos[0], "latency")) {
		const char *d = dist ? dist : "fixed";

		if (!strcmp(d, "fixed")) {
			if (!delay || min_us || mean || max_us)
				return ctl_usage_err("fault inject: latency --delay-us N (fixed)");
			r.delay_us = delay;
		} else if (!strcmp(d, "uniform")) {
			if (!ctl_has_flag(argc, argv, "--min-us") || !max_us || delay || mean)
				return ctl_usage_err("fault inject: latency --dist uniform --min-us A "
						     "--max-us B");
			if (max_us < min_us)
				return ctl_usage_err("fault inject: --max-us %llu below --min-us %llu",
						     (unsigned long long)max_us,
						     (unsigned long long)min_us);
			r.delay_us = min_us ? min_us : 1;
			r.delay_max_us = max_us;
		} else if (!strcmp(d, "exp") || !strcmp(d, "exponential")) {
			if (!mean || delay || min_us)
				return ctl_usage_err("fault inject: latency --dist exp --mean-us M "
						     "[--max-us CAP]");
			d = "exponential";
			r.delay_us = mean;
			r.delay_max_us = max_us;
		} else {
			return ctl_usage_err("fault inject: --dist '%s': fixed, uniform or exp", d);
		}
		r.dist = (char *)d;
	} else if (dist || delay || min_us || max_us || mean) {
		return ctl_usage_err("fault inject: --dist and --*-us are latency's");
	}
	if (ctl_has_flag(argc, argv, "--qid") && !qid)
		return ctl_usage_err("fault inject: --qid 0: I/O queues are 1 and up (0 is the "
				     "admin queue: latency --op admin)");
	if (qid && (npos < 1 || strcmp(pos[0], "queue-stall")))
		return ctl_usage_err("fault inject: --qid is queue-stall's");
	r.qid = (uint32_t)qid;
	if (npos >= 1 && !strcmp(pos[0], "latency") && r.ops[0] &&
	    (!strcmp(r.ops, "admin") || !strcmp(r.ops, "fabrics"))) {
		if (npos != 2)
			return ctl_usage_err("fault inject: latency NQN --op %s [--host HOSTNQN] "
					     "(%s: no NSID)", r.ops,
					     r.ops[0] == 'a' ? "the admin queue"
							     : "the controllers' Fabrics commands");
	} else if (npos >= 1 && (!strcmp(pos[0], "host-drop") || !strcmp(pos[0], "queue-stall") ||
			  !strcmp(pos[0], "ka-ignore"))) {
		if (npos != 2)
			return ctl_usage_err("fault inject: %s NQN %s", pos[0],
					     pos[0][0] == 'h' ? "--host HOSTNQN" : "[--host HOSTNQN]");
		if (!strcmp(pos[0], "host-drop") && !r.host_nqn[0])
			return ctl_usage_err("fault inject: host-drop NQN --host HOSTNQN");
		if (!strcmp(pos[0], "queue-stall") && !r.duration_ms)
			return ctl_usage_err("fault inject: queue-stall NQN [--host HOSTNQN] [--qid N] "
					     "--ms N");
	} else if (npos != 3) {
		return ctl_usage_err("fault inject: KIND NQN NSID are required");
	}
	r.kind = pos[0];
	r.nqn = pos[1];
	if (npos == 3 && ctl_parse_nsid(pos[2], &r.nsid))
		return CTL_EX_USAGE;
	if (ctl_has_flag(argc, argv, "--nlb") && !r.nlb)
		return ctl_usage_err("fault inject: --nlb 0: at least one block");
	r.min_qd = (uint32_t)min_qd;
	return ctl_call(c, "InjectFault", &r.base, print_one);
}

static int fault_list(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__Empty r = BLOX__ADMIN__EMPTY__INIT;

	if (ctl_positional(argc, argv, NULL, NULL, 0) < 0)
		return CTL_EX_USAGE;
	return ctl_call(c, "ListFaults", &r.base, print_list);
}

static int fault_clear(struct ctl *c, int argc, char **argv)
{
	static const char *const flags[] = { "--all", NULL };
	Blox__Admin__FaultClearRequest r = BLOX__ADMIN__FAULT_CLEAR_REQUEST__INIT;
	char *pos[1];
	int n = ctl_positional(argc, argv, flags, pos, 1);
	uint64_t id;

	if (n < 0)
		return CTL_EX_USAGE;
	r.all = ctl_has_flag(argc, argv, "--all");
	if (r.all == (n == 1))
		return ctl_usage_err("fault clear: give a fault ID or --all");
	if (n == 1) {
		if (blox_parse_count(pos[0], UINT32_MAX, &id) || !id)
			return ctl_usage_err("fault clear: '%s' is not a fault id", pos[0]);
		r.id = (uint32_t)id;
	}
	return ctl_call(c, "ClearFaults", &r.base, print_list);
}

/* The hold-up and what it lost (a device's: its one hold-up, the sums of its vSSDs' buffers). */
static void print_holdup(const Blox__Admin__PowerCutReply *r, const char *buffers)
{
	if (r->holdup_ms)
		printf("  power-loss protection  %u ms hold-up, %.2f ms used\n", r->holdup_ms,
		       r->holdup_used_ms);
	else
		printf("  power-loss protection  off\n");
	printf("  acknowledged, lost     %lu of %lu bytes in the write %s\n",
	       (unsigned long)r->bytes_lost, (unsigned long)r->bytes_buffered, buffers);
}

static void print_ns_power_cut(const Blox__Admin__PowerCutReply *r)
{
	printf("%s namespace %u: power cut\n", r->nqn, r->nsid);
	print_holdup(r, "buffer");
	printf("  controllers dropped    %u\n", r->controllers_dropped);
	printf("  flash ops dropped      %lu\n", (unsigned long)r->flash_ops_dropped);
	printf("  programs torn          %u\n", r->programs_torn);
	printf("  commands failed        %u\n", r->commands_failed);
	printf("  rebuilt from flash     %.1f ms, %lu units from the OOB scan\n", r->rebuild_ms,
	       (unsigned long)r->recovered_units);
	printf("  superblocks retired    %u\n", r->superblocks_retired);
	printf("  unsafe shutdowns       %lu\n", (unsigned long)r->unsafe_shutdowns);
}

static void print_power_cut(const ProtobufCMessage *m)
{
	const Blox__Admin__PowerCutReply *r = (const void *)m;

	if (!r->device || !r->device[0]) {
		print_ns_power_cut(r);
		return;
	}
	printf("device %s: power cut, %zu vSSDs\n", r->device, r->n_namespaces);
	print_holdup(r, "buffers");
	printf("  flash ops dropped      %lu\n", (unsigned long)r->flash_ops_dropped);
	printf("  programs torn          %u\n", r->programs_torn);
	for (size_t i = 0; i < r->n_namespaces; i++)
		print_ns_power_cut(r->namespaces[i]);
}

static int fault_power_cut(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__PowerCutRequest r = BLOX__ADMIN__POWER_CUT_REQUEST__INIT;
	char *pos[2];
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--device")) {
			if (i + 1 == argc || !argv[i + 1][0])
				return ctl_usage_err("fault power-cut: --device needs a name");
			r.device = argv[++i];
			continue;
		}
		if (argv[i][0] == '-')
			return ctl_usage_err("fault power-cut: unknown option '%s'", argv[i]);
		if (n == 2)
			return ctl_usage_err("fault power-cut: unexpected '%s'", argv[i]);
		pos[n++] = argv[i];
	}
	if (r.device[0]) {
		if (n)
			return ctl_usage_err("fault power-cut: --device NAME, or NQN NSID, not both");
		return ctl_call(c, "PowerCut", &r.base, print_power_cut);
	}
	if (n != 2)
		return ctl_usage_err("fault power-cut: NQN and NSID (or --device NAME) are required");
	r.nqn = pos[0];
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return ctl_call(c, "PowerCut", &r.base, print_power_cut);
}

static const struct ctl_cmd fault_cmds[] = {
	{ "power-cut", "NQN NSID | --device NAME",
	  "the namespace's drive (or every vSSD of a registered device) loses power and comes "
	  "back: hosts reconnect",
	  fault_power_cut },
	{ "inject",
	  "read-unc|write-fail NQN NSID [--lba N] [--nlb N]\n"
	  "| latency NQN NSID [--op read|write|rw|flush|write-zeroes|dsm|compare|all] "
	  "--delay-us N\n"
	  "  | latency NQN --op admin|fabrics [--host HOSTNQN] --delay-us N\n"
	  "  | --dist uniform --min-us A --max-us B | --dist exp --mean-us M [--max-us CAP]\n"
	  "| gc-storm NQN NSID [--superblocks N | --ms N]\n"
	  "| host-drop NQN --host HOSTNQN\n"
	  "| queue-stall NQN [--host HOSTNQN] [--qid N] --ms N | ka-ignore NQN [--host HOSTNQN]\n"
	  "| listener-stop ADDR:PORT [--ms N]\n"
	  "| erase-fail|program-fail|die-fail|die-offline --device NAME --die N\n"
	  "  (or NQN NSID --die N: a namespace's own device)\n"
	  "each with [--count N] [--probability P] [--seed N] [--after N] [--min-qd N] "
	  "[--persist]",
	  "read-unc, write-fail: that range fails; latency: commands complete later; gc-storm: "
	  "GC now; host-drop: its connections drop (now, or after N commands / with a "
	  "probability); queue-stall: its I/O queues wait; ka-ignore: keep-alives unanswered; "
	  "listener-stop: new connections refused; erase-fail, program-fail, die-fail: that "
	  "die's erases, programs or reads; die-offline: every op on the die, which the FTL "
	  "then does without (a zoned namespace's zones go offline)",
	  fault_inject },
	{ "list", "", "faults, with how often each fired", fault_list },
	{ "clear", "ID | --all", "take a fault (or all) away", fault_clear },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_fault = { "fault", fault_cmds };
