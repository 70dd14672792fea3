/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core's listeners and discovery: a listening address (a port,
 * core.c), the referrals to other discovery services and the discovery
 * log (discovery.c). Included by nvmf.h, after the limits and types they
 * take.
 */
#ifndef BLOX_NVMF_DISC_H
#define BLOX_NVMF_DISC_H

struct nvmf_ana_trans;

/* A listening address. Every NVM listener serves every subsystem. */
struct nvmf_port {
	uint16_t id;
	char addr[NVMF_TRADDR_SIZE]; /* as configured, e.g. 127.0.0.1 */
	char svcid[NVMF_TRSVCID_SIZE]; /* port number as text */
	int family; /* AF_INET or AF_INET6 */
	/*
	 * The address the discovery log gives hosts for it ("": its own, or
	 * for a wildcard the one the host reached): what hosts behind NAT, in
	 * a container's network or a VM reach it by. Canonical, of @family.
	 */
	char advertise[NVMF_TRADDR_SIZE];
	bool discovery_only; /* only the discovery subsystem is reachable */
	enum nvmf_tls_mode tls;
	/*
	 * Its ANA state per group (enum nvme_ana_state; 0: never set, which
	 * is optimized) and the ANA change count of the group's last change.
	 */
	uint8_t ana_state[NVMF_ANAGRPMAX + 1];
	uint64_t ana_chgcnt[NVMF_ANAGRPMAX + 1];
	/* A group's transition through the change state under way (ana.c), or NULL. */
	struct nvmf_ana_trans *ana_trans[NVMF_ANAGRPMAX + 1];
	struct nvmf_tgt *tgt;
	void *transport_priv;
	TAILQ_ENTRY(nvmf_port) link;
};

/*
 * A referral to another discovery service (discovery.c): the discovery
 * log lists it as an entry of subtype 1 (a discovery subsystem) with the
 * well-known discovery NQN, so that a host's connect-all follows it.
 */
enum nvmf_ref_state {
	NVMF_REF_UNKNOWN, /* not probed yet, or nobody probes: listed */
	NVMF_REF_UP, /* its discovery service answered the last probe: listed */
	NVMF_REF_DOWN, /* it stopped answering: left out of the log */
};

struct nvmf_referral {
	char addr[NVMF_TRADDR_SIZE]; /* canonical IPv4 or IPv6 text */
	char svcid[NVMF_TRSVCID_SIZE];
	int family;
	uint16_t portid;
	/* Its node's liveness, as the provisioning service's probes find it. */
	enum nvmf_ref_state state;
	uint64_t state_since_ns; /* the target's clock at the last change of @state */
	uint32_t probe_fails; /* failed probes in a row */
	char probe_err[64]; /* why the last failed probe failed */
	TAILQ_ENTRY(nvmf_referral) link;
};

int nvmf_port_add(struct nvmf_tgt *tgt, const char *addr, const char *svcid,
		  bool discovery_only, struct nvmf_port **out);
void nvmf_port_remove(struct nvmf_port *port);
/*
 * The address @port's discovery log entries carry (nvmf_port.advertise):
 * an IPv4 or IPv6 literal of the port's family, not the unspecified one;
 * "" or NULL: the port's own again. -EINVAL (not a literal, or 0.0.0.0 /
 * ::), -EAFNOSUPPORT (the other family); the log's change is told.
 */
int nvmf_port_set_advertise(struct nvmf_port *port, const char *addr);
/* The check of nvmf_port_set_advertise() for a port of @family: @canon ("" for none). */
int nvmf_advertise_check(int family, const char *addr, char canon[NVMF_TRADDR_SIZE]);
/*
 * @addr as an IPv4 or IPv6 literal: its family (AF_INET, AF_INET6) and
 * its canonical text in @canon (NVMF_TRADDR_SIZE); -EINVAL if it is none.
 */
int nvmf_addr_canon(const char *addr, char canon[NVMF_TRADDR_SIZE]);

/*
 * Discovery (discovery.c). nvmf_tgt_disc_changed: what the discovery log
 * tells changed (a subsystem, listener, host or referral): its generation
 * counter moves and the persistent discovery controllers (KATO set) that
 * enabled it get the Discovery Log Page Change notice. Referrals: add
 * (@addr an IPv4 or IPv6 literal, @svcid a port; -EINVAL, -EEXIST,
 * -ENOMEM), remove (-ENOENT), all freed.
 */
void nvmf_tgt_disc_changed(struct nvmf_tgt *tgt);
int nvmf_referral_add(struct nvmf_tgt *tgt, const char *addr, const char *svcid,
		      struct nvmf_referral **out);
int nvmf_referral_remove(struct nvmf_tgt *tgt, const char *addr, const char *svcid);
void nvmf_tgt_referrals_free(struct nvmf_tgt *tgt);
/* The referral at @addr (any form of the literal) and @svcid, or NULL. */
struct nvmf_referral *nvmf_referral_find(struct nvmf_tgt *tgt, const char *addr,
					 const char *svcid);
/*
 * A referral's node found up or down: the log leaves a down one out, so a
 * change between down and not down is a change of the log (the counter,
 * the notice). @why: the failure, for the operator (may be NULL).
 */
void nvmf_referral_set_state(struct nvmf_tgt *tgt, struct nvmf_referral *r,
			     enum nvmf_ref_state st, const char *why);
const char *nvmf_ref_state_name(enum nvmf_ref_state st);
/* Build the discovery log for the host of @req into @out; its length. */
size_t nvmf_discovery_log(struct nvmf_req *req, uint8_t *out, size_t cap);
/* TREQ of @p's discovery log entries (nvmet's values). */
uint8_t nvmf_disc_treq(const struct nvmf_port *p);

#endif
