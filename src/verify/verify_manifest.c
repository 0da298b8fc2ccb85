/*
 * The manifest side of the verifier: copy one rank out of a manifest into
 * the neutral description, using the reader's accessors only.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/error.h"
#include "manifest/manifest.h"
#include "verify/verify.h"
#include "verify/verify_manifest.h"

void cgs_verify_rank_storage_release(struct cgs_verify_rank_storage *st)
{
	if (!st)
		return;
	free(st->layers);
	free(st->variant_names);
	free(st->reachable);
	free(st->order_start);
	free(st->order_entries);
	free(st->arena_bytes);
	free(st->saved);
	free(st->user_grad);
	free(st->saved_frames);
	free(st->user_grad_frames);
	free(st->slot_map);
	free(st->slot_map_start);
	*st = (struct cgs_verify_rank_storage){0};
}

static void copy_ranges(struct cgs_verify_rank_storage *st,
		       const struct cgs_manifest *m, uint32_t ri)
{
	const struct cgs_manifest_info *mi = cgs_manifest_info(m);
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	const struct cgs_manifest_ring *in = &ring;
	uint32_t f, v, r, c, s, l;

	for (c = 0; c < mi->vpp; c++)
		for (s = 0; s < in->slots; s++) {
			struct cgs_manifest_frame ug = cgs_manifest_user_grad_frame(
				m, ri, c * in->slots + s);

			st->user_grad_frames[c * in->slots + s] =
				(struct cgs_verify_range){ug.arena, ug.offset,
							  ug.bytes};

			for (l = 0; l < st->layers[c]; l++) {
				struct cgs_manifest_frame sf;

				f = cgs_manifest_layer_base(m, c) * in->slots +
				    s * st->layers[c] + l;
				sf = cgs_manifest_saved_frame(m, ri, f);
				st->saved_frames[f] = (struct cgs_verify_range){
					sf.arena, sf.offset, sf.bytes};
				for (v = 0; v < mi->n_variants; v++) {
					uint64_t i = (uint64_t)v * in->n_saved + f;
					struct cgs_manifest_range g =
						cgs_manifest_user_grad_layer(m, ri, v, f);

					for (r = 0; r < 3; r++) {
						struct cgs_manifest_range x =
							cgs_manifest_saved_role(m, ri, v, f, r);

						st->saved[i * 3 + r] = (struct cgs_verify_range){
							sf.arena, sf.offset + x.offset, x.bytes};
					}
					st->user_grad[i] = (struct cgs_verify_range){
						ug.arena, ug.offset + g.offset, g.bytes};
				}
			}
		}
}

int cgs_verify_rank_from_manifest(struct cgs_verify_rank_storage *st,
				  const struct cgs_manifest *m, uint32_t ri,
				  struct cgs_error *err)
{
	const struct cgs_manifest_info *in = cgs_manifest_info(m);
	struct cgs_manifest_ring ring = cgs_manifest_rank_ring(m, ri);
	struct cgs_verify_rank *vr = &st->view;
	uint64_t total = 0, ranges = (uint64_t)ring.n_saved * in->n_variants;
	uint64_t mapped = 0;
	uint32_t i, k, n_reach = cgs_manifest_reachable_count(m, ri), a, c;
	uint32_t rows;

	*st = (struct cgs_verify_rank_storage){0};
	st->layers = malloc(in->vpp * sizeof(*st->layers));
	st->variant_names = malloc(in->n_variants * sizeof(*st->variant_names));
	st->reachable = malloc((n_reach + 1) * sizeof(*st->reachable));
	st->order_start = malloc((n_reach + 1) * sizeof(*st->order_start));
	st->arena_bytes = malloc((cgs_manifest_arena_count(m, ri) + 1) *
				 sizeof(*st->arena_bytes));
	st->saved = malloc((ranges * 3 + 1) * sizeof(*st->saved));
	st->user_grad = malloc((ranges + 1) * sizeof(*st->user_grad));
	st->saved_frames = malloc(((size_t)ring.n_saved + 1) *
				  sizeof(*st->saved_frames));
	st->user_grad_frames = malloc(((size_t)ring.n_user_grad + 1) *
				      sizeof(*st->user_grad_frames));
	if (!st->layers || !st->variant_names || !st->reachable ||
	    !st->order_start || !st->arena_bytes || !st->saved ||
	    !st->user_grad || !st->saved_frames || !st->user_grad_frames)
		goto nomem;
	for (i = 0; i < in->vpp; i++)
		st->layers[i] = cgs_manifest_chunk_layers(m, i);
	for (i = 0; i < in->n_variants; i++)
		st->variant_names[i] = cgs_manifest_variant_name(m, i);
	st->order_start[0] = 0;
	for (i = 0; i < n_reach; i++) {
		st->reachable[i] = cgs_manifest_reachable(m, ri, i);
		total += cgs_manifest_order_length(m, ri, i);
		st->order_start[i + 1] = total;
	}
	st->order_entries = malloc((total + 1) * sizeof(*st->order_entries));
	if (!st->order_entries)
		goto nomem;
	for (i = 0; i < n_reach; i++)
		cgs_manifest_order_decode(m, ri, i,
					  st->order_entries + st->order_start[i]);
	/* The stored map as it is, a row per count and (where the map has
	 * them) per chunk; the verifier proves it safe itself. */
	rows = ring.slot_map_per_chunk ? in->vpp : 1;
	if (ring.slot_map) {
		st->slot_map_start = malloc(((size_t)n_reach * rows + 1) *
					    sizeof(*st->slot_map_start));
		for (i = 0; i < n_reach; i++)
			mapped += (uint64_t)st->reachable[i] * rows;
		st->slot_map = malloc((mapped + 1) * sizeof(*st->slot_map));
		if (!st->slot_map_start || !st->slot_map)
			goto nomem;
		for (i = 0, mapped = 0; i < n_reach; i++)
			for (c = 0; c < rows; c++) {
				st->slot_map_start[(size_t)i * rows + c] = mapped;
				for (k = 0; k < st->reachable[i]; k++)
					st->slot_map[mapped++] =
						cgs_manifest_slot(m, ri, i, c, k);
			}
	}
	for (a = 0; a < cgs_manifest_arena_count(m, ri); a++)
		st->arena_bytes[a] = cgs_manifest_arena(m, ri, a).bytes;
	copy_ranges(st, m, ri);

	vr->rank = cgs_manifest_rank_id(m, ri);
	vr->slots = ring.slots;
	vr->slot_map = st->slot_map;
	vr->slot_map_start = st->slot_map_start;
	vr->slot_map_rows = rows;
	vr->vpp = in->vpp;
	vr->layers = st->layers;
	vr->n_variants = in->n_variants;
	vr->variant_names = st->variant_names;
	vr->n_reachable = n_reach;
	vr->reachable = st->reachable;
	vr->order_start = st->order_start;
	vr->order_entries = st->order_entries;
	vr->n_arenas = cgs_manifest_arena_count(m, ri);
	vr->arena_bytes = st->arena_bytes;
	vr->alignment = in->alignment;
	vr->n_saved = ring.n_saved;
	vr->saved = st->saved;
	vr->user_grad = st->user_grad;
	vr->saved_frames = st->saved_frames;
	vr->user_grad_frames = st->user_grad_frames;
	return 0;
