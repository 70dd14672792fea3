/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl fault: faults on demand (docs/FAULTS.md says what each does).
 * power-cut: a namespace's drive loses power and comes back. inject: a
 * fault (an LBA range that reads as uncorrectable, writes to a range that
 * fail); list: the faults with how often each fired; clear: one or all.
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
	if (s->device[0]) {
		printf("fault %u: %s, die %u of device %s%s%s: seen %llu, fired %llu%s\n", f->id,
		       s->kind, s->die, s->device, rate, when, (unsigned long long)f->seen,
		       (unsigned long long)f->fired, f->spent ? " (spent)" : "");
		return;
	}
	if (!s->nsid) {
		printf("fault %u: %s, host %s on %s: fired %llu%s\n", f->id, s->kind, s->host_nqn,
		       s->nqn, (unsigned long long)f->fired,
		       f->fired ? " (its controllers dropped)" : " (none connected)");
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
	uint64_t min_qd = 0, die = 0;
	const struct {
		const char *opt;
		uint64_t *v;
		uint64_t max;
	} nums[] = {
		{ "--lba", &r.lba, UINT64_MAX },     { "--nlb", &r.nlb, UINT64_MAX },
		{ "--count", &r.count, UINT64_MAX }, { "--seed", &r.seed, UINT64_MAX },
		{ "--after", &r.after, UINT64_MAX }, { "--min-qd", &min_qd, UINT32_MAX },
		{ "--die", &die, UINT32_MAX },
	};
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
			  !strcmp(pos[0], "die-fail"))) {
		if (npos != 1 || !r.device[0] || !ctl_has_flag(argc, argv, "--die"))
			return ctl_usage_err("fault inject: %s --device NAME --die N", pos[0]);
		r.kind = pos[0];
		r.die = (uint32_t)die;
		r.min_qd = (uint32_t)min_qd;
		return ctl_call(c, "InjectFault", &r.base, print_one);
	}
	if (npos >= 1 && !strcmp(pos[0], "host-drop")) {
		if (npos != 2 || !r.host_nqn[0])
			return ctl_usage_err("fault inject: host-drop NQN --host HOSTNQN");
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

static void print_power_cut(const ProtobufCMessage *m)
{
	const Blox__Admin__PowerCutReply *r = (const void *)m;

	printf("%s namespace %u: power cut\n", r->nqn, r->nsid);
	if (r->holdup_ms)
		printf("  power-loss protection  %u ms hold-up, %.2f ms used\n", r->holdup_ms,
		       r->holdup_used_ms);
	else
		printf("  power-loss protection  off\n");
	printf("  acknowledged, lost     %lu of %lu bytes in the write buffer\n",
	       (unsigned long)r->bytes_lost, (unsigned long)r->bytes_buffered);
	printf("  controllers dropped    %u\n", r->controllers_dropped);
	printf("  flash ops dropped      %lu\n", (unsigned long)r->flash_ops_dropped);
	printf("  programs torn          %u\n", r->programs_torn);
	printf("  commands failed        %u\n", r->commands_failed);
	printf("  rebuilt from flash     %.1f ms, %lu units from the OOB scan\n", r->rebuild_ms,
	       (unsigned long)r->recovered_units);
	printf("  superblocks retired    %u\n", r->superblocks_retired);
	printf("  unsafe shutdowns       %lu\n", (unsigned long)r->unsafe_shutdowns);
}

static int fault_power_cut(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__PowerCutRequest r = BLOX__ADMIN__POWER_CUT_REQUEST__INIT;
	char *pos[2];
	int n = ctl_positional(argc, argv, NULL, pos, 2);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 2)
		return ctl_usage_err("fault power-cut: NQN and NSID are required");
	r.nqn = pos[0];
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return ctl_call(c, "PowerCut", &r.base, print_power_cut);
}

static const struct ctl_cmd fault_cmds[] = {
	{ "power-cut", "NQN NSID",
	  "the namespace's drive loses power and comes back: hosts reconnect", fault_power_cut },
	{ "inject",
	  "KIND NQN NSID [--lba N] [--nlb N] [--count N]\n"
	  "[--probability P] [--seed N] [--after N] [--min-qd N] [--persist]\n"
	  "| host-drop NQN --host HOSTNQN\n"
	  "| erase-fail|program-fail|die-fail --device NAME --die N [--count N] ...",
	  "read-unc, write-fail: that range fails; host-drop: its connections drop; "
	  "erase-fail, program-fail, die-fail: that die's erases, programs or reads",
	  fault_inject },
	{ "list", "", "faults, with how often each fired", fault_list },
	{ "clear", "ID | --all", "take a fault (or all) away", fault_clear },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_fault = { "fault", fault_cmds };
