/* SPDX-License-Identifier: BSD-3-Clause */
#include "adm_frame.h"

#include <errno.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}

void adm_hdr_encode(const struct adm_hdr *h, uint8_t out[ADM_HDR_LEN])
{
	put32(out, ADM_MAGIC);
	out[4] = h->version;
	out[5] = h->flags;
	put16(out + 6, h->method);
	put32(out + 8, h->request_id);
	put16(out + 12, h->status);
	put16(out + 14, h->msg_len);
	put32(out + 16, h->payload_len);
}

enum adm_decode adm_hdr_decode(const uint8_t *buf, size_t len, struct adm_hdr *h)
{
	if (len < ADM_HDR_LEN)
		return ADM_NEED_MORE;
	if (get32(buf) != ADM_MAGIC)
		return ADM_BAD_MAGIC;
	h->version = buf[4];
	h->flags = buf[5];
	h->method = get16(buf + 6);
	h->request_id = get32(buf + 8);
	h->status = get16(buf + 12);
	h->msg_len = get16(buf + 14);
	h->payload_len = get32(buf + 16);
	if (h->version != ADM_VERSION)
		return ADM_BAD_VERSION;
	if (h->flags & ~ADM_F_ALL)
		return ADM_BAD_FLAGS;
	if (h->payload_len > ADM_MAX_PAYLOAD || h->msg_len > ADM_MAX_MSG)
		return ADM_TOO_LONG;
	return ADM_OK;
}

size_t adm_frame_len(const struct adm_hdr *h)
{
	return ADM_HDR_LEN + (size_t)h->msg_len + h->payload_len;
}

const char *adm_decode_str(enum adm_decode d)
{
	switch (d) {
	case ADM_OK:
		return "ok";
	case ADM_NEED_MORE:
		return "truncated header";
	case ADM_BAD_MAGIC:
		return "bad magic (not a bloxd admin frame)";
	case ADM_BAD_VERSION:
		return "unsupported frame version";
	case ADM_BAD_FLAGS:
		return "unknown frame flags";
	case ADM_TOO_LONG:
		return "frame over the size limit";
	}
	return "?";
}

const char *adm_status_name(uint32_t status)
{
	static const char *const names[ADM_S_COUNT] = {
		"OK",
		"INVALID_ARGUMENT",
		"NOT_FOUND",
		"ALREADY_EXISTS",
		"FAILED_PRECONDITION",
		"RESOURCE_EXHAUSTED",
		"PERMISSION_DENIED",
		"UNAVAILABLE",
		"INTERNAL",
		"CANCELLED",
	};

	return status < ADM_S_COUNT ? names[status] : "UNKNOWN";
}

enum adm_status adm_status_from_errno(int rc)
{
	switch (rc) {
	case 0:
		return ADM_S_OK;
	case -EINVAL:
	case -ERANGE:
	case -EFBIG: /* a file larger than its filesystem allows: the size asked */
		return ADM_S_INVALID_ARGUMENT;
	case -ENOENT:
		return ADM_S_NOT_FOUND;
	case -EEXIST:
		return ADM_S_ALREADY_EXISTS;
	case -EBUSY:
		return ADM_S_FAILED_PRECONDITION;
	case -ENOMEM:
	case -ENOSPC:
	case -EDQUOT:
		return ADM_S_RESOURCE_EXHAUSTED;
	case -EACCES:
	case -EPERM:
		return ADM_S_PERMISSION_DENIED;
	case -EAGAIN:
		return ADM_S_UNAVAILABLE;
	default:
		return ADM_S_INTERNAL;
	}
}