nomem:
	cgs_verify_rank_storage_release(st);
	return cgs_error_set(err, CGS_E_NOMEM,
			     "out of memory reading rank index %" PRIu32
			     " of the manifest", ri);
}

/* Read rank index ri out of the manifest and prove it. */
static int verify_one(const struct cgs_manifest *m, uint32_t ri,
		      struct cgs_verify_stats *stats, struct cgs_error *err)
{
	struct cgs_verify_rank_storage st;
	int rc = cgs_verify_rank_from_manifest(&st, m, ri, err);

	if (rc)
		return rc;
	rc = cgs_verify_rank_check(&st.view, stats, err);
	cgs_verify_rank_storage_release(&st);
	return rc;
}

/*
 * Ranks shared out to threads.  Each takes the next rank index; indices
 * are handed out in increasing order, so once a rank has failed, a
 * thread whose next index lies above it stops, and the lowest failing
 * rank's message is the one reported, as on one thread.
 */
struct verify_pool {
	const struct cgs_manifest *m;
	uint32_t n;
	atomic_uint next;
	pthread_mutex_t lock;
	uint32_t failed;              /* lowest failing index; n: none */
	int rc;
	struct cgs_error err;         /* the lowest failing rank's */
};

struct verify_worker {
	struct verify_pool *pool;
	struct cgs_verify_stats stats;
	pthread_t thread;
};

