/* SPDX-License-Identifier: ISC */
/*
 * fleet-int.h: private to fleet.c, which predicts, and fleetout.c, which
 * prints: the growing string both make their text in (fleet.c). Nothing
 * here exits or prints.
 */
#ifndef PG_FLEET_INT_H
#define PG_FLEET_INT_H

#include "fleet.h"

/* A growing string; once a step fails, every later one does nothing. */
struct pg_sbuf {
	char	*p;
	size_t	 len, cap;
	int	 fail;
};

/* The longest piece pg_sb_printf adds: two cells of the table. */
#define PG_SB_PIECE_MAX	(PG_STATUS_TEXT_MAX * 12)

void	 pg_sb_add(struct pg_sbuf *, const char *, size_t);
void	 pg_sb_printf(struct pg_sbuf *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
#define PG_SB_LIT(b, s)	pg_sb_add((b), (s), sizeof(s) - 1)

/* The string made, or NULL and ENOMEM. */
char	*pg_sb_end(struct pg_sbuf *);

/* Text as an operator typed it (a local hold's why), safe to print. */
void	 pg_fleet_safe(const char *, char *, size_t);

#endif
