/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe Qualified Names as the NVMe base specification defines them
 * ("NVMe Qualified Names"), one check for the config loader, the admin
 * API and bloxctl:
 *
 *   nqn.yyyy-mm.reverse.domain:name   the date form: "nqn.", a year and a
 *                                     month 01..12, ".", a reverse domain
 *                                     name, ":" and a non-empty string the
 *                                     domain's owner assigns
 *   nqn.2014-08.org.nvmexpress:uuid:xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
 *                                     the UUID form (hex digits, either case)
 *   nqn.2014-08.org.nvmexpress.discovery   the discovery subsystem's
 *
 * At most 223 bytes of UTF-8, without white space or control characters.
 * The reverse domain is a DNS name written the way it is registered:
 * labels of lowercase letters, digits and '-' (1..63 characters, no '-'
 * at either end), the first (the top-level domain) starting with a
 * letter. NQNs compare byte for byte, so "IO.blox" and "io.blox" would be
 * two subsystems of one domain: uppercase in the domain is refused.
 */
#ifndef BLOX_NQN_H
#define BLOX_NQN_H

#include <stdbool.h>
#include <stddef.h>

#define BLOX_NQN_MAX_LEN 223
#define BLOX_NQN_DISCOVERY "nqn.2014-08.org.nvmexpress.discovery"
#define BLOX_NQN_UUID_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

/*
 * 0 when @nqn is a valid NQN (the discovery NQN only with @discovery_ok),
 * else -EINVAL and one line "NQN '<nqn>': <why>" in @err (the NQN's
 * bytes outside printable ASCII written as \xNN, a long one cut).
 */
int blox_nqn_check(const char *nqn, bool discovery_ok, char *err, size_t errlen);

#endif
