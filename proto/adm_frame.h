/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Framing of the admin API on a stream socket. Every frame is a fixed
 * 20-byte little-endian header, then msg_len bytes of UTF-8 message
 * (answers only: why a request failed), then payload_len bytes of
 * protobuf payload:
 *
 *   0  u32 magic        ADM_MAGIC ("BLXA")
 *   4  u8  version      ADM_VERSION
 *   5  u8  flags        ADM_F_*
 *   6  u16 method       index of the rpc in service BloxAdmin
 *   8  u32 request_id   chosen by the client, echoed in every answer
 *  12  u16 status       answers: enum blox.admin.Status; requests: 0
 *  14  u16 msg_len      requests: 0
 *  16  u32 payload_len  at most ADM_MAX_PAYLOAD
 *
 * A request gets one answer, or for streaming methods answers with
 * ADM_F_MORE set and a last one without. A client ends a stream early by
 * sending a frame with ADM_F_CANCEL and the stream's request id (no
 * payload); the server then sends the last answer, status CANCELLED.
 * Pure code: no I/O, used by bloxd and bloxctl.
 */
#ifndef BLOX_ADM_FRAME_H
#define BLOX_ADM_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define ADM_MAGIC 0x41584c42u /* "BLXA" as little-endian bytes */
#define ADM_VERSION 1
#define ADM_HDR_LEN 20
#define ADM_MAX_PAYLOAD (1u << 20)
#define ADM_MAX_MSG 1024

#define ADM_F_MORE 0x01 /* answer: more answers follow for this request */
#define ADM_F_CANCEL 0x02 /* request: cancel the stream request_id */
#define ADM_F_ALL (ADM_F_MORE | ADM_F_CANCEL)

struct adm_hdr {
	uint8_t version;
	uint8_t flags;
	uint16_t method;
	uint32_t request_id;
	uint16_t status;
	uint16_t msg_len;
	uint32_t payload_len;
};

enum adm_decode {
	ADM_OK = 0,
	ADM_NEED_MORE, /* fewer than ADM_HDR_LEN bytes */
	ADM_BAD_MAGIC,
	ADM_BAD_VERSION,
	ADM_BAD_FLAGS,
	ADM_TOO_LONG, /* payload or message over the limit */
};

/* Statuses as in blox_admin.proto (kept equal by a unit test). */
enum adm_status {
	ADM_S_OK = 0,
	ADM_S_INVALID_ARGUMENT = 1,
	ADM_S_NOT_FOUND = 2,
	ADM_S_ALREADY_EXISTS = 3,
	ADM_S_FAILED_PRECONDITION = 4,
	ADM_S_RESOURCE_EXHAUSTED = 5,
	ADM_S_PERMISSION_DENIED = 6,
	ADM_S_UNAVAILABLE = 7,
	ADM_S_INTERNAL = 8,
	ADM_S_CANCELLED = 9,
	ADM_S_COUNT,
};

void adm_hdr_encode(const struct adm_hdr *h, uint8_t out[ADM_HDR_LEN]);
/* Decode and check the header in @buf (@len bytes available). */
enum adm_decode adm_hdr_decode(const uint8_t *buf, size_t len, struct adm_hdr *h);
/* Total frame length the header announces. */
size_t adm_frame_len(const struct adm_hdr *h);
const char *adm_decode_str(enum adm_decode d);
/* "NOT_FOUND" etc.; "UNKNOWN" for values outside the enum. */
const char *adm_status_name(uint32_t status);
/* errno-style value (0, -ENOENT, ...) to a status. */
enum adm_status adm_status_from_errno(int rc);

#endif
