/* The subcommands and their --help texts. */
#ifndef CGS_CLI_COMMANDS_H
#define CGS_CLI_COMMANDS_H

int cgs_cmd_check(int argc, char **argv);
int cgs_cmd_orders(int argc, char **argv);
int cgs_cmd_plan(int argc, char **argv);
int cgs_cmd_compile(int argc, char **argv);
int cgs_cmd_report(int argc, char **argv);
int cgs_cmd_dump(int argc, char **argv);
int cgs_cmd_verify(int argc, char **argv);
int cgs_cmd_plot(int argc, char **argv);
int cgs_cmd_replay(int argc, char **argv);
int cgs_cmd_pack(int argc, char **argv);

#define CGS_LIMIT_HELP \
	"  --limit NAME=VALUE  raise or lower an input limit (see cgslot(1))\n"

#define CGS_CHECK_USAGE \
	"usage: cgslot check [-j N] [--limit NAME=VALUE]... SCHEDULE...\n" \
	"\n" \
	"Validate each schedule (YAML or JSON) and every capture order it\n" \
	"implies, then plan it and build its manifest in memory as compile\n" \
	"does, so a schedule check passes is one compile accepts.  Writes\n" \
	"nothing; prints nothing but errors; exits 0 when all are valid, 1 if\n" \
	"any is not.\n" \
	"\n" \
	"  -j, --jobs N       plan on N threads (default: $CGSLOT_JOBS, else\n" \
	"                     the processors this process may run on)\n" \
	CGS_LIMIT_HELP

#define CGS_ORDERS_USAGE \
	"usage: cgslot orders --pp P [--vpp M] [--group G] --microbatches N --rank R\n" \
	"       cgslot orders [--limit NAME=VALUE]... SCHEDULE\n" \
	"\n" \
	"Print Megatron's capture order for one pipeline rank as one line of\n" \
	"space-separated signed chunk ids (+c forward, -c backward), or every\n" \
	"planned (rank, microbatch count) order of a schedule, one per line,\n" \
	"prefixed 'rank R microbatches N:'.\n" \
	"\n" \
	"  --pp P             pipeline-parallel size, >= 1\n" \
	"  --vpp M            model chunks per rank, default 1\n" \
	"  --group G          microbatch group, default P\n" \
	"  --microbatches N   microbatches in the iteration, >= 1\n" \
	"  --rank R           pipeline rank, 0 <= R < P\n" \
	CGS_LIMIT_HELP

#define CGS_PLAN_USAGE \
	"usage: cgslot plan [--format text|json|te-plan] [--max-slots N]\n" \
	"                   [--per-rank-slots] [--slot-maps] [--explore-slots]\n" \
	"                   [-j N]\n" \
	"                   [--limit NAME=VALUE]... SCHEDULE\n" \
	"\n" \
	"Plan the slot ring, frame colours and byte offsets of every planned\n" \
	"rank and print the plan; no manifest is written.\n" \
	"\n" \
	"  --format text      a readable per-rank summary (default)\n" \
	"  --format json      the memory report as JSON\n" \
	"  --format te-plan   upstream's seven-field slot plan as JSON\n" \
	"  --max-slots N      try every ring from the smallest safe one up to\n" \
	"                     N and keep the fewest bytes (slots: {max: N})\n" \
	"  --per-rank-slots   let every rank choose its own ring\n" \
	"                     (slots: {per_rank: true})\n" \
	"  --slot-maps        try a slot map per microbatch count (and\n" \
	"                     chunk) instead of k mod S on every ring; keep\n" \
	"                     it where it saves bytes (slots: {map: true});\n" \
	"                     no extra graphs\n" \
	"  --explore-slots    print each rank's bytes and graphs for every\n" \
	"                     ring tried (up to twice the smallest without\n" \
	"                     --max-slots) instead of the plan\n" \
	"  -j, --jobs N       plan ranks and rings on N threads (default:\n" \
	"                     $CGSLOT_JOBS, else the processors this process\n" \
	"                     may run on); the plan is the same for any N\n" \
	CGS_LIMIT_HELP

#define CGS_COMPILE_USAGE \
	"usage: cgslot compile [--quiet] [-j N] [--limit NAME=VALUE]... SCHEDULE -o MANIFEST\n" \
	"\n" \
	"Plan the schedule and write its binary slot manifest atomically: a\n" \
	"failed compile leaves any earlier MANIFEST untouched.  A symbolic link\n" \
	"is followed; a device or FIFO (/dev/stdout on a pipe) is written through.\n" \
	"\n" \
	"  -o, --output FILE  the manifest to write (not the schedule itself)\n" \
	"  -j, --jobs N       plan on N threads (default: $CGSLOT_JOBS, else\n" \
	"                     the processors this process may run on); the\n" \
	"                     manifest is the same for any N\n" \
	CGS_LIMIT_HELP

#define CGS_REPORT_USAGE \
	"usage: cgslot report [--format text|json] MANIFEST\n" \
	"\n" \
	"Print the memory report of a manifest: the same report 'cgslot plan'\n" \
	"prints for the schedule it came from.\n" \
	"\n" \
	"  --format text      a readable per-rank summary (default)\n" \
	"  --format json      the memory report as JSON\n"

