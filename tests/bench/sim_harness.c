/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What blox-sim's experiments share beyond one simulated device (sim_core.c):
 * the random numbers and the zipfian LBAs, the environment of several FTLs on
 * one device and one clock, write amplification from FTL counters, the
 * machine and command lines of the results' headers, and points run in a
 * child process.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim.h"

/* ---- randomness ---- */

uint64_t sim_rnd(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ull;
}

double sim_rnd_unit(uint64_t *state)
{
	return (double)((sim_rnd(state) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

void sim_zipf_init(struct sim_zipf *z, uint64_t n, double theta)
{
	double zeta2 = 1.0 + pow(0.5, theta);

	z->n = n;
	z->theta = theta;
	z->zetan = 0;
	for (uint64_t i = 1; i <= n; i++)
		z->zetan += 1.0 / pow((double)i, theta);
	z->alpha = 1.0 / (1.0 - theta);
	z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta2 / z->zetan);
	z->half_pow = pow(0.5, theta);
}

uint64_t sim_zipf_next(const struct sim_zipf *z, double u)
{
	double uz = u * z->zetan;
	uint64_t r;

	if (uz < 1.0)
		return 0;
	if (uz < 1.0 + z->half_pow)
		return 1;
	r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
	return r < z->n ? r : z->n - 1;
}

uint64_t sim_fnv1a64(uint64_t v)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (int i = 0; i < 8; i++) {
		h ^= v & 0xff;
		h *= 0x100000001b3ull;
		v >>= 8;
	}
	return h;
}

uint32_t sim_zipf_lba(const struct sim_zipf *z, uint64_t *state, uint32_t cap)
{
	return (uint32_t)(sim_fnv1a64(sim_zipf_next(z, sim_rnd_unit(state))) % cap);
}

/* ---- what is written and read back ---- */

void sim_stamp_unit(uint8_t *unit, uint32_t lba, uint32_t ver)
{
	uint32_t *h = (uint32_t *)unit;

	h[0] = SIM_MAGIC;
	h[1] = lba;
	h[2] = ver;
	h[1023] = ~lba;
}

bool sim_unit_is(const uint8_t *unit, uint32_t lba, uint32_t want)
{
	const uint32_t *h = (const uint32_t *)unit;

	if (want == 0)
		return h[0] == 0 && h[1] == 0 && h[2] == 0;
	return h[0] == SIM_MAGIC && h[1] == lba && h[2] == want && h[1023] == ~lba;
}

bool sim_unit_between(const uint8_t *unit, uint32_t lba, uint32_t lo, uint32_t hi)
{
	const uint32_t *h = (const uint32_t *)unit;

	if (h[0] == 0 && h[1] == 0 && h[2] == 0)
		return lo == 0;
	return h[0] == SIM_MAGIC && h[1] == lba && h[1023] == ~lba && h[2] >= lo && h[2] >= 1 &&
	       h[2] <= hi;
}

/* ---- devices ---- */

void sim_nand_open(const struct nand_config *nc, struct nand_store **store, struct nand_dev **dev)
{
	int rc;

	if ((rc = nand_store_ram_open(&nc->geo, store)))
		sim_die("store: %d", rc);
	if ((rc = nand_dev_create(nc, *store, dev)))
		sim_die("nand dev: %d", rc);
}

/* ---- several FTLs on one device and one clock ---- */

int sim_tenv_submit(void *ctx, struct nand_op *op)
{
	struct sim_tenv *e = ctx;

	e->sub_ops++;
	e->wrong_tenant += op->tenant != e->id;
	return nand_submit(e->dev, op, blox_clock_now(e->clock));
}

uint64_t sim_tenv_now(void *ctx)
{
	struct sim_tenv *e = ctx;

	return blox_clock_now(e->clock);
}

void sim_tenv_kick(void *ctx)
{
	struct sim_tenv *e = ctx;

	e->kicked = true;
}

int sim_tenv_sync(void *ctx)
{
	struct sim_tenv *e = ctx;

	return e->store->ops->sync(e->store);
}

static const struct ftl_env_ops sim_tenv_ops = {
	.submit = sim_tenv_submit,
	.now = sim_tenv_now,
	.kick = sim_tenv_kick,
	.sync = sim_tenv_sync,
};

void sim_tenv_init(struct sim_tenv *e, struct ftl_env *env, const struct ftl_env_ops *ops,
		   struct nand_dev *dev, struct nand_store *store, struct blox_clock *clock,
		   uint32_t id)
{
	*e = (struct sim_tenv){ .dev = dev, .store = store, .clock = clock, .id = id };
	*env = (struct ftl_env){ .ops = ops ? ops : &sim_tenv_ops, .ctx = e, .dev = dev,
				 .store = store };
}

void sim_loop_run(const struct sim_loop *l, uint64_t until, bool (*done)(const void *ctx))
{
	const struct sim_loop_ops *ops = l->ops;

	for (;;) {
		uint64_t next, ev, now;
		bool any = false;

		for (uint32_t i = 0; i < l->n; i++) {
			struct sim_tenv *e = l->env[i];

			if (e->kicked) {
				e->kicked = false;
				ftl_process(e->f);
				any = true;
			}
		}
		if (ops->events && ops->events(l->ctx))
			any = true;
		if (any)
			continue;
		if (done && done(l->ctx))
			return;
		ev = ops->next ? ops->next(l->ctx) : UINT64_MAX;
		next = nand_next_event(l->dev);
		now = next < ev ? next : ev;
		if (now == UINT64_MAX && until != UINT64_MAX)
			break;
		if (now == UINT64_MAX)
			ops->hang(l->ctx); /* it dies */
		if (now > until)
			break;
		blox_clock_set(l->clock, now);
		if (ev == now) {
			ops->fire(l->ctx, now);
			continue;
		}
		nand_advance(l->dev, now);
	}
	if (until != UINT64_MAX && blox_clock_now(l->clock) < until)
		blox_clock_set(l->clock, until);
}

/* ---- figures ---- */

double sim_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

double sim_flash_units(const struct ftl_stats *a)
{
	return (double)(a->units_written_host + a->units_written_gc + a->units_written_tp +
			a->units_padded);
}

double sim_waf_between(const struct ftl_stats *a, const struct ftl_stats *b)
{
	double host = (double)(b->units_written_host - a->units_written_host);

	return host > 0 ? (sim_flash_units(b) - sim_flash_units(a)) / host : 0.0;
}

/* ---- the results' headers ---- */

void sim_machine_get(struct sim_machine *m)
{
	struct utsname u;
	char line[512];
	FILE *fp;

	snprintf(m->model, sizeof(m->model), "unknown CPU");
	snprintf(m->os, sizeof(m->os), "unknown OS");
	if ((fp = fopen("/proc/cpuinfo", "r"))) {
		while (fgets(line, sizeof(line), fp))
			if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
				snprintf(m->model, sizeof(m->model), "%s", strchr(line, ':') + 2);
				m->model[strcspn(m->model, "\n")] = 0;
				break;
			}
		fclose(fp);
	}
	if ((fp = fopen("/etc/os-release", "r"))) {
		while (fgets(line, sizeof(line), fp))
			if (!strncmp(line, "PRETTY_NAME=", 12)) {
				snprintf(m->os, sizeof(m->os), "%s", line + 12 + (line[12] == '"'));
				m->os[strcspn(m->os, "\"\n")] = 0;
				break;
			}
		fclose(fp);
	}
	uname(&u);
	snprintf(m->release, sizeof(m->release), "%s", u.release);
	m->cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

void sim_cmdline(char *buf, size_t size, int argc, char **argv)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < argc; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
	}
}

/* ---- a point in a child process ---- */

int sim_in_child(void (*fn)(void *arg), void *arg, void *out, size_t size, size_t *got,
		 int *status)
{
	int fd[2];
	pid_t pid;

	*got = 0;
	*status = 0;
	fflush(NULL);
	if (pipe(fd))
		sim_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		sim_die("fork: %s", strerror(errno));
	if (pid == 0) {
		const uint8_t *b = out;
		size_t put = 0;

		close(fd[0]);
		fn(arg);
		while (put < size) {
			ssize_t k = write(fd[1], b + put, size - put);

			if (k <= 0)
				_exit(2);
			put += (size_t)k;
		}
		_exit(0); /* the parent owns the device: nothing to tear down here */
	}
	close(fd[1]);
	while (*got < size) {
		ssize_t k = read(fd[0], (uint8_t *)out + *got, size - *got);

		if (k <= 0)
			break;
		*got += (size_t)k;
	}
	close(fd[0]);
	if (waitpid(pid, status, 0) != pid || !WIFEXITED(*status) || WEXITSTATUS(*status) ||
	    *got != size)
		return -1;
	return 0;
}
