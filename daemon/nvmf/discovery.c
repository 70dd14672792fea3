/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discovery controller: the well-known discovery NQN, reachable on
 * every listener. It answers Identify Controller, Get Log Page (supported
 * logs and the discovery log), features, Keep Alive and AER; the log
 * itself is built in logpage.c.
 */
#include "nvmf.h"

uint16_t nvmf_parse_discovery(struct nvmf_req *req)
{
	return nvmf_parse_admin_common(req, true);
}