#define CGS_DUMP_USAGE \
	"usage: cgslot dump [--format text|json|te-plan] MANIFEST\n" \
	"\n" \
	"Print every section of a manifest for inspection (cgslot-manifest(5)).\n" \
	"\n" \
	"  --format text      for people (default)\n" \
	"  --format json      described by schemas/manifest-dump.schema.json\n" \
	"  --format te-plan   upstream's seven-field slot plan, as 'cgslot plan'\n"

#define CGS_VERIFY_USAGE \
	"usage: cgslot verify [--quiet] [-j N] [--limit NAME=VALUE]...\n" \
	"                     MANIFEST [SCHEDULE]\n" \
	"\n" \
	"Re-derive liveness from the orders stored in MANIFEST and prove that no\n" \
	"two frames that can be live together share bytes, for any reachable\n" \
	"order and any variant per microbatch.  With SCHEDULE, also check that\n" \
	"it is the schedule the manifest was compiled from (same hash) and that\n" \
	"every range holds at least the schedule's bytes.\n" \
	"\n" \
	"Exits 0 when proven, printing one summary line ('MANIFEST: verified\n" \
	"R ranks, ...') unless --quiet; exits 1 with the first violation on\n" \
	"stderr: rank, microbatch count N, order position, both frames (chunk,\n" \
	"slot, layer, variant, role) and their byte ranges.\n" \
	"\n" \
	"  -j, --jobs N       verify ranks on N threads (default: $CGSLOT_JOBS,\n" \
	"                     else the processors this process may run on);\n" \
	"                     the result and the message are the same for any N\n" \
	CGS_LIMIT_HELP

#define CGS_PLOT_USAGE \
	"usage: cgslot plot MANIFEST -o FILE.svg [--rank R] [--microbatches N]\n" \
	"                   [--variants V,...]\n" \
	"\n" \
	"Draw one rank's plan as a standalone SVG picture for a browser.  Top:\n" \
	"one capture order across, arena bytes down, a box for every live\n" \
	"(variant, frame, role) range, coloured by chunk and shaded by variant,\n" \
	"with a tooltip naming it; lines for the arena ends, the lower bound\n" \
	"and the bytes live at each position.  Bottom: bytes per rank with\n" \
	"variants sharing, without sharing, and with upstream's one arena per\n" \
	"colour.  The same manifest and options give the same bytes.\n" \
	"\n" \
	"  -o, --output FILE    the SVG to write (atomically)\n" \
	"  --rank R             pipeline rank to draw (default: the first planned)\n" \
	"  --microbatches N     whose order to draw, a reachable count (default:\n" \
	"                       the largest)\n" \
	"  --variants V,...     variants whose ranges to draw, by name (default:\n" \
	"                       all)\n"

#define CGS_REPLAY_USAGE \
	"usage: cgslot replay MANIFEST [--rank R] [--iterations K] [--seed X]\n" \
	"                     [--device D] [--overlap-test] [--overrun-test]\n" \
	"\n" \
	"GPU self-test: capture a pattern-checking kernel for every graph of the\n" \
	"manifest, replay K iterations with random reachable microbatch counts\n" \
	"and variants, and count corrupted bytes (must be 0).  Reports arena\n" \
	"bytes against the device memory taken, capture and instantiate times,\n" \
	"and the host cost per launch against a bare cudaGraphLaunch loop.\n" \
	"Exits 0 on success, 1 on corruption, 77 when no GPU is present.\n" \
	"\n" \
	"  --rank R          pipeline rank to replay (default: the first planned)\n" \
	"  --iterations K    iterations to replay, default 100\n" \
	"  --seed X          seed of the random counts and variants, default 1\n" \
	"  --device D        CUDA device ordinal, default 0\n" \
	"  --overlap-test    move one frame onto a neighbour that is live at the\n" \
	"                    same time; succeeds only if corruption is reported\n" \
	"  --overrun-test    let one frame's forward graphs also write 16 bytes\n" \
	"                    just past its ranges (a neighbour's bytes or\n" \
	"                    padding), which compute-sanitizer --tool memcheck\n" \
	"                    --nvtx yes must report\n"

#define CGS_PACK_USAGE \
	"usage: cgslot pack INPUT.csv [-o OUTPUT.csv] [--capacity BYTES]\n" \
	"                   [--time-limit S]\n" \
	"\n" \
	"Place buffers with lifetimes at byte offsets so that buffers live at\n" \
	"the same time never overlap, keeping the height low (dynamic storage\n" \
	"allocation).  INPUT.csv ('-' for stdin) has a header row naming the\n" \
	"columns id, lower, upper, size and optionally alignment, then one\n" \
	"buffer per line, live over [lower, upper).  Prints the height, the\n" \
	"lower bound (the largest sum of sizes live at one time) and their\n" \
	"ratio.  The result depends on the input alone unless --time-limit\n" \
	"cuts the search short.\n" \
	"\n" \
	"  -o, --output FILE  write the input rows with an added offset column,\n" \
	"                     atomically\n" \
	"  --capacity BYTES   stop at the first height <= BYTES; exit 1 (and\n" \
	"                     write nothing) when none is found\n" \
	"  --time-limit S     stop searching after S seconds\n"

#endif
