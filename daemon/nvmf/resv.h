/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe reservations of one namespace, as a pure state machine (resv.c):
 * the registrants (keyed by their 128-bit host identifier), the
 * reservation and its holder, the generation, and what Reservation
 * Register, Acquire, Release and Report do to them, with the spec's
 * statuses. No I/O, no clock, no knowledge of controllers: what the
 * caller must tell other hosts comes back through struct nvmf_resv_cb.
 * Internal to daemon/nvmf (resv_cmd.c wires it to the commands).
 *
 * Statuses are NVMe status fields as in nvmf.h (SCT << 8 | SC | DNR).
 */
#ifndef BLOX_NVMF_RESV_H
#define BLOX_NVMF_RESV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reservation types (RTYPE); 0 is "no reservation". */
enum nvmf_resv_type {
	NVMF_RESV_NONE = 0,
	NVMF_RESV_WE = 1, /* Write Exclusive */
	NVMF_RESV_EA = 2, /* Exclusive Access */
	NVMF_RESV_WE_RO = 3, /* Write Exclusive - Registrants Only */
	NVMF_RESV_EA_RO = 4, /* Exclusive Access - Registrants Only */
	NVMF_RESV_WE_AR = 5, /* Write Exclusive - All Registrants */
	NVMF_RESV_EA_AR = 6, /* Exclusive Access - All Registrants */
};

/* What a notification tells (Reservation Notification log page type). */
enum nvmf_resv_event {
	NVMF_RESV_EV_REG_PREEMPTED = 1,
	NVMF_RESV_EV_RELEASED = 2,
	NVMF_RESV_EV_RESV_PREEMPTED = 3,
};

/* Which group of the command-behaviour table an I/O opcode is in. */
enum nvmf_resv_class {
	NVMF_RESV_CLASS_OTHER, /* not restricted by reservations */
	NVMF_RESV_CLASS_READ,
	NVMF_RESV_CLASS_WRITE,
};

/* Command dword 10 fields of the reservation commands. */
#define NVMF_RESV_ACTION(cdw10) ((cdw10) & 0x7u) /* RREGA, RACQA, RRELA */
#define NVMF_RESV_IEKEY (1u << 3)
#define NVMF_RESV_RTYPE(cdw10) (((cdw10) >> 8) & 0xffu)
#define NVMF_RESV_CPTPL(cdw10) ((cdw10) >> 30)

enum { NVMF_RESV_REGISTER = 0, NVMF_RESV_UNREGISTER = 1, NVMF_RESV_REPLACE = 2 };
enum { NVMF_RESV_ACQUIRE = 0, NVMF_RESV_PREEMPT = 1, NVMF_RESV_PREEMPT_ABORT = 2 };
enum { NVMF_RESV_RELEASE = 0, NVMF_RESV_CLEAR = 1 };
/* CPTPL: 00b no change, 01b reserved, 10b clear PTPL, 11b set it. */
enum { NVMF_RESV_CPTPL_KEEP = 0, NVMF_RESV_CPTPL_CLEAR = 2, NVMF_RESV_CPTPL_SET = 3 };

/* Most registrants of one namespace (REGCTL is 16 bits; more would be a host's error). */
#define NVMF_RESV_MAX_REGS 1024

/* Report sizes: header and one registrant, normal and extended (EDS). */
#define NVMF_RESV_REPORT_HDR 24
#define NVMF_RESV_REPORT_ENTRY 24
#define NVMF_RESV_REPORT_HDR_EXT 64
#define NVMF_RESV_REPORT_ENTRY_EXT 64

struct nvmf_resv_reg {
	uint8_t hostid[16];
	uint64_t key;
};

struct nvmf_resv {
	struct nvmf_resv_reg *regs; /* in order of registration */
	uint32_t nr, cap;
	uint8_t rtype; /* enum nvmf_resv_type; NONE: no reservation */
	/* The holder of a reservation that is not of an All Registrants type. */
	uint8_t holder[16];
	uint32_t gen; /* generation */
	bool ptpl; /* Persist Through Power Loss state */
	bool ptpl_capable; /* the caller keeps the state across restarts */
};

/*
 * The effects a command has on other hosts. @event: host @hostid is to
 * get a notification (never the host that sent the command). @event with
 * NVMF_RESV_EV_REG_PREEMPTED names each host a preempt unregistered: the
 * caller aborts (waits out) its commands for a Preempt and Abort. NULL
 * members are skipped.
 */
struct nvmf_resv_cb {
	void (*event)(void *arg, const uint8_t hostid[16], enum nvmf_resv_event ev);
	void *arg;
};

void nvmf_resv_init(struct nvmf_resv *r);
void nvmf_resv_fini(struct nvmf_resv *r);

/*
 * Reservation Register by host @host: @cdw10 (RREGA, IEKEY, CPTPL), the
 * data's CRKEY and NRKEY. 0 or an NVMe status; the generation moves on
 * success.
 */
uint16_t nvmf_resv_register(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			    uint64_t crkey, uint64_t nrkey, const struct nvmf_resv_cb *cb);
/* Reservation Acquire: @cdw10 (RACQA, IEKEY, RTYPE), the data's CRKEY and PRKEY. */
uint16_t nvmf_resv_acquire(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			   uint64_t crkey, uint64_t prkey, const struct nvmf_resv_cb *cb);
/* Reservation Release: @cdw10 (RRELA, IEKEY, RTYPE), the data's CRKEY. */
uint16_t nvmf_resv_release(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			   uint64_t crkey, const struct nvmf_resv_cb *cb);
/*
 * The Reservation Status data structure, extended (@eds) or not, into
 * @out (@len bytes, zero-filled past what fits). Hosts of NVMe over
 * Fabrics have 128-bit identifiers, which the normal structure cannot
 * hold: without @eds, Host Identifier Inconsistent Format.
 */
uint16_t nvmf_resv_report(const struct nvmf_resv *r, bool eds, uint8_t *out, size_t len);
/* The group of the command-behaviour table I/O opcode @opc is in. */
enum nvmf_resv_class nvmf_resv_opc_class(uint8_t opc);
/* May host @host run an I/O command @opc? 0 or Reservation Conflict. */
uint16_t nvmf_resv_access(const struct nvmf_resv *r, const uint8_t host[16], uint8_t opc);
/* The registrant of @host, or NULL. */
const struct nvmf_resv_reg *nvmf_resv_find(const struct nvmf_resv *r, const uint8_t host[16]);
/* Does @host hold the reservation (as its holder or as a registrant of an All Registrants type)? */
bool nvmf_resv_is_holder(const struct nvmf_resv *r, const uint8_t host[16]);
/* An operator's clear: every registration and the reservation go; the generation moves. */
void nvmf_resv_clear_all(struct nvmf_resv *r);
/* @dst (initialised, its own registrants freed first) becomes a copy of @src. 0 or -ENOMEM. */
int nvmf_resv_copy(struct nvmf_resv *dst, const struct nvmf_resv *src);

/*
 * The persisted form of @r (Persist Through Power Loss): text, one fact a
 * line ("blox-resv 1", "ptpl", "gen", "rtype", "holder", one "reg" per
 * registrant with its host identifier and key in hex). A malloc'd,
 * NUL-terminated string, or NULL (-ENOMEM).
 */
char *nvmf_resv_encode(const struct nvmf_resv *r);
/* @text back into @r (initialised and empty). 0, -EINVAL (not that form), -ENOMEM. */
int nvmf_resv_decode(struct nvmf_resv *r, const char *text);

#endif
