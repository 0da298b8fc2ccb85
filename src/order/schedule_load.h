/*
 * Loading a schedule completely: the document and the model (src/input),
 * then every check that needs capture orders (src/order): explicit orders
 * drain, and the orders to plan stay within the order_entries limit.
 * Everything that reads a schedule to act on it loads it through here;
 * src/input itself knows nothing of orders.
 */
#ifndef CGS_ORDER_SCHEDULE_LOAD_H
#define CGS_ORDER_SCHEDULE_LOAD_H

#include <stddef.h>

#include "cgslot/error.h"
#include "input/limits.h"
#include "input/schedule.h"

/*
 * cgs_schedule_parse() and cgs_schedule_check_orders(); *out is set only
 * on success.  Errors carry the file, line and column.
 */
int cgs_schedule_load(const char *path, const struct cgs_limits *limits,
		      struct cgs_schedule **out, struct cgs_error *err);

int cgs_schedule_load_buffer(const char *name, const void *buf, size_t len,
			     const struct cgs_limits *limits,
			     struct cgs_schedule **out, struct cgs_error *err);

/*
 * The order checks alone on a parsed schedule: a ring the schedule asks
 * for (slots, slots.max) times its layers stays within limits->frames
 * (CGS_E_LIMIT at pipeline.slots), each explicit order is well formed
 * (CGS_E_ORDER at the offending entry, or at its list when it ends with
 * forwards pending), and the entries of every order planning
 * builds (explicit ones, and Megatron's for each reachable count on ranks
 * without) stay within limits->order_entries (CGS_E_LIMIT at
 * pipeline.max_microbatches).  limits may be NULL for the defaults.
 */
int cgs_schedule_check_orders(const struct cgs_schedule *s,
			      const struct cgs_limits *limits,
			      struct cgs_error *err);

#endif
