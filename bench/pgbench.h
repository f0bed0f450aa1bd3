/* SPDX-License-Identifier: ISC */
/*
 * pgbench.h: what the subcommands of pgbench, the timing helper of make
 * bench, share. bench/pgbench.c has main, the options, the commands and
 * alt; bench/pgnet.c the network subcommands (req, fan, sink);
 * bench/pgrace.c the race rounds.
 */
#ifndef PGBENCH_H
#define PGBENCH_H

#include <stdint.h>

#define CMDS_MAX	16
#define DIRS_MAX	8
#define ROUNDS_MAX	100000
#define PARALLEL_MAX	64

/* The options of the subcommands; each accepts those its usage lists. */
struct opts {
	const char	*in, *out, *err, *path, *field, *dirs[DIRS_MAX];
	long		 rounds, warm, secs, par, nclus, refs;
	int		 ndirs, each, hold;
};

/* The commands of alt and race, split at ":::" by split(). */
extern char	**cmds[CMDS_MAX];
extern int	  ncmds;

__attribute__((__noreturn__)) void	usage(void);
__attribute__((__noreturn__)) void	die(const char *);
int64_t	now_ns(void);
long	number(const char *, long, long);
int	options(int, char *[], const char *, struct opts *);
void	split(int, char *[]);
int	status_of(int);
int64_t	run1(char **, const char *, const char *, const char *, int *);

int	req(int, char *[]);
int	fan(int, char *[]);
int	sink(int, char *[]);
int	race(int, char *[]);

#endif
