/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Limits on values of the admin API, in one place for both ends: bloxd
 * checks them on what it receives and on the config file (daemon/conf/
 * params.c); bloxctl names them when a number given is too large even for
 * the request's field, so never reaches bloxd.
 */
#ifndef BLOX_ADM_LIMITS_H
#define BLOX_ADM_LIMITS_H

/* A namespace's QoS limits (message QosParams). */
#define ADM_QOS_MAX_IOPS 100000000u /* read_iops, write_iops, iops */
#define ADM_QOS_MAX_MBPS 1000000u /* read_mbps, write_mbps, mbps */
#define ADM_QOS_MAX_BURST_MS 60000u /* burst_ms, from 1 */
#define ADM_QOS_MAX_WEIGHT 1000u /* weight, from 1 */

#endif
