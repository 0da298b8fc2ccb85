/* The schedule validator: document tree -> struct cgs_schedule. */
#ifndef CGS_INPUT_VALIDATE_H
#define CGS_INPUT_VALIDATE_H

#include "input/node.h"
#include "input/schedule.h"

/*
 * Validate a parsed document against schedule format version 1 and build
 * the model.  Errors name doc->file and the offending node's position.
 */
int cgs_schedule_from_doc(const struct cgs_doc *doc,
			  const struct cgs_limits *limits,
			  struct cgs_schedule **out, struct cgs_error *err);

#endif