static void *verify_work(void *arg)
{
	struct verify_worker *w = arg;
	struct verify_pool *pool = w->pool;
	struct cgs_error err;

	for (;;) {
		uint32_t ri = atomic_fetch_add(&pool->next, 1), failed;
		int rc;

		if (ri >= pool->n)
			break;
		pthread_mutex_lock(&pool->lock);
		failed = pool->failed;
		pthread_mutex_unlock(&pool->lock);
		if (ri > failed)
			break;
		err = (struct cgs_error){0};
		rc = verify_one(pool->m, ri, &w->stats, &err);
		if (rc) {
			pthread_mutex_lock(&pool->lock);
			if (ri < pool->failed) {
				pool->failed = ri;
				pool->rc = rc;
				pool->err = err;
			}
			pthread_mutex_unlock(&pool->lock);
			break;
		}
	}
	return NULL;
}

int cgs_verify_manifest_jobs(const struct cgs_manifest *m, unsigned jobs,
			     struct cgs_verify_stats *stats,
			     struct cgs_error *err)
{
	const struct cgs_manifest_info *in;
	struct verify_pool pool;
	struct verify_worker *w;
	uint32_t ri;
	unsigned i, started;
	int rc = 0;

	if (!m)
		return cgs_error_set(err, CGS_E_ARG, "no manifest to verify");
	in = cgs_manifest_info(m);
	if (jobs > in->n_ranks)
		jobs = in->n_ranks;
	if (jobs <= 1) {
		for (ri = 0; ri < in->n_ranks && rc == 0; ri++)
			rc = verify_one(m, ri, stats, err);
		return rc;
	}
	w = calloc(jobs, sizeof(*w));
	if (!w)
		return cgs_error_set(err, CGS_E_NOMEM,
				     "out of memory verifying on %u threads",
				     jobs);
	pool = (struct verify_pool){.m = m, .n = in->n_ranks,
				    .failed = in->n_ranks};
	atomic_init(&pool.next, 0);
	if (pthread_mutex_init(&pool.lock, NULL) != 0) {
		free(w);
		return cgs_verify_manifest_jobs(m, 1, stats, err);
	}
	/* the calling thread is worker 0; fewer threads where one fails to
	 * start (the others take its ranks) */
	for (i = 1, started = 1; i < jobs; i++) {
		w[started].pool = &pool;
		if (pthread_create(&w[started].thread, NULL, verify_work,
				   &w[started]) == 0)
			started++;
	}
	w[0].pool = &pool;
	verify_work(&w[0]);
	for (i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	pthread_mutex_destroy(&pool.lock);
	if (pool.failed < pool.n) {
		rc = pool.rc;
		if (err)
			*err = pool.err;
	} else if (stats) {
		for (i = 0; i < started; i++) {
			stats->ranks += w[i].stats.ranks;
			stats->orders += w[i].stats.orders;
			stats->events += w[i].stats.events;
			stats->ranges += w[i].stats.ranges;
			stats->pairs += w[i].stats.pairs;
		}
	}
	free(w);
	return rc;
}

int cgs_verify_manifest(const struct cgs_manifest *m,
			struct cgs_verify_stats *stats, struct cgs_error *err)
{
	return cgs_verify_manifest_jobs(m, 1, stats, err);
}
