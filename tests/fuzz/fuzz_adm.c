/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the admin API as a client reaches it. Each input is
 * the byte stream one client sends on bloxd's admin unix socket: the
 * frame decoder (proto/adm_frame.c), protobuf-c's unpacking of each
 * method's request and the method dispatch and handlers (daemon/admin),
 * on a target made afresh for each input (event loop, NVMe core,
 * transport, provisioning service, admin server, a data directory of its
 * own) and taken down after, so that every input runs alone. The state
 * file the admin API wrote must load again (what bloxd starts from).
 * Listeners the input adds are bound in a network namespace of the
 * fuzzer's own when it runs as root.
 */
#include <errno.h>
#include <event2/event.h>
#include <ftw.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "adm_internal.h"
#include "fuzz_net.h"
#include "fuzz_util.h"
#include "tcp.h"

struct adm_env {
	struct event_base *base;
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct blox_prov *prov;
	struct blox_telemetry *tm;
	struct blox_admin *admin;
	char dir[64], sock[128];
};

static bool adm_idle(void *arg)
{
	struct adm_env *e = arg;

	return adm_nr_conns(e->admin) == 0 && !blox_admin_busy(e->admin);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void env_up(struct adm_env *e)
{
	struct blox_admin_opts o = { 0 };
	char err[512];
	int rc;

	memset(e, 0, sizeof(*e));
	/* tmpfs when there is one: every change writes the state file. */
	snprintf(e->dir, sizeof(e->dir), "%s/blox-fuzz-adm-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	FUZZ_CHECK(mkdtemp(e->dir), "mkdtemp %s", e->dir);
	snprintf(e->sock, sizeof(e->sock), "%s/adm.sock", e->dir);
	e->log.level = getenv("BLOX_FUZZ_LOG") ? BLOX_LOG_DEBUG : -1;
	e->base = event_base_new();
	FUZZ_CHECK(e->base, "event_base_new");
	blox_clock_init_real(&e->clock);
	FUZZ_CHECK(nvmf_tgt_init(&e->tgt, e->base, &e->clock, &e->log) == 0, "tgt");
	FUZZ_CHECK(nvmf_tcp_create(&e->tgt, NULL, NULL, &e->tcp) == 0, "tcp");
	FUZZ_CHECK(blox_prov_create(&e->tgt, e->tcp, e->dir, &e->prov) == 0, "prov");
	o.socket_path = e->sock;
	FUZZ_CHECK(blox_telemetry_create(e->prov, &e->tm) == 0, "telemetry");
	rc = blox_admin_create(e->prov, e->tm, &o, &e->admin, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "admin: %s", err);
}

/*
 * What the admin API wrote to the state file is what bloxd starts from
 * next time: it must load (state.c's writer against the loader).
 */
static void check_state_file(const struct adm_env *e)
{
	struct blox_config cfg;
	char path[256], err[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", e->dir, BLOX_STATE_FILE);
	if (access(path, F_OK))
		return; /* nothing changed */
	rc = blox_config_load(path, &cfg, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "the state file bloxd wrote does not load: %s", err);
	blox_config_free(&cfg);
}

/* As bloxd stops (main.c): admin work drains, controllers and queues go. */
static void env_down(struct adm_env *e)
{
	struct nvmf_port *p;

	blox_admin_stop(e->admin);
	TAILQ_FOREACH(p, &e->tgt.ports, link)
		nvmf_tcp_unlisten(e->tcp, p);
	nvmf_tgt_close_ctrls(&e->tgt);
	nvmf_tcp_close_all(e->tcp);
	for (int i = 0; blox_admin_busy(e->admin) || nvmf_tcp_nr_queues(e->tcp); i++) {
		FUZZ_CHECK(i < 100000, "admin work does not end");
		event_base_loop(e->base, EVLOOP_NONBLOCK);
		usleep(100);
	}
	blox_admin_destroy(e->admin);
	blox_telemetry_destroy(e->tm);
	blox_prov_clear(e->prov);
	blox_prov_destroy(e->prov);
	nvmf_tcp_destroy(e->tcp);
	nvmf_tgt_fini(&e->tgt);
	event_base_free(e->base);
	nftw(e->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/*
 * AddListener binds what the input says: where it may (root), do it in a
 * network namespace of this process's own, with only its loopback up, so
 * that no port of anything else on the machine is taken, even briefly.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	(void)argc;
	(void)argv;
	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "fuzz_adm: no network namespace of its own (%s): "
				"listeners the input adds bind on the host\n",
			strerror(errno));
		return 0;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0, "lo flags");
	ifr.ifr_flags |= IFF_UP;
	FUZZ_CHECK(ioctl(fd, SIOCSIFFLAGS, &ifr) == 0, "lo up");
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct adm_env e;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	env_up(&e);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", e.sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FUZZ_CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		   "connect %s", e.sock);
	fuzz_exchange(e.base, fd, data, size, SIZE_MAX, adm_idle, &e, 20000);
	check_state_file(&e);
	env_down(&e);
	return 0;
}
