/* SPDX-License-Identifier: ISC */
/*
 * pollguard: the core library shared by the tools, one header a layer.
 * Each layer includes those below it; the library's sources and the
 * tools include the layers they use, and the tests this header, all of
 * them:
 *
 *	base.h		limits, clocks, durations, names, "key value" text
 *	conf.h		pollguard.conf(5)
 *	state.h		the state directory: records, locks, side record
 *	proto.h		the status answer, the peer protocol, asking peers
 *	decide.h	the rule: decide, settle, prefer
 *	local.h		this node's own status
 *	serve.h		pollguard-serve: listen, answer, connections
 *	fleet.h		pollguard-status: the fleet, next, table and JSON
 *	lease.h		the etcd backend: lease record, answers, client
 *	monitor.h	pings and the monitoring plugin
 *
 * Headers ending in -int.h are private to the sources they name.
 * base.h states the contract every function keeps.
 */
#ifndef POLLGUARD_H
#define POLLGUARD_H

#include "base.h"
#include "conf.h"
#include "state.h"
#include "proto.h"
#include "decide.h"
#include "local.h"
#include "serve.h"
#include "fleet.h"
#include "lease.h"
#include "monitor.h"

#endif /* POLLGUARD_H */
