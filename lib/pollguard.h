/* SPDX-License-Identifier: ISC */
/*
 * pollguard: the tools' library, one header a layer, each including
 * those below it; sources include the layers they use, tests this one:
 *
 *	base.h		limits, clocks, durations, names, "key value" text
 *	conf.h		pollguard.conf(5)
 *	state.h		the state directory: records, locks, side record
 *	proto.h		the status answer, the peer protocol, asking peers
 *	decide.h	the rule: decide, settle, prefer; this node's status
 *	serve.h		pollguard-serve: listen, answer, connections
 *	fleet.h		pollguard-status: the fleet, next, table and JSON
 *	lease.h		the etcd backend: lease record, answers, client
 *	monitor.h	pings and the monitoring plugin
 *
 * Headers ending in -int.h are private; base.h states the contract.
 */
#ifndef POLLGUARD_H
#define POLLGUARD_H

#include "base.h"
#include "conf.h"
#include "state.h"
#include "proto.h"
#include "decide.h"
#include "serve.h"
#include "fleet.h"
#include "lease.h"
#include "monitor.h"

#endif /* POLLGUARD_H */
