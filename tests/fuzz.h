/*
 * The libFuzzer entry point every fuzz target defines.  Built with
 * -Dfuzzing=true the targets link against libFuzzer; otherwise
 * fuzz_replay.c supplies main() and feeds each file of a corpus, so the
 * corpus replays as an ordinary test.
 */
#ifndef CGS_TESTS_FUZZ_H
#define CGS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
