/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl's inside: the connection to bloxd and the request/answer
 * exchange (ctl_client.c), human and JSON output (ctl_output.c, stats in
 * ctl_out_stats.c), and the
 * commands, one table of {name, usage, help, exec} per object of the API
 * (ctl_cmd_*.c) that bloxctl.c dispatches through and builds its help
 * from. The pure helpers (parsing, tables, JSON) are in cli.h.
 */
#ifndef BLOX_CTL_H
#define BLOX_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "cli.h"

#define CTL_EX_USAGE 64
#define CTL_ANAGRPMAX 128 /* ANA groups 1..128 (bloxd's NVMF_ANAGRPMAX) */
#define CTL_DEFAULT_SOCKET "/run/bloxd/bloxd.sock"

struct ssl_ctx_st;
struct ssl_st;

/* One run of bloxctl: its options and its connection. */
struct ctl {
	const char *sock;
	const char *connect, *cert, *key, *ca; /* TLS to HOST:PORT instead */
	struct ssl_ctx_st *ssl_ctx;
	struct ssl_st *ssl;
	bool json;
	int timeout_ms;
	bool timeout_given; /* --timeout on the line: a command's own wait does not lengthen it */
	int fd;
	uint32_t next_id;
	uint8_t *buf; /* one whole frame */
};

/* Prints an answer for people (--json prints every answer the same way). */
typedef void (*ctl_print_fn)(const ProtobufCMessage *m);

/* ctl_client.c */
/* One request, one answer, printed. Returns the exit code (the status). */
int ctl_call(struct ctl *c, const char *method, const ProtobufCMessage *in,
	     ctl_print_fn human);
/* stats --watch: answers until the stream ends or Ctrl-C cancels it. */
int ctl_watch(struct ctl *c, Blox__Admin__StatsRequest *in);
/*
 * A streaming call @name: each answer printed (on a terminal, over the
 * last one), until the stream ends or Ctrl-C cancels it.
 */
int ctl_stream(struct ctl *c, const char *name, const ProtobufCMessage *in,
	       uint32_t interval_ms, ctl_print_fn human);
/* Close the connection (TLS shutdown) and free what it holds. */
void ctl_close(struct ctl *c);

/* ctl_output.c */
/* @m as JSON (one line with @line) or through @human. */
void ctl_emit(const struct ctl *c, const ProtobufCMessage *m, ctl_print_fn human,
	      bool line);
void ctl_print_ok(const ProtobufCMessage *m);
void ctl_print_version(const ProtobufCMessage *m);
void ctl_print_status(const ProtobufCMessage *m);
void ctl_print_saved(const ProtobufCMessage *m);
void ctl_print_listeners(const ProtobufCMessage *m);
void ctl_print_listener(const ProtobufCMessage *m);
void ctl_print_referral(const ProtobufCMessage *m);
void ctl_print_referrals(const ProtobufCMessage *m);
void ctl_print_subsys(const ProtobufCMessage *m);
void ctl_print_subsys_list(const ProtobufCMessage *m);
void ctl_print_host(const ProtobufCMessage *m);
void ctl_print_ns(const ProtobufCMessage *m);
void ctl_print_ns_list(const ProtobufCMessage *m);
void ctl_print_ctrls(const ProtobufCMessage *m);
void ctl_print_stats(const ProtobufCMessage *m);
void ctl_print_device(const ProtobufCMessage *m);
void ctl_print_device_list(const ProtobufCMessage *m);
void ctl_print_migration(const ProtobufCMessage *m);
void ctl_print_migrations(const ProtobufCMessage *m);
void ctl_print_qos(const ProtobufCMessage *m);
void ctl_print_qos_list(const ProtobufCMessage *m);

/* Commands. */
struct ctl_cmd {
	const char *name; /* the verb after the object; NULL: the object alone */
	/* Its arguments for the help text; '\n' starts a continuation line. */
	const char *usage;
	const char *help; /* what it does, one short line (may be "") */
	/* @argv: what follows the verb (the object when name is NULL). */
	int (*exec)(struct ctl *c, int argc, char **argv);
};

struct ctl_object {
	const char *name;
	const struct ctl_cmd *cmds; /* ends with an entry without exec */
};

/* ctl_cmd_target.c: status, version, config, listener, ctrl, stats. */
extern const struct ctl_object ctl_obj_status, ctl_obj_version, ctl_obj_config,
	ctl_obj_listener, ctl_obj_referral, ctl_obj_ctrl, ctl_obj_stats;
/* ctl_cmd_subsys.c */
extern const struct ctl_object ctl_obj_subsys, ctl_obj_host;
/* ctl_cmd_ns.c */
extern const struct ctl_object ctl_obj_ns;
/*
 * A NAND geometry or timing option of ns create and device create (@o
 * with value @v) into @nand: *@matched says whether @o is one. 0, or
 * CTL_EX_USAGE after a usage error naming @cmd.
 */
int ctl_nand_option(const char *cmd, const char *o, const char *v, Blox__Admin__NandParams *nand,
		    bool *matched);
/* ctl_cmd_device.c */
extern const struct ctl_object ctl_obj_device, ctl_obj_migrate;
/* ctl_cmd_qos.c */
extern const struct ctl_object ctl_obj_qos;
/* ctl_cmd_fault.c */
extern const struct ctl_object ctl_obj_fault;
/*
 * The value @v of QoS option @opt (--read-iops, ...) of @cmd into @out. 0,
 * or CTL_EX_USAGE after a usage error: not a number, or a number too large
 * to send, said to be over the limit bloxd takes, with the limit.
 */
int ctl_qos_value(const char *cmd, const char *opt, const char *v, uint32_t *out);

/* bloxctl.c: the global options, NULL-terminated: with a value, without. */
extern const char *const ctl_global_value_opts[], *const ctl_global_flags[];

/*
 * ctl_complete.c: "bloxctl __complete INDEX WORD...": the candidates for
 * WORD number INDEX of the words after "bloxctl" (one a line; "@files"
 * for a file name), from the command tables @objs. An exit code.
 */
int ctl_complete(const struct ctl_object *const *objs, size_t nobj, int argc, char **argv);

/* bloxctl.c: argument helpers of the commands. */
/* "bloxctl: <message> (see bloxctl --help)"; returns CTL_EX_USAGE. */
int ctl_usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool ctl_has_flag(int argc, char **argv, const char *flag);
/*
 * The positional arguments of @argv into @pos (at most @max), skipping
 * the NULL-terminated @flags. Their count, or -1 after a usage error.
 */
int ctl_positional(int argc, char **argv, const char *const *flags, char **pos,
		   int max);
/* A namespace id (1..); 0, or CTL_EX_USAGE after a usage error. */
int ctl_parse_nsid(const char *s, uint32_t *out);

#endif
