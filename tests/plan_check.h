/*
 * An independent checker for plans, used by the tests.  It shares no code
 * with src/plan: it reads only the fields of struct cgs_plan, the schedule
 * and the orders from cgs_rank_orders, replays every reachable order of
 * every rank and proves that frames live at the same time never share
 * bytes or colours.
 */
#ifndef CGS_TESTS_PLAN_CHECK_H
#define CGS_TESTS_PLAN_CHECK_H

#include <stddef.h>

#include "plan/plan.h"

/*
 * Returns 0 when the plan is safe and consistent, else -1 with the first
 * problem described in msg (size bytes).
 */
int cgs_plan_check(const struct cgs_schedule *s, const struct cgs_plan *p,
		   char *msg, size_t size);

#endif
