/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl's output: every answer as JSON with --json (from the protobuf
 * descriptors, cli_msg_to_json), else for people: aligned tables for
 * lists, "key  value" lines for one object.
 */
#include "ctl.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void ctl_emit(const struct ctl *c, const ProtobufCMessage *m, ctl_print_fn human,
	      bool line)
{
	if (c->json) {
		json_object *o = cli_msg_to_json(m);

		puts(json_object_to_json_string_ext(
			o, (line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY) |
			       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else if (human) {
		human(m);
	}
	fflush(stdout);
}

void ctl_print_ok(const ProtobufCMessage *m)
{
	(void)m;
}

void ctl_print_version(const ProtobufCMessage *m)
{
	const Blox__Admin__VersionReply *v = (const void *)m;

	printf("bloxd   %s (admin API %u)\nbloxctl %s\n", v->version, v->api_version,
	       BLOX_VERSION);
}

void ctl_print_status(const ProtobufCMessage *m)
{
	const Blox__Admin__DaemonStatus *s = (const void *)m;

	printf("version            bloxd %s\n", s->version);
	printf("pid                %u\n", s->pid);
	printf("uptime             %.1f s\n", (double)s->uptime_ns / 1e9);
	printf("data dir           %s\n", s->data_dir);
	if (s->data_dir_total_bytes)
		printf("data dir space     %.1f MiB free of %.1f MiB%s\n",
		       (double)s->data_dir_free_bytes / (1 << 20),
		       (double)s->data_dir_total_bytes / (1 << 20),
		       s->data_dir_full ? " (FULL: writes that need new flash fail)" : "");
	printf("state file         %s\n", s->state_file[0] ? s->state_file : "(none yet)");
	printf("subsystems         %u\n", s->subsystems);
	printf("namespaces         %u\n", s->namespaces);
	printf("controllers        %u\n", s->controllers);
	printf("listeners          %u\n", s->listeners);
	printf("NVMe/TCP queues    %u\n", s->io_queues);
	if (s->reactors) {
		printf("reactors           %u, queues on each:", s->reactors);
		for (size_t i = 0; i < s->n_reactor_queues; i++)
			printf(" r%zu:%u", i, s->reactor_queues[i]);
		printf("\n");
	}
	printf("admin connections  %u\n", s->admin_connections);
	if (s->mdns_state[0])
		printf("mDNS               %s, %u services\n", s->mdns_state, s->mdns_services);
	if (s->limits) {
		const Blox__Admin__TransportLimitStats *l = s->limits;

		printf("accept errors      %lu (listener paused %lu times)\n",
		       (unsigned long)l->accept_errors, (unsigned long)l->accept_pauses);
		printf("refused            %lu over the total cap, %lu over the per-host cap\n",
		       (unsigned long)l->refused_total, (unsigned long)l->refused_per_host);
		printf("timeouts           ICReq %lu, Connect %lu, PDU %lu\n",
		       (unsigned long)l->icreq_timeouts, (unsigned long)l->connect_timeouts,
		       (unsigned long)l->pdu_timeouts);
		printf("limit log lines    %lu suppressed\n", (unsigned long)l->log_suppressed);
		printf("admin accept errs  %lu (the admin listener paused each time)\n",
		       (unsigned long)l->admin_accept_errors);
		printf("I/O queues         %lu grants cut, %lu connects refused (max-io-queues), "
		       "%lu over max-queue-size\n",
		       (unsigned long)l->io_queues_clamped, (unsigned long)l->refused_io_queues,
		       (unsigned long)l->refused_queue_size);
		printf("host controllers   %lu refused over max-ctrls-per-host\n",
		       (unsigned long)l->refused_ctrls_per_host);
		printf("keep-alive         %lu KATOs raised to min-kato-ms, %lu KATO-0 closed\n",
		       (unsigned long)l->kato_raised, (unsigned long)l->kato0_expired);
		printf("buffers            %lu of %lu KiB in use (peak %lu, %lu kept)\n",
		       (unsigned long)(l->buffer_used_bytes >> 10),
		       (unsigned long)(l->buffer_pool_bytes >> 10),
		       (unsigned long)(l->buffer_peak_bytes >> 10),
		       (unsigned long)(l->buffer_cached_bytes >> 10));
		printf("waits              pool %lu, connection cap %lu, R2T %lu\n",
		       (unsigned long)l->buffer_pool_waits, (unsigned long)l->buffer_conn_waits,
		       (unsigned long)l->r2t_waits);
		printf("admin refused      %lu over max-admin-inflight\n",
		       (unsigned long)l->admin_inflight_refused);
	}
}

/*
 * A namespace's device as ns list and ns show name it: its shared
 * device, "(own)" for a nand namespace on a device of its own, "-" for
 * a backend without flash.
 */
static const char *ns_device(const Blox__Admin__Namespace *n)
{
	if (n->device[0])
		return n->device;
	return strcmp(n->backend, "nand") ? "-" : "(own)";
}

/* The namespace table of ns list and subsys show. */
static void ns_table(Blox__Admin__Namespace **ns, size_t n)
{
	struct cli_table t;

	cli_table_init(&t, "SUBSYSTEM", "NSID", "BACKEND", "SIZE", "BLOCK", "INFLIGHT",
		       "DEVICE", "UUID", NULL);
	for (size_t i = 0; i < n; i++) {
		char size[32];

		cli_size_str(ns[i]->size, size, sizeof(size));
		cli_table_cell(&t, "%s", ns[i]->nqn);
		cli_table_cell(&t, "%u", ns[i]->nsid);
		cli_table_cell(&t, "%s", ns[i]->backend);
		cli_table_cell(&t, "%s", size);
		cli_table_cell(&t, "%u", ns[i]->block_size);
		cli_table_cell(&t, "%lu", (unsigned long)ns[i]->inflight);
		cli_table_cell(&t, "%s", ns_device(ns[i]));
		cli_table_cell(&t, "%s", ns[i]->uuid);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

void ctl_print_ns_list(const ProtobufCMessage *m)
{
	const Blox__Admin__NamespaceList *l = (const void *)m;

	ns_table(l->namespaces, l->n_namespaces);
}

/* "reservation" and one "registrant" line each (docs/cluster.md). */
static void print_resv(const Blox__Admin__Reservations *r)
{
	printf("reservation %s%s, generation %u, PTPL %s\n", r->type ? "" : "none",
	       r->type ? r->type_name : "", r->generation, r->ptpl ? "on" : "off");
	for (size_t i = 0; i < r->n_registrants; i++) {
		const Blox__Admin__Registrant *g = r->registrants[i];

		printf("registrant  %s key 0x%016lx%s", g->hostid, (unsigned long)g->key,
		       g->holder ? " holder" : "");
		for (size_t k = 0; k < g->n_hostnqns; k++)
			printf("%s%s", k ? ", " : "  ", g->hostnqns[k]);
		printf("\n");
	}
}

void ctl_print_ns(const ProtobufCMessage *m)
{
	const Blox__Admin__Namespace *n = (const void *)m;
	char size[32];

	if (n->warning[0])
		fprintf(stderr, "bloxctl: warning: %s\n", n->warning);
	cli_size_str(n->size, size, sizeof(size));
	printf("subsystem   %s\nnsid        %u\nbackend     %s\nsize        %s (%lu bytes)\n"
	       "block size  %u\nuuid        %s\nANA group   %u\ninflight    %lu\ndevice      %s\n"
	       "parameters  %s\n",
	       n->nqn, n->nsid, n->backend, size, (unsigned long)n->size, n->block_size,
	       n->uuid, n->ana_group, (unsigned long)n->inflight, ns_device(n), n->params_json);
	if (n->store_bytes) {
		char file[32], disk[32];

		cli_size_str(n->store_bytes, file, sizeof(file));
		cli_size_str(n->store_disk_bytes, disk, sizeof(disk));
		printf("flash file  %s, %s of it on disk\n", file, disk);
	}
	if (n->reservations)
		print_resv(n->reservations);
	if (n->zones && n->zones->zones) {
		const Blox__Admin__ZoneSummary *z = n->zones;
		char zs[32], zc[32];

		cli_size_str(z->zone_size, zs, sizeof(zs));
		cli_size_str(z->zone_capacity, zc, sizeof(zc));
		printf("zones       %u of %s (%s writable each), max open %u, max active %u "
		       "(0: no limit)\n            %u empty, %u implicitly open, %u explicitly "
		       "open, %u closed, %u full, %u read only, %u offline\n",
		       z->zones, zs, zc, z->max_open, z->max_active, z->empty, z->implicitly_open,
		       z->explicitly_open, z->closed, z->full, z->read_only, z->offline);
	}
	if (n->alloc && n->alloc->isolation[0]) {
		char cap[32];

		cli_size_str(n->alloc->capacity, cap, sizeof(cap));
		printf("isolation   %s\ndies       ", n->alloc->isolation);
		for (size_t i = 0; i < n->alloc->n_dies; i++)
			printf(" %u", n->alloc->dies[i]);
		printf("\nblocks      %u..%u of every plane\nflash holds %s\n",
		       n->alloc->first_block, n->alloc->first_block + n->alloc->nr_blocks - 1, cap);
	}
}

/* Device output fits this many columns (but an NQN longer than a line). */
#define DEV_WIDTH 80
#define DEV_INDENT 14 /* text after a label ("wear", "next swap") starts here */
/*
 * Below this average wear (erases per block) the channels' max/avg says
 * nothing yet: on a new device the first few erases of one channel make
 * it 4 or 5.
 */
#define DEV_WEAR_EARLY 1.0
/* The keys of vSSDs in the grid, in the order their first die comes. */
static const char dev_keys[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
#define DEV_NKEYS (sizeof(dev_keys) - 1)

/* The grid's key of die @di: a vSSD's letter (learnt into @owners), '.' free, '~' pool. */
static char dev_die_key(const Blox__Admin__DieInfo *di, const char **owners, size_t *nowners)
{
	size_t k;

	if (!strcmp(di->owner, "free"))
		return '.';
	if (!strcmp(di->owner, "pool"))
		return '~';
	for (k = 0; k < *nowners && strcmp(owners[k], di->owner); k++)
		;
	if (k == *nowners && k < DEV_NKEYS)
		owners[(*nowners)++] = di->owner;
	return k < DEV_NKEYS ? dev_keys[k] : '+';
}

/*
 * The grid: a row per channel with its wear and erases since the last
 * check, then a key per die (a space every 8), wrapped to fit; then what
 * the keys stand for.
 */
static void dev_grid(const Blox__Admin__Device *d)
{
	const char *owners[DEV_NKEYS];
	const char *iso[DEV_NKEYS];
	size_t nowners = 0;
	bool more = false;

	printf("CHANNEL   WEAR  ERASES+  DIES (A..: vSSDs below, .: free, ~: software pool)\n");
	for (size_t c = 0; c < d->n_channel_wear; c++) {
		const Blox__Admin__ChannelWear *cw = d->channel_wear[c];
		size_t col = 24, n = 0;

		printf("%7u %6.2f %8lu  ", cw->channel, cw->wear,
		       (unsigned long)cw->erases_since_check);
		for (size_t i = 0; i < d->n_dies; i++) {
			const Blox__Admin__DieInfo *di = d->dies[i];
			size_t before = nowners;
			char key;

			if (di->channel != cw->channel)
				continue;
			key = dev_die_key(di, owners, &nowners);
			if (nowners > before)
				iso[before] = di->isolation;
			more |= key == '+';
			if (n && n % 8 == 0) {
				if (col + 10 > DEV_WIDTH) {
					printf("\n%24s", "");
					col = 24;
				} else {
					putchar(' ');
					col++;
				}
			}
			putchar(key);
			col++;
			n++;
		}
		printf("\n");
	}
	for (size_t k = 0; k < nowners; k++)
		printf("  %c  %s%s%s%s\n", dev_keys[k], owners[k], iso[k][0] ? " (" : "", iso[k],
		       iso[k][0] ? ")" : "");
	if (more)
		printf("  +  more vSSDs (--json names the owner of every die)\n");
}

void ctl_print_device(const ProtobufCMessage *m)
{
	const Blox__Admin__Device *d = (const void *)m;
	char raw[32];

	if (d->warning[0])
		fprintf(stderr, "bloxctl: warning: %s\n", d->warning);
	cli_size_str(d->raw_bytes, raw, sizeof(raw));
	printf("device        %s (%s store)\ngeometry      %u channels x %u dies, %s raw\n",
	       d->name, d->store, d->channels, d->dies_per_channel, raw);
	printf("reactor       %u (its engine, real-time driver, FTLs, GC, migrations)\n",
	       d->reactor);
	if (d->store_bytes) {
		char file[32], disk[32];

		cli_size_str(d->store_bytes, file, sizeof(file));
		cli_size_str(d->store_disk_bytes, disk, sizeof(disk));
		printf("flash file    %s, %s of it on disk\n", file, disk);
	}
	printf("free          %u dies, %u whole channels%s\n", d->free_dies, d->free_channels,
	       d->spare_channel && d->free_channels ? " (1 kept spare for wear swaps)" : "");
	if (d->pool_dies)
		printf("software pool %u dies, %u blocks per plane free\n", d->pool_dies,
		       d->pool_free_blocks);
	printf("vSSDs         %u\n", d->vssds);
	printf("wear          avg %.2f, max %.2f erases per block\n", d->avg_wear, d->max_wear);
	if (d->avg_wear < DEV_WEAR_EARLY)
		cli_wrap(stdout, DEV_INDENT, DEV_WIDTH, "imbalance",
			 "too early to tell: under %.0f erase per block on average (bound %.2f)",
			 DEV_WEAR_EARLY, d->bound);
	else
		cli_wrap(stdout, DEV_INDENT, DEV_WIDTH, "imbalance",
			 "%.3f, the most worn channel's wear over the average (bound %.2f)",
			 d->imbalance, d->bound);
	cli_wrap(stdout, DEV_INDENT, DEV_WIDTH, "swap checks",
		 "every %.1f erases per block (K = %u rounds of rated %u P/E); next at %.1f; "
		 "%lu checks, %lu swaps", d->check_step, d->rounds, d->rated_pe, d->next_check,
		 (unsigned long)d->checks, (unsigned long)d->swaps);
	cli_wrap(stdout, DEV_INDENT, DEV_WIDTH, "next swap", "%s", d->next_swap);
	printf("\n");
	dev_grid(d);
}

void ctl_print_device_list(const ProtobufCMessage *m)
{
	const Blox__Admin__DeviceList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "NAME", "GRID", "FREE DIES", "FREE CH", "VSSDS", "IMBALANCE", NULL);
	for (size_t i = 0; i < l->n_devices; i++) {
		const Blox__Admin__Device *d = l->devices[i];

		cli_table_cell(&t, "%s", d->name);
		cli_table_cell(&t, "%ux%u", d->channels, d->dies_per_channel);
		cli_table_cell(&t, "%u", d->free_dies);
		cli_table_cell(&t, "%u", d->free_channels);
		cli_table_cell(&t, "%u", d->vssds);
		if (d->avg_wear < DEV_WEAR_EARLY)
			cli_table_cell(&t, "too early");
		else
			cli_table_cell(&t, "%.3f", d->imbalance);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

void ctl_print_subsys(const ProtobufCMessage *m)
{
	const Blox__Admin__Subsystem *s = (const void *)m;

	printf("nqn             %s\nserial          %s\nmodel           %s\n"
	       "allow any host  %s\ncontrollers     %u\nhosts          ",
	       s->nqn, s->serial, s->model, s->allow_any_host ? "yes" : "no",
	       s->controllers);
	for (size_t i = 0; i < s->n_hosts; i++)
		printf(" %s", s->hosts[i]);
	printf("%s\n", s->n_hosts ? "" : " (none)");
	ns_table(s->namespaces, s->n_namespaces);
}

void ctl_print_host(const ProtobufCMessage *m)
{
	const Blox__Admin__HostInfo *h = (const void *)m;

	printf("subsystem        %s\nhost             %s\n"
	       "dhchap key       %s\ndhchap ctrl key  %s\n",
	       h->nqn, h->host_nqn, h->dhchap_key_set ? "set" : "none",
	       h->dhchap_ctrl_key_set ? "set (bidirectional)" : "none");
	printf("tls psk          %s\n", h->tls_psk_set ? "set" : "none");
	if (h->tls_psk_identity && h->tls_psk_identity[0])
		printf("tls identity     %s\n", h->tls_psk_identity);
}

void ctl_print_subsys_list(const ProtobufCMessage *m)
{
	const Blox__Admin__SubsystemList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "NQN", "NAMESPACES", "CONTROLLERS", "ANY HOST", "HOSTS",
		       "SERIAL", NULL);
	for (size_t i = 0; i < l->n_subsystems; i++) {
		const Blox__Admin__Subsystem *s = l->subsystems[i];

		cli_table_cell(&t, "%s", s->nqn);
		cli_table_cell(&t, "%zu", s->n_namespaces);
		cli_table_cell(&t, "%u", s->controllers);
		cli_table_cell(&t, "%s", s->allow_any_host ? "yes" : "no");
		cli_table_cell(&t, "%zu", s->n_hosts);
		cli_table_cell(&t, "%s", s->serial);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

/* "1=optimized 2=inaccessible" ("-" without any), cut to @len. */
static const char *ana_text(const Blox__Admin__Listener *x, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < x->n_ana && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%u=%s%s%s", i ? " " : "", x->ana[i]->group,
				 x->ana[i]->state, x->ana[i]->target[0] ? "->" : "",
				 x->ana[i]->target);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf[0] ? buf : "-";
}

void ctl_print_listeners(const ProtobufCMessage *m)
{
	const Blox__Admin__ListenerList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "ID", "ADDRESS", "PORT", "KIND", "TLS", "QUEUES", "ADVERTISED", "ANA",
		       NULL);
	for (size_t i = 0; i < l->n_listeners; i++) {
		const Blox__Admin__Listener *x = l->listeners[i];
		char ana[512];

		cli_table_cell(&t, "%u", x->id);
		cli_table_cell(&t, "%s", x->address);
		cli_table_cell(&t, "%u", x->port);
		cli_table_cell(&t, "%s", x->discovery_only ? "discovery" : "nvm+discovery");
		cli_table_cell(&t, "%s", x->tls[0] ? x->tls : "none");
		cli_table_cell(&t, "%u", x->queues);
		cli_table_cell(&t, "%s", x->advertise[0] ? x->advertise : "-");
		cli_table_cell(&t, "%s", ana_text(x, ana, sizeof(ana)));
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

void ctl_print_listener(const ProtobufCMessage *m)
{
	const Blox__Admin__Listener *x = (const void *)m;

	char ana[512];

	printf("listener %u: %s:%u%s%s%s\n", x->id, x->address, x->port,
	       x->discovery_only ? " (discovery only)" : "",
	       x->tls[0] && strcmp(x->tls, "none") ? ", TLS " : "",
	       x->tls[0] && strcmp(x->tls, "none") ? x->tls : "");
	if (x->advertise[0])
		printf("  advertised as %s\n", x->advertise);
	if (x->n_ana)
		printf("  ANA groups: %s\n", ana_text(x, ana, sizeof(ana)));
}

void ctl_print_referral(const ProtobufCMessage *m)
{
	const Blox__Admin__Referral *x = (const void *)m;

	printf("referral %s:%u (port id %u)\n", x->address, x->port, x->portid);
}

void ctl_print_referrals(const ProtobufCMessage *m)
{
	const Blox__Admin__ReferralList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "ADDRESS", "PORT", "PORTID", "NODE", "SINCE", "LAST ERROR", NULL);
	for (size_t i = 0; i < l->n_referrals; i++) {
		const Blox__Admin__Referral *r = l->referrals[i];

		cli_table_cell(&t, "%s", r->address);
		cli_table_cell(&t, "%u", r->port);
		cli_table_cell(&t, "%u", r->portid);
		cli_table_cell(&t, "%s", r->state);
		cli_table_cell(&t, "%.1fs", (double)r->state_age_ms / 1000);
		cli_table_cell(&t, "%s", r->last_error[0] ? r->last_error : "-");
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
	printf("discovery log generation %lu\n", (unsigned long)l->genctr);
}

/*
 * ctrl list for people: a block per controller in 80 columns (a host NQN
 * of the UUID form fits a line), its queues wrapped.
 */
#define CTRL_WIDTH 80
#define CTRL_INDENT 10

void ctl_print_ctrls(const ProtobufCMessage *m)
{
	const Blox__Admin__ControllerList *l = (const void *)m;

	for (size_t i = 0; i < l->n_controllers; i++) {
		const Blox__Admin__Controller *c = l->controllers[i];
		char q[4096] = "";
		size_t off = 0;

		for (size_t k = 0; k < c->n_queues && off < sizeof(q) - 64; k++)
			off += (size_t)snprintf(q + off, sizeof(q) - off, "%s%u:%u:%lu:%lu@r%u",
						k ? " " : "", c->queues[k]->qid,
						c->queues[k]->size,
						(unsigned long)c->queues[k]->commands,
						(unsigned long)c->queues[k]->errors,
						c->queues[k]->reactor);
		printf("%s", i ? "\n" : "");
		cli_wrap(stdout, 0, CTRL_WIDTH, "", "cntlid %u of %s", c->cntlid, c->nqn);
		cli_wrap(stdout, CTRL_INDENT, CTRL_WIDTH, "  host", "%s", c->host_nqn);
		cli_wrap(stdout, CTRL_INDENT, CTRL_WIDTH, "  via",
			 "%s for %.0f s; KATO %u ms; %u I/O queues", c->listener,
			 (double)c->age_ns / 1e9, c->kato_ms, c->io_queues);
		cli_wrap(stdout, CTRL_INDENT, CTRL_WIDTH, "  queues",
			 "%s (qid:size:commands:errors@reactor)", q);
	}
}

void ctl_print_saved(const ProtobufCMessage *m)
{
	const Blox__Admin__SaveConfigReply *s = (const void *)m;

	for (size_t i = 0; i < s->n_written; i++)
		printf("written %s\n", s->written[i]);
}

/* One migration: a line (a bar on a terminal) and its figures. */
static void migration_line(const Blox__Admin__Migration *g, bool bar)
{
	char done[32], total[32], back[32], back_total[32], dies[160] = "";
	bool live = !strcmp(g->state, "running") || !strcmp(g->state, "cancelling");
	double pct = g->moving_back ? g->back_percent : g->percent;
	size_t off = 0;

	cli_size_str(g->bytes_copied, done, sizeof(done));
	cli_size_str(g->bytes_total, total, sizeof(total));
	cli_size_str(g->bytes_back, back, sizeof(back));
	cli_size_str(g->back_total, back_total, sizeof(back_total));
	for (size_t i = 0; i < g->n_from_dies && off < sizeof(dies) - 16; i++)
		off += (size_t)snprintf(dies + off, sizeof(dies) - off, "%s%u>%u", i ? " " : "",
					g->from_dies[i], g->to_dies[i]);
	printf("migration %u  %s namespace %u on %s  %s\n", g->id, g->nqn, g->nsid, g->device,
	       g->state);
	/* A cancel's bar is the way back; the forward figures stay as reached. */
	if (bar) {
		int w = 40, fill = (int)(pct / 100.0 * w + 0.5);

		fill = fill < 0 ? 0 : fill > w ? w : fill;
		printf("  %s[%.*s%*s] %5.1f%%", g->moving_back ? "back " : "", fill,
		       "########################################", w - fill, "", pct);
	} else {
		printf("  %s%5.1f%%", g->moving_back ? "back " : "", pct);
	}
	if (g->moving_back)
		printf("  moved back %s of %s (it had copied %s of %s, %.1f%%)", back, back_total,
		       done, total, g->percent);
	else
		printf("  %s of %s", done, total);
	if (live && g->rate_mbps > 0)
		printf("  %.1f MB/s (last %.0f s)", g->rate_mbps, (double)g->rate_window_ns / 1e9);
	else if (live)
		printf("  rate: measuring");
	if (live && g->eta_ns)
		printf("  ETA %.0f s", (double)g->eta_ns / 1e9);
	if (!live && g->elapsed_ns)
		printf("  %.1f MB/s over %.1f s", g->avg_rate_mbps, (double)g->elapsed_ns / 1e9);
	printf("\n  moves %u/%u  share %u/1000  dies %s\n  why: %s%s%s\n", g->moves_done,
	       g->moves, g->share, dies, g->why, g->error[0] ? "; error: " : "", g->error);
}

void ctl_print_migration(const ProtobufCMessage *m)
{
	migration_line((const void *)m, isatty(1));
}

void ctl_print_migrations(const ProtobufCMessage *m)
{
	const Blox__Admin__MigrationList *l = (const void *)m;

	if (!l->n_migrations)
		printf("no migrations\n");
	for (size_t i = 0; i < l->n_migrations; i++)
		migration_line(l->migrations[i], isatty(1));
}

static void qos_limit(const char *name, uint32_t v, const char *unit)
{
	if (v)
		printf("  %-11s %u%s\n", name, v, unit);
	else
		printf("  %-11s -\n", name);
}

void ctl_print_qos(const ProtobufCMessage *m)
{
	const Blox__Admin__QosInfo *i = (const void *)m;
	const Blox__Admin__QosParams *q = i->qos;

	printf("%s namespace %u\n", i->nqn, i->nsid);
	if (q) {
		qos_limit("read iops", q->read_iops, "");
		qos_limit("write iops", q->write_iops, "");
		qos_limit("iops", q->iops, "");
		qos_limit("read MB/s", q->read_mbps, "");
		qos_limit("write MB/s", q->write_mbps, "");
		qos_limit("MB/s", q->mbps, "");
		qos_limit("burst", q->burst_ms, " ms");
		qos_limit("weight", q->weight, "");
	}
	printf("  passed at once: %lu reads, %lu writes, %lu other; held back: %lu reads, "
	       "%lu writes, %lu other (%.3f s held, summed); waiting %u (at most %u)\n",
	       (unsigned long)i->reads_admitted, (unsigned long)i->writes_admitted,
	       (unsigned long)i->others_admitted, (unsigned long)i->reads_held,
	       (unsigned long)i->writes_held, (unsigned long)i->others_held,
	       (double)i->held_ns / 1e9, i->waiting, i->max_waiting);
	if (i->n_full_ns) {
		static const char *const names[] = { "read iops", "write iops", "iops",
						     "read MB/s", "write MB/s", "MB/s" };

		printf("  unused (bucket full):");
		for (size_t k = 0; k < i->n_full_ns && k < 6; k++)
			if (i->full_ns[k])
				printf(" %s %.3f s,", names[k], (double)i->full_ns[k] / 1e9);
		printf(" of it with commands held %.3f s\n", (double)i->full_held_ns / 1e9);
	}
	if (i->die_time_ns)
		printf("  die time given it: %.3f s\n", (double)i->die_time_ns / 1e9);
}

void ctl_print_qos_list(const ProtobufCMessage *m)
{
	const Blox__Admin__QosList *l = (const void *)m;

	if (!l->n_namespaces)
		printf("no namespaces\n");
	for (size_t i = 0; i < l->n_namespaces; i++)
		ctl_print_qos(&l->namespaces[i]->base);
}
