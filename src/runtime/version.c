/* The version of the library loaded, for callers built against another. */
#include "cgslot/cgslot.h"

#define CGS_STR_(x) #x
#define CGS_STR(x) CGS_STR_(x)

unsigned cgs_version(void)
{
	return CGSLOT_VERSION_NUMBER;
}

const char *cgs_version_string(void)
{
	return CGS_STR(CGSLOT_VERSION_MAJOR) "." CGS_STR(CGSLOT_VERSION_MINOR)
	       "." CGS_STR(CGSLOT_VERSION_PATCH);
}
