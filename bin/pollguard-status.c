/* SPDX-License-Identifier: ISC */
/* pollguard-status: each cluster's nodes, as lib/fleet.c shows them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "decide.h"
#include "status.h"

#define EXIT_PARTIAL	1	/* some node did not answer */

#define OPTS	"C:c:jptw:"
#define USAGE	"usage: pollguard-status [-j] [-c file] [cluster]\n" \
	"       pollguard-status -p [-C duration] [-c file] [-w duration] " \
	"cluster\n" \
	"       pollguard-status -t [-c file] [cluster]\n"

/*
 * Below the table (not with -j: the JSON has it): the prefer order and
 * who yields to whom. 1 when a node announces another order.
 */
static int
prefer_lines(const struct pg_fleet *f, size_t nf, int json)
{
	const struct pg_cluster		*c;
	const struct pg_fleet_node	*n;
	char				 a[PG_DURATION_MAX];
	char				 its[PG_VALUE_MAX + 2];
	char				 mine[PG_VALUE_MAX + 2];
	size_t				 i, j;
	int				 bad = 0;

	for (i = 0; i < nf; i++) {
		c = f[i].cluster;
		if (c->prefer[0] != '\0' && !json)
			printf("%s: prefer %s; failback %s%s%s\n", c->id,
			    c->prefer, c->failback ? "after " : "no",
			    c->failback ? pg_duration_text(c->failback_after_ms,
			    a) : "", c->failback ? " of checks" : "");
		for (j = 0; j < f[i].n; j++) {
			n = &f[i].nodes[j];
			if (!n->has_status)
				continue;
			if (n->st.yield[0] != '\0' && !json)
				printf("%s: %s yields to %s (for %s)\n", c->id,
				    n->name, n->st.yield,
				    pg_duration_text(n->st.yielded_ms, a));
			if (!n->self && strcasecmp(n->st.prefer,
			    c->prefer) != 0) {
				bad = 1;
				fprintf(stderr, "pollguard-status: cluster %s: "
				    "node %s announces prefer %s, this node %s:"
				    " prefer is not applied until they agree\n",
				    c->id, n->name, tool_order(its, sizeof(its),
				    n->st.prefer), tool_order(mine,
				    sizeof(mine), c->prefer));
			}
		}
	}
	return bad;
}

/* Say on stderr why each node that did not answer did not. */
static int
complain(const struct pg_fleet *f, size_t nf)
{
	size_t	 i, j;
	int	 bad = 0;

	for (i = 0; i < nf; i++)
		for (j = 0; j < f[i].n; j++) {
			if (PG_ANSWER_OK(f[i].nodes[j].kind))
				continue;
			bad = 1;
			fprintf(stderr, "pollguard-status: cluster %s: node "
			    "%s: %s\n", f[i].cluster->id, f[i].nodes[j].name,
			    f[i].nodes[j].why);
		}
	return bad;
}

int
main(int argc, char *argv[])
{
	static struct tool	 t;	/* static: reachable until exit */
	static struct pg_fleet	*f;
	static struct pg_round	*r;
	struct pg_state		 state, *st = &state;
	const struct pg_config	*cfg;
	const char		*conf = NULL, *wopt = NULL, *copt = NULL;
	char			 err[PG_ERR_MAX], *out;
	size_t			 i, nf;
	int			 ch, json = 0, pflag = 0, tflag = 0, bad = 0;

	argv[0] = (char *)getprogname();
	tool_options(argc, argv, OPTS, USAGE);
	/* A long option (--json) is no -p, though getopt finds a 'p' in it. */
	for (i = 1; i < (size_t)argc && argv[i][0] == '-' &&
	    strcmp(argv[i], "--") != 0; i++)
		if (argv[i][1] == '-')
			tool_usage(USAGE);
		else if (argv[i][1] != '\0' && argv[i][2] == '\0' &&
		    strchr("Ccw", argv[i][1]) != NULL)
			i++;		/* its argument */
	while ((ch = getopt(argc, argv, OPTS)) != -1) {
		switch (ch) {
		case 'C':
			copt = optarg;
			break;
		case 'c':
			conf = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'p':
			pflag = 1;
			break;
		case 't':
			tflag = 1;
			break;
		case 'w':
			wopt = optarg;
			break;
		default:
			bad = 1;
		}
	}
	argc -= optind;
	argv += optind;
	if (pflag)
		status_plugin(conf, argc, argv, wopt, copt, bad || json ||
		    tflag, USAGE);
	if (bad || argc > 1 || wopt != NULL || copt != NULL || (tflag && json))
		tool_usage(USAGE);

	openlog(getprogname(), LOG_PID, LOG_USER);
	tool_config(&t, conf, argc == 1 ? argv[0] : NULL);
	cfg = t.cfg;
	if (pg_peers_init() == -1)
		tool_die(EX_SOFTWARE, "libcurl cannot be initialised");
	if (tflag)
		return status_test(cfg, t.cluster);
	/* Read only: status never creates it; none yet, every cluster never. */
	if (pg_state_open(st, cfg->state, 0, err, sizeof(err)) == -1) {
		if (errno != ENOENT)
			tool_die(errno == EPERM ? EX_CONFIG : EX_IOERR, "%s",
			    err);
		st = NULL;
	}

	nf = t.cluster != NULL ? 1 : cfg->nclusters;
	if ((f = calloc(nf + 1, sizeof(*f))) == NULL ||
	    (r = calloc(nf + 1, sizeof(*r))) == NULL)
		tool_die_errno(EX_OSERR, "memory");
	for (i = 0; i < nf; i++)
		status_ask(cfg, t.cluster != NULL ? t.cluster :
		    &cfg->clusters[i], st, &r[i], &f[i]);

	if ((out = json ? pg_fleet_json(PG_VERSION, cfg->node, f, nf) :
	    pg_fleet_table(f, nf)) == NULL)
		tool_die_errno(EX_OSERR, "formatting the status");
	if (fputs(out, stdout) == EOF)
		tool_die_errno(EX_IOERR, "stdout");
	bad = prefer_lines(f, nf, json);
	if (fflush(stdout) == EOF)
		tool_die_errno(EX_IOERR, "stdout");
	free(out);
	bad |= complain(f, nf);
	return bad ? EXIT_PARTIAL : 0;
}
