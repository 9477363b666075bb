// hyblas device loop: many rounds of `frontier ⊕.⊗ A` in one persistent cooperative kernel,
// with a grid-wide barrier between rounds instead of a kernel launch and a host round trip.
// See hyblas/traversal/propagation.py for what a round computes (propagate) and
// hyblas/traversal/emulation.py for the same protocol in NumPy.
//
// Specialized per (semiring, operand type, index types) by string.Template:
//   ${T} operand type, ${Z} result type, ${MULT} / ${ADD} expressions in x and y,
//   ${IDENTITY} the add monoid's identity, ${WORD} / ${TO_WORD} / ${FROM_WORD} the accumulator
//   word and its conversions, ${ATOMIC} the combine of v into *slot, ${ANY} 1 for the `any` add
//   monoid (else 0), ${P} / ${I} the CSR's indptr / indices types, ${BLOCKS_PER_SM} the
//   occupancy the launch bounds promise.
//
// A round walks the out-edges (row u of A's CSR) of every queued vertex u: light ones of at most
// thread_edges edges a thread each, other light ones a warp each, heavy ones a block each, and
// huge ones (more than `huge` edges) with the whole grid, their edges dealt out evenly over all
// the threads in one pass (when a round queues at most HYBLAS_HUGE_LIST of them; more, and they
// are heavy ones, the grid kept busy anyway); and
// appends each vertex that the round changes to the next queue (light at the front, the others
// from the back of the queue's region) with warp-aggregated atomics, adding up the next queue's
// edges as it goes (one atomic a block, at the round's end). After the barrier every thread reads
// the same counts, so all of them take the same decision to stop or go on.
//
// LEVELS (propagate(levels=True)): a vertex is reached once, and the setup is O(frontier), not
// O(n) (ws and stamp are kept between calls, hyblas/traversal/stamps.py). A vertex was reached
// before the call if visited[v] (the state's presence, when check_visited) or stamp[v] is the
// state's stamp (the kernel first stamps a sparse state's vertices so: stamp_offset - first_round
// + 1); stamps from earlier calls are below prestamp, and round r of this call stamps
// stamp_offset - r (above prestamp, below the state's): the stamps fall from round to round, so
// one atomicMax stamps a vertex, keeping the first round's stamp, and tells whether the vertex
// was reached before (its old stamp is at least prestamp). Contributions of the
// round are combined into ws[v] (the identity between rounds, left so) and copied out to the next
// queue's values after the barrier; in the `any` monoid (HYBLAS_ANY_MONOID) the vertex's value is
// the contribution of the edge that stamped it, written into the next queue as it is queued, so
// a round ends at one barrier instead of two (no copy-out, ws not used). The rounds' queues follow
// each other in one region (each vertex is queued once), so at the end the host finds every
// vertex reached in the queues, with its round in stamp.
// PULL rounds (LEVELS only, pull_rounds): a round whose frontier has more than exit_edges
// out-edges does not push them; every vertex not reached yet walks its in-edges instead (row w
// of the transpose's CSR, pull_indptr / pull_indices / pull_weights) until one comes from the
// frontier, and the first such edge reaches it: the direction-optimizing BFS's bottom-up step.
// The frontier is the vertices stamped in the round before (in the first round, pull_first),
// read as a bitmap, pull_bits (bit u & 31 of word u >> 5; two of them, taken by round parity):
// a pull round writes its reached vertices' bitmap word by word (a warp's ballot), and a pull
// round after a push round first sets the bits of the push round's queue. The frontier test,
// the round's one read at a random place per in-edge, then reads a few hundred kilobytes that
// stay in the caches (L1 and L2) instead of the 8-byte stamps (tens of megabytes on a large
// graph).
// propagate pulls only where that is the product: the add monoid is `any` and the multiply
// ignores the frontier's value (pair, second).
// Otherwise (improve): ws[v] is the state itself, present[v] its presence, and stamp[v] the last
// round that queued v; a contribution that changes the state (or makes it present) queues v. The
// queues alternate between two regions by round parity.
//
// BUCKETED improve rounds (propagate(delta=...), hyblas/traversal/buckets.py): a round first
// sets its threshold from the queue's minimum (combined into minima[parity], as an order key
// for one native atomicMin, while the queue's values were given out), then walks only the near
// vertices and carries the far ones into the next queue (deduplicated by the same round stamp
// as the improved ones); the next queue's values are the state's. bucket = [threshold, delta,
// limit, top] in accumulator words.
//
// The 32 lanes of a warp call the queue and edge helpers together (ballots, shuffles); a lane
// without work calls them with valid / want false.

#include <cooperative_groups.h>

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;
typedef ${P} hyblas_p;
typedef ${I} hyblas_i;

#define HYBLAS_THREADS 256   // THREADS in params.py
#define HYBLAS_WARP 32
#define HYBLAS_BLOCKS_PER_SM ${BLOCKS_PER_SM}
#define HYBLAS_HUGE_LIST 256  // HUGE_LIST in device_loop.py; at most HYBLAS_THREADS
#define HYBLAS_PULL_STEP 4
#define HYBLAS_ANY_MONOID ${ANY}
// A queue's counters come in three sets. Rounds that end at one barrier take them by round modulo
// 3: round r appends to set r % 3 while it reads set (r - 1) % 3, and set (r + 1) % 3, the one
// round r + 1 appends to, was cleared after round r - 1's barrier; so no set is read and written
// at once. The others take sets 0 and 1 by parity: their second barrier orders the clearing.
#define HYBLAS_SETS 3
// counters: [0, 9) the three sets ([light count, other count, edges of the queued vertices]);
// then these, and [HYBLAS_HUGE_COUNTS + set] the set's huge vertices
#define HYBLAS_WALKED 9        // out-edges walked and in-edges pulled (for the trace)
#define HYBLAS_LIGHT_BASE 10   // LEVELS: where the last queue's light entries start in the region
#define HYBLAS_OTHER_BASE 11   // ... and its other entries, from the region's back
#define HYBLAS_ROUNDS 12       // the rounds run
#define HYBLAS_FIRST_LIGHT 13  // the first queue's light count
#define HYBLAS_HUGE_COUNTS 14

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }
__device__ __forceinline__ hyblas_word hyblas_to_word(hyblas_z v) { ${TO_WORD} }
__device__ __forceinline__ hyblas_z hyblas_from_word(hyblas_word w) { ${FROM_WORD} }
__device__ __forceinline__ void hyblas_atomic_combine(hyblas_word* slot, hyblas_z v) { ${ATOMIC} }

struct hyblas_loop_view {
    long long n;
    const hyblas_p* indptr;
    const hyblas_i* indices;
    const hyblas_t* weights;
    hyblas_t* first_values;        // the first queue's values (operand type), set up by the kernel
    hyblas_word* ws;
    bool* present;
    long long* stamp;
    long long cap;                 // a queue region's length
    long long heavy;               // more edges than this: a block per vertex, not a warp
    long long huge;                // more edges than this (and heavy): the grid, not a block
    const bool* visited;           // LEVELS: the state's presence (read when check_visited)
    int check_visited;
    long long prestamp;            // LEVELS: stamps below this are older than the call
    long long stamp_offset;        // LEVELS: round r stamps stamp_offset - r
    int read_stamps;               // LEVELS: read a stamp before its atomic (see the edge)
};

// One round's queue: its region of the queue and value arrays, its counters ([light count,
// other count, edges of the queued vertices]), where its light / other entries start, and the
// slots of its huge vertices (the first HYBLAS_HUGE_LIST of them; huge_count counts all).
struct hyblas_queue {
    long long* ids;
    hyblas_z* values;
    unsigned long long* count;
    long long light_base, other_base;
    unsigned long long* huge_count;
    long long* huge_slots;
};

// List the huge vertex at `slot` of q (one atomic per huge vertex: few of them).
__device__ __forceinline__ void hyblas_list_huge(const hyblas_queue& q, long long slot) {
    const unsigned long long k = atomicAdd(q.huge_count, 1ull);
    if (k < HYBLAS_HUGE_LIST) q.huge_slots[k] = slot;
}

// The queue's i-th entry: light vertices from the front of the region, the others from the back.
__device__ __forceinline__ long long hyblas_slot(const hyblas_loop_view& v, const hyblas_queue& q,
                                                 long long light, long long i) {
    return i < light ? q.light_base + i : v.cap - 1 - q.other_base - (i - light);
}

// Order keys: unsigned 64-bit integers in the order of the values (for the min of a queue with
// one native atomicMin, where a compare-and-swap loop on one word stalls under contention).
#define HYBLAS_SIGN 0x8000000000000000ull
__device__ __forceinline__ unsigned long long hyblas_order_key(double v) {
    const unsigned long long b = (unsigned long long)__double_as_longlong(v);
    return (b & HYBLAS_SIGN) ? ~b : (b | HYBLAS_SIGN);
}
__device__ __forceinline__ unsigned long long hyblas_order_key(float v) { return hyblas_order_key((double)v); }
__device__ __forceinline__ unsigned long long hyblas_order_key(long long v) { return (unsigned long long)v ^ HYBLAS_SIGN; }
__device__ __forceinline__ unsigned long long hyblas_order_key(int v) { return hyblas_order_key((long long)v); }
__device__ __forceinline__ unsigned long long hyblas_order_key(short v) { return hyblas_order_key((long long)v); }
__device__ __forceinline__ unsigned long long hyblas_order_key(signed char v) { return hyblas_order_key((long long)v); }
__device__ __forceinline__ unsigned long long hyblas_order_key(unsigned long long v) { return v; }
__device__ __forceinline__ unsigned long long hyblas_order_key(unsigned int v) { return v; }
__device__ __forceinline__ unsigned long long hyblas_order_key(unsigned short v) { return v; }
__device__ __forceinline__ unsigned long long hyblas_order_key(unsigned char v) { return v; }
__device__ __forceinline__ unsigned long long hyblas_order_key(bool v) { return v ? 1ull : 0ull; }
__device__ __forceinline__ double hyblas_from_order_key(unsigned long long k, const double*) {
    return __longlong_as_double((long long)((k & HYBLAS_SIGN) ? (k & ~HYBLAS_SIGN) : ~k));
}
__device__ __forceinline__ float hyblas_from_order_key(unsigned long long k, const float*) {
    return (float)hyblas_from_order_key(k, (const double*)0);
}
#define HYBLAS_SIGNED_KEY(Z) __device__ __forceinline__ Z hyblas_from_order_key( \
    unsigned long long k, const Z*) { return (Z)(long long)(k ^ HYBLAS_SIGN); }
#define HYBLAS_UNSIGNED_KEY(Z) __device__ __forceinline__ Z hyblas_from_order_key( \
    unsigned long long k, const Z*) { return (Z)k; }
HYBLAS_SIGNED_KEY(long long) HYBLAS_SIGNED_KEY(int) HYBLAS_SIGNED_KEY(short)
HYBLAS_SIGNED_KEY(signed char) HYBLAS_UNSIGNED_KEY(unsigned long long)
HYBLAS_UNSIGNED_KEY(unsigned int) HYBLAS_UNSIGNED_KEY(unsigned short)
HYBLAS_UNSIGNED_KEY(unsigned char)
__device__ __forceinline__ bool hyblas_from_order_key(unsigned long long k, const bool*) { return k != 0ull; }

// Combine the valid lanes' values with the add monoid (min) and that into *slot as an order key,
// one atomic per warp; every lane must call this.
__device__ __forceinline__ void hyblas_warp_min_key(unsigned long long* slot, bool valid,
                                                    hyblas_z value) {
    hyblas_word w = hyblas_to_word(valid ? value : (hyblas_z)(${IDENTITY}));
    for (int offset = HYBLAS_WARP / 2; offset > 0; offset /= 2) {
        const hyblas_word other = __shfl_down_sync(0xffffffffu, w, offset);
        w = hyblas_to_word(hyblas_add(hyblas_from_word(w), hyblas_from_word(other)));
    }
    const hyblas_word none = hyblas_to_word((hyblas_z)(${IDENTITY}));
    if ((threadIdx.x & (HYBLAS_WARP - 1)) == 0 && w != none)
        atomicMin(slot, hyblas_order_key(hyblas_from_word(w)));
}

__device__ __forceinline__ long long hyblas_degree(const hyblas_loop_view& v, long long u) {
    return (long long)v.indptr[u + 1] - (long long)v.indptr[u];
}

// Append `vertex`, of `degree` out-edges, to the queue `q` where `want`, adding its out-edges to
// `edges` (the thread's count, added to q.count[2] once a round: hyblas_add_edges), and return
// its slot (-1 where not `want`); every lane of the warp must call this. (The caller loads the
// degree, so that it can do so alongside the atomic that decides `want`, not after it.)
__device__ __forceinline__ long long hyblas_enqueue(const hyblas_loop_view& v,
                                                    const hyblas_queue& q, bool want,
                                                    long long vertex, long long degree,
                                                    unsigned long long& edges) {
    if (!want) degree = 0;
    const bool light = want && degree <= v.heavy;
    const unsigned int light_lanes = __ballot_sync(0xffffffffu, light);
    const unsigned int other_lanes = __ballot_sync(0xffffffffu, want && !light);
    if ((light_lanes | other_lanes) == 0u) return -1;
    edges += (unsigned long long)degree;
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    unsigned long long* count = q.count;
    unsigned long long light_base = 0, other_base = 0;
    if (lane == 0) {
        if (light_lanes) light_base = atomicAdd(&count[0], (unsigned long long)__popc(light_lanes));
        if (other_lanes) other_base = atomicAdd(&count[1], (unsigned long long)__popc(other_lanes));
    }
    light_base = __shfl_sync(0xffffffffu, light_base, 0);
    other_base = __shfl_sync(0xffffffffu, other_base, 0);
    const unsigned int below = (1u << lane) - 1u;
    if (!want) return -1;
    const long long slot = light
        ? q.light_base + (long long)(light_base + __popc(light_lanes & below))
        : v.cap - 1 - q.other_base - (long long)(other_base + __popc(other_lanes & below));
    q.ids[slot] = vertex;
    if (!light && degree > v.huge) hyblas_list_huge(q, slot);
    return slot;
}

// hyblas_enqueue for a whole block at once: one atomic per counter a block, not a warp (a pull
// round queues vertices from nearly every warp: an atomic per warp on the same counter stalls
// it). Every thread of the block must call this.
#define HYBLAS_BLOCK_WARPS (HYBLAS_THREADS / HYBLAS_WARP)
__device__ __forceinline__ long long hyblas_block_enqueue(const hyblas_loop_view& v,
                                                          const hyblas_queue& q, bool want,
                                                          long long vertex,
                                                          unsigned long long& edges) {
    __shared__ int lights[HYBLAS_BLOCK_WARPS], others[HYBLAS_BLOCK_WARPS];
    __shared__ unsigned long long reserved[2];
    const int lane = threadIdx.x & (HYBLAS_WARP - 1), warp = threadIdx.x / HYBLAS_WARP;
    const long long degree = want ? hyblas_degree(v, vertex) : 0;
    const bool light = want && degree <= v.heavy;
    const unsigned int light_lanes = __ballot_sync(0xffffffffu, light);
    const unsigned int other_lanes = __ballot_sync(0xffffffffu, want && !light);
    if (lane == 0) {
        lights[warp] = __popc(light_lanes);
        others[warp] = __popc(other_lanes);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long light_n = 0, other_n = 0;
        for (int k = 0; k < HYBLAS_BLOCK_WARPS; ++k) {
            light_n += (unsigned long long)lights[k];
            other_n += (unsigned long long)others[k];
        }
        reserved[0] = light_n ? atomicAdd(&q.count[0], light_n) : 0ull;
        reserved[1] = other_n ? atomicAdd(&q.count[1], other_n) : 0ull;
    }
    __syncthreads();
    long long light_before = (long long)reserved[0], other_before = (long long)reserved[1];
    for (int k = 0; k < warp; ++k) {
        light_before += lights[k];
        other_before += others[k];
    }
    __syncthreads();  // read before the next call writes them
    if (!want) return -1;
    edges += (unsigned long long)degree;
    const unsigned int below = (1u << lane) - 1u;
    const long long slot = light
        ? q.light_base + light_before + __popc(light_lanes & below)
        : v.cap - 1 - q.other_base - (other_before + __popc(other_lanes & below));
    q.ids[slot] = vertex;
    if (!light && degree > v.huge) hyblas_list_huge(q, slot);
    return slot;
}

// Add the block's `edges` to *total with one atomic (an atomic a warp on the one counter stalls
// a round in which most warps queue a vertex); every thread of the block must call this, at the
// end of a round: the grid barrier after it orders thread 0's reads of `sums` before the next
// round's writes.
__device__ __forceinline__ void hyblas_add_edges(unsigned long long* total,
                                                 unsigned long long edges) {
    __shared__ unsigned long long sums[HYBLAS_BLOCK_WARPS];
    __syncwarp();
    for (int offset = HYBLAS_WARP / 2; offset > 0; offset /= 2)
        edges += __shfl_down_sync(0xffffffffu, edges, offset);
    if ((threadIdx.x & (HYBLAS_WARP - 1)) == 0) sums[threadIdx.x / HYBLAS_WARP] = edges;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long all = 0;
        for (int w = 0; w < HYBLAS_BLOCK_WARPS; ++w) all += sums[w];
        if (all) atomicAdd(total, all);
    }
}

// One edge of round r from a vertex of value x; every lane of the warp must call this.
template <bool LEVELS>
__device__ __forceinline__ void hyblas_loop_edge(const hyblas_loop_view& v, long long r,
                                                 const hyblas_queue& out, bool valid, long long e,
                                                 hyblas_t x, unsigned long long& edges) {
    bool queue_it = false;
    long long w = 0, degree = 0;
    hyblas_z z = (hyblas_z)0;
    if (valid) {
        w = (long long)v.indices[e];
        z = hyblas_mult(x, v.weights[e]);
        if (LEVELS) {
            if (!(v.check_visited && v.visited[w])) {
                const long long tag = v.stamp_offset - r;
                // the read spares a vertex reached before its atomic (where some vertices get
                // many of a round's edges); without it the round's chain is a load shorter
                long long s = v.read_stamps ? *(volatile long long*)&v.stamp[w] : v.prestamp - 1;
                if (s < v.prestamp) {
                    degree = hyblas_degree(v, w);  // loaded alongside the atomic
                    const long long old = atomicMax(&v.stamp[w], tag);
                    queue_it = old < v.prestamp;  // not reached before: the first to stamp it
                    s = queue_it ? tag : old;
                }
                if (!HYBLAS_ANY_MONOID && s == tag) hyblas_atomic_combine(&v.ws[w], z);
            }
        } else {
            const hyblas_word seen_word = *(volatile hyblas_word*)&v.ws[w];
            const hyblas_z seen = hyblas_from_word(seen_word);
            // an absent vertex's word is the identity: only then is its presence read (a
            // second random load per edge otherwise; a word written but not yet marked
            // present is one another edge of this round improved, and that edge queues it)
            const bool absent = seen_word == hyblas_to_word((hyblas_z)(${IDENTITY})) &&
                                !*(volatile bool*)&v.present[w];
            if (absent || hyblas_add(seen, z) != seen) {
                degree = hyblas_degree(v, w);  // loaded while the atomics are under way
                hyblas_atomic_combine(&v.ws[w], z);
                if (absent) v.present[w] = true;
                queue_it = atomicMax(&v.stamp[w], r) < r;
            }
        }
    }
    const long long slot = hyblas_enqueue(v, out, queue_it, w, degree, edges);
    if (LEVELS && HYBLAS_ANY_MONOID && slot >= 0) out.values[slot] = z;
}

// Edges [begin, end) of a vertex, taken `stride` at a time by the threads whose rank (0-based,
// whole warps) is `rank`.
template <bool LEVELS>
__device__ __forceinline__ void hyblas_loop_range(const hyblas_loop_view& v, long long r,
                                                  const hyblas_queue& out,
                                                  long long begin, long long end, long long rank,
                                                  long long stride, hyblas_t x,
                                                  unsigned long long& edges) {
    for (long long base = begin; base < end; base += stride) {
        const long long e = base + rank;
        hyblas_loop_edge<LEVELS>(v, r, out, e < end, e, x, edges);
    }
}

// Queue the first round's frontier (see the kernel) into `q`: each block takes a contiguous
// range of it, counts its light and other vertices and their edges, reserves their slots with
// one atomic per counter, and writes them, 256 at a time, ranked within the block. (An atomic
// per warp on the shared counters stalled on a large bitmap frontier.) With `minimum`, the
// values' minimum is combined into it as an order key. Every thread calls this.
__device__ __forceinline__ void hyblas_first_queue(const hyblas_loop_view& v,
                                                   const hyblas_queue& q, int sparse,
                                                   const long long* ids, const bool* present,
                                                   const hyblas_t* x, long long count,
                                                   unsigned long long* minimum) {
    __shared__ unsigned long long sums[3][HYBLAS_BLOCK_WARPS];
    __shared__ unsigned long long reserved[2];
    __shared__ int warp_light[HYBLAS_BLOCK_WARPS], warp_other[HYBLAS_BLOCK_WARPS];
    const int lane = threadIdx.x & (HYBLAS_WARP - 1), warp = threadIdx.x / HYBLAS_WARP;
    const long long chunk = (count + gridDim.x - 1) / gridDim.x;
    const long long lo = min(count, (long long)blockIdx.x * chunk), hi = min(count, lo + chunk);
    unsigned long long light_n = 0, other_n = 0, edges = 0;
    hyblas_z smallest = (hyblas_z)(${IDENTITY});
    bool any = false;
    for (long long i = lo + threadIdx.x; i < hi; i += HYBLAS_THREADS) {
        if (!sparse && !present[i]) continue;
        const long long degree = hyblas_degree(v, sparse ? ids[i] : i);
        if (degree <= v.heavy) ++light_n; else ++other_n;
        edges += (unsigned long long)degree;
        if (minimum != 0) smallest = any ? hyblas_add(smallest, (hyblas_z)x[i]) : (hyblas_z)x[i];
        any = true;
    }
    __syncwarp();
    if (minimum != 0) hyblas_warp_min_key(minimum, any, smallest);
    for (int offset = HYBLAS_WARP / 2; offset > 0; offset /= 2) {
        light_n += __shfl_down_sync(0xffffffffu, light_n, offset);
        other_n += __shfl_down_sync(0xffffffffu, other_n, offset);
        edges += __shfl_down_sync(0xffffffffu, edges, offset);
    }
    if (lane == 0) {
        sums[0][warp] = light_n;
        sums[1][warp] = other_n;
        sums[2][warp] = edges;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total[3] = {0ull, 0ull, 0ull};
        for (int w = 0; w < HYBLAS_BLOCK_WARPS; ++w)
            for (int k = 0; k < 3; ++k) total[k] += sums[k][w];
        reserved[0] = total[0] ? atomicAdd(&q.count[0], total[0]) : 0ull;
        reserved[1] = total[1] ? atomicAdd(&q.count[1], total[1]) : 0ull;
        if (total[2]) atomicAdd(&q.count[2], total[2]);
    }
    __syncthreads();
    long long light_at = (long long)reserved[0], other_at = (long long)reserved[1];
    const unsigned int below = (1u << lane) - 1u;
    for (long long base = lo; base < hi; base += HYBLAS_THREADS) {  // the same trips in a block
        const long long i = base + threadIdx.x;
        const bool valid = i < hi && (sparse || present[i]);
        const long long u = valid ? (sparse ? ids[i] : i) : 0;
        const long long degree = valid ? hyblas_degree(v, u) : 0;
        const bool light = valid && degree <= v.heavy;
        const unsigned int light_lanes = __ballot_sync(0xffffffffu, light);
        const unsigned int other_lanes = __ballot_sync(0xffffffffu, valid && !light);
        if (lane == 0) {
            warp_light[warp] = __popc(light_lanes);
            warp_other[warp] = __popc(other_lanes);
        }
        __syncthreads();
        long long light_before = 0, other_before = 0, light_all = 0, other_all = 0;
        for (int w = 0; w < HYBLAS_BLOCK_WARPS; ++w) {
            if (w < warp) {
                light_before += warp_light[w];
                other_before += warp_other[w];
            }
            light_all += warp_light[w];
            other_all += warp_other[w];
        }
        __syncthreads();  // read before the next trip writes them
        if (valid) {
            const long long slot = light
                ? q.light_base + light_at + light_before + __popc(light_lanes & below)
                : v.cap - 1 - q.other_base - (other_at + other_before + __popc(other_lanes & below));
            q.ids[slot] = u;
            v.first_values[slot] = x[i];
            if (!light && degree > v.huge) hyblas_list_huge(q, slot);
        }
        light_at += light_all;
        other_at += other_all;
    }
}

// Walk the huge vertices of q_in (`count` <= HYBLAS_HUGE_LIST of them; with `bucketed`, not
// those far from the round's threshold: carried, not walked) with the whole grid: their edges,
// one vertex's after another's, are dealt out over all the threads; a thread finds its edge's
// vertex by a binary search of the vertices' summed edge counts, which each block keeps in
// shared memory. Every thread calls this.
template <bool LEVELS>
__device__ void hyblas_huge_walk(const hyblas_loop_view& v, long long r, const hyblas_queue& q_in,
                                 const hyblas_queue& out, bool first, int count, bool bucketed,
                                 hyblas_z threshold, hyblas_z smallest, long long tid,
                                 long long threads, unsigned long long& next_edges,
                                 unsigned long long& walked) {
    __shared__ long long ends[HYBLAS_HUGE_LIST];    // edges of the vertices up to this one
    __shared__ long long begins[HYBLAS_HUGE_LIST];  // the vertex's first edge in the CSR
    __shared__ hyblas_t xs[HYBLAS_HUGE_LIST];
    __shared__ long long warp_sums[HYBLAS_BLOCK_WARPS];
    const int lane = threadIdx.x & (HYBLAS_WARP - 1), warp = threadIdx.x / HYBLAS_WARP;
    const int j = threadIdx.x;
    long long degree = 0;
    if (j < count) {
        const long long slot = q_in.huge_slots[j];
        const hyblas_t x = first ? v.first_values[slot] : (hyblas_t)q_in.values[slot];
        const bool far = bucketed && (hyblas_z)x >= threshold && (hyblas_z)x != smallest;
        const long long u = q_in.ids[slot];
        begins[j] = (long long)v.indptr[u];
        degree = far ? 0 : (long long)v.indptr[u + 1] - begins[j];
        xs[j] = x;
    }
    long long sum = degree;  // inclusive scan: within the warp, then over the warps before it
    for (int offset = 1; offset < HYBLAS_WARP; offset *= 2) {
        const long long other = __shfl_up_sync(0xffffffffu, sum, offset);
        if (lane >= offset) sum += other;
    }
    if (lane == HYBLAS_WARP - 1) warp_sums[warp] = sum;
    __syncthreads();
    for (int w = 0; w < warp; ++w) sum += warp_sums[w];
    if (j < count) ends[j] = sum;
    __syncthreads();
    const long long total = ends[count - 1];
    if (tid == 0) walked += (unsigned long long)total;
    for (long long base = tid - lane; base < total; base += threads) {
        const long long g = base + lane;
        long long e = 0;
        hyblas_t x = (hyblas_t)0;
        if (g < total) {
            int lo = 0, hi = count - 1;  // the first vertex whose edges end after g
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (ends[mid] > g) hi = mid; else lo = mid + 1;
            }
            e = begins[lo] + g - (lo ? ends[lo - 1] : 0ll);
            x = xs[lo];
        }
        hyblas_loop_edge<LEVELS>(v, r, out, g < total, e, x, next_edges);
    }
    __syncthreads();  // the shared arrays are written again in the next round
}

// The CSR whose rows are the in-edges, and the first round's frontier, of pull rounds.
struct hyblas_pull_view {
    const hyblas_p* indptr;
    const hyblas_i* indices;
    const hyblas_t* weights;
    const bool* first;
};

__device__ __forceinline__ bool hyblas_in_frontier(const hyblas_pull_view& p,
                                                   const unsigned int* bits_in, long long u,
                                                   bool first) {
    // (a plain load, cached in L1: the round writes no word of bits_in, and the grid's barrier
    // made the writes of the rounds before visible)
    return first ? p.first[u] : (bits_in[u >> 5] >> (u & 31)) & 1u;
}

// Set the bits of q_in's vertices (`count` of them, `light` light) in the cleared bitmap `bits`.
__device__ __forceinline__ void hyblas_queue_bits(const hyblas_loop_view& v,
                                                  const hyblas_queue& q_in, long long light,
                                                  long long count, unsigned int* bits,
                                                  long long tid, long long threads) {
    for (long long i = tid; i < count; i += threads) {
        const long long u = q_in.ids[hyblas_slot(v, q_in, light, i)];
        atomicOr(&bits[u >> 5], 1u << (u & 31));
    }
}

// A pull round r (see the top), reading the frontier from bits_in and writing the vertices it
// reaches into bits_out: warps take 32 consecutive vertices (one bitmap word); a lane walks up to
// thread_edges of its vertex's in-edges, HYBLAS_PULL_STEP a step with the step's loads issued
// together (a chain of one load after another is the round's time otherwise), and stops
// after the step that finds one from the frontier; then the warp walks the rest of its lanes'
// rows one after another, 32 edges a step. A reached vertex is stamped and queued with its value
// (pull rounds are `any` rounds: no copy-out). `examined` counts the in-edges read. Every thread
// calls this.
__device__ void hyblas_pull_round(const hyblas_loop_view& v, const hyblas_pull_view& p,
                                  const hyblas_queue& out, long long r, bool first,
                                  const unsigned int* bits_in, unsigned int* bits_out,
                                  long long thread_edges, long long tid, long long threads,
                                  unsigned long long& next_edges, unsigned long long& examined) {
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    const long long tag = v.stamp_offset - r;
    // the same trips in every warp of a block (hyblas_block_enqueue)
    for (long long base = tid - lane; base - (threadIdx.x - lane) < v.n; base += threads) {
        const long long w = base + lane;
        const bool open = w < v.n && !(v.check_visited && v.visited[w]) &&
                          *(volatile long long*)&v.stamp[w] < v.prestamp;
        long long begin = 0, end = 0;
        if (open) {
            begin = (long long)p.indptr[w];
            end = (long long)p.indptr[w + 1];
        }
        const long long own_end = min(end, begin + thread_edges);
        long long hit = -1;
        for (long long e = begin; e < own_end && hit < 0; e += HYBLAS_PULL_STEP) {
            long long u[HYBLAS_PULL_STEP];
            bool in[HYBLAS_PULL_STEP];
            #pragma unroll
            for (int k = 0; k < HYBLAS_PULL_STEP; ++k)
                u[k] = e + k < own_end ? (long long)p.indices[e + k] : -1;
            #pragma unroll
            for (int k = 0; k < HYBLAS_PULL_STEP; ++k)
                in[k] = u[k] >= 0 && hyblas_in_frontier(p, bits_in, u[k], first);
            #pragma unroll
            for (int k = HYBLAS_PULL_STEP - 1; k >= 0; --k)
                if (in[k]) hit = e + k;  // the first in the step
        }
        if (open) examined += (unsigned long long)((hit >= 0 ? hit + 1 : own_end) - begin);
        unsigned int rest = __ballot_sync(0xffffffffu, open && hit < 0 && own_end < end);
        while (rest) {
            const int source = __ffs(rest) - 1;
            rest &= rest - 1;
            const long long from = __shfl_sync(0xffffffffu, own_end, source);
            const long long to = __shfl_sync(0xffffffffu, end, source);
            long long found = -1;
            for (long long k = from; k < to; k += HYBLAS_WARP) {
                const long long e = k + lane;
                const unsigned int hits = __ballot_sync(
                    0xffffffffu,
                    e < to && hyblas_in_frontier(p, bits_in, (long long)p.indices[e], first));
                if (hits) {  // the same in every lane
                    found = k + __ffs(hits) - 1;
                    break;
                }
            }
            if (lane == source) {
                hit = found;
                examined += (unsigned long long)((found >= 0 ? found + 1 : to) - from);
            }
        }
        const bool reached = hit >= 0;
        const unsigned int word = __ballot_sync(0xffffffffu, reached);
        if (lane == 0 && base < v.n) bits_out[base >> 5] = word;  // every word, once
        const hyblas_z z = reached ? hyblas_mult((hyblas_t)0, p.weights[hit]) : (hyblas_z)0;
        if (reached) {
            v.stamp[w] = tag;
            if (!HYBLAS_ANY_MONOID) v.ws[w] = hyblas_to_word(z);
        }
        const long long slot = hyblas_block_enqueue(v, out, reached, w, next_edges);
        if (HYBLAS_ANY_MONOID && slot >= 0) out.values[slot] = z;
    }
}

template <bool LEVELS>
__global__ void __launch_bounds__(HYBLAS_THREADS, HYBLAS_BLOCKS_PER_SM)
hyblas_frontier_loop(long long n, const hyblas_p* indptr, const hyblas_i* indices,
                     const hyblas_t* weights, hyblas_t* first_values, hyblas_word* ws,
                     bool* present, long long* stamp, long long cap, long long* queue_all,
                     hyblas_z* values_all, unsigned long long* counters, long long heavy,
                     long long first_round, long long last_round, unsigned long long exit_edges,
                     int bucketed, int has_threshold, hyblas_word* bucket,
                     unsigned long long* minima, long long warp_vertices, long long thread_edges,
                     const bool* visited, int check_visited, long long prestamp,
                     long long stamp_offset, int first_sparse, const long long* first_ids,
                     const bool* first_present, const hyblas_t* first_x,
                     long long first_count, int pull_rounds, const hyblas_p* pull_indptr,
                     const hyblas_i* pull_indices, const hyblas_t* pull_weights,
                     const bool* pull_first, unsigned int* pull_bits, long long huge,
                     long long* huge_slots_all, const long long* state_ids,
                     long long state_count, int read_stamps) {
    // The first round's frontier: first_count vertices first_ids[i] of value first_x[i]
    // (first_sparse), or the vertices i < first_count with first_present[i] (value first_x[i]).
    // counters (zeros at the launch): see HYBLAS_SETS and the indices after it; a set's huge
    // vertices are listed in huge_slots_all + set * HYBLAS_HUGE_LIST. LEVELS: state_ids
    // (state_count of them) are the vertices of a sparse state, stamped here with the state's
    // stamp, above every round's; read_stamps: see hyblas_loop_edge.
    const hyblas_loop_view v = {n, indptr, indices, weights, first_values, ws, present, stamp,
                                cap, heavy, huge, visited, check_visited, prestamp,
                                stamp_offset, read_stamps};
    const hyblas_pull_view pull_view = {pull_indptr, pull_indices, pull_weights, pull_first};
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const long long tid = (long long)blockIdx.x * HYBLAS_THREADS + threadIdx.x;
    const long long threads = (long long)gridDim.x * HYBLAS_THREADS;
    const long long warp = tid / HYBLAS_WARP, warps = threads / HYBLAS_WARP;
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    // bucketed rounds only: their threshold, delta, limit and top
    const hyblas_z delta = bucketed ? hyblas_from_word(bucket[1]) : (hyblas_z)0;
    const hyblas_z limit = bucketed ? hyblas_from_word(bucket[2]) : (hyblas_z)0;
    const hyblas_z top = bucketed ? hyblas_from_word(bucket[3]) : (hyblas_z)0;
    hyblas_z threshold = bucketed ? hyblas_from_word(bucket[0]) : (hyblas_z)0;
    unsigned long long walked = 0;  // out-edges this thread walked as a warp's or block's leader
    bool pulled = false;            // whether the round before was a pull round (the same in all)
    long long r = first_round;
    // LEVELS: where this round's queue starts in the one region; improve: always 0
    long long light_base = 0, other_base = 0;
    const unsigned long long no_minimum = hyblas_order_key((hyblas_z)(${IDENTITY}));
    // LEVELS rounds in the `any` monoid end at one barrier (the kernel's top)
    constexpr bool one_barrier = LEVELS && HYBLAS_ANY_MONOID;
    // the input queue's counts (light, other, edges, huge), read after the barrier that ended
    // the round before: the next round takes them from there, not with a second read, where
    // the launch bounds leave registers for them (with 64 a thread, holding them spills)
    constexpr bool carry_counts = HYBLAS_BLOCKS_PER_SM <= 2;
    bool carried = false;
    long long carried_light = 0, carried_other = 0;
    unsigned long long carried_edges = 0, carried_huge = 0;
    {  // the first queue (and, bucketed, its minimum; later queues' come with their values)
        const int in = (int)((r - 1) & 1);
        const int set = one_barrier ? (int)((r - 1) % HYBLAS_SETS) : in;
        const hyblas_queue first = {queue_all + (LEVELS ? 0 : in * cap),
                                    values_all + (LEVELS ? 0 : in * cap), counters + 3 * set, 0,
                                    0, counters + HYBLAS_HUGE_COUNTS + set,
                                    huge_slots_all + set * HYBLAS_HUGE_LIST};
        if (LEVELS) {
            const long long state_stamp = stamp_offset - first_round + 1;
            for (long long i = tid; i < state_count; i += threads) stamp[state_ids[i]] = state_stamp;
        }
        if (bucketed) {
            if (tid == 0) minima[0] = minima[1] = no_minimum;
            grid.sync();
        }
        hyblas_first_queue(v, first, first_sparse, first_ids, first_present, first_x, first_count,
                           bucketed ? &minima[in] : (unsigned long long*)0);
        grid.sync();
        if (tid == 0) counters[HYBLAS_FIRST_LIGHT] = first.count[0];
    }
    while (true) {
        // the queue regions (improve rounds) and minima alternate by parity, the counters of
        // one_barrier rounds by set (the others' by parity: fewer registers live)
        const int in = (int)((r - 1) & 1), out = (int)(r & 1);
        const int set_in = one_barrier ? (int)((r - 1) % HYBLAS_SETS) : in;
        const int set_out = one_barrier ? (int)(r % HYBLAS_SETS) : out;
        const long long in_region = LEVELS ? 0 : in * cap, out_region = LEVELS ? 0 : out * cap;
        const hyblas_queue q_in = {queue_all + in_region, values_all + in_region,
                                   counters + 3 * set_in, light_base, other_base,
                                   counters + HYBLAS_HUGE_COUNTS + set_in,
                                   huge_slots_all + set_in * HYBLAS_HUGE_LIST};
        const long long light = carried ? carried_light : (long long)q_in.count[0];
        const long long other = carried ? carried_other : (long long)q_in.count[1];
        const unsigned long long in_edges = carried ? carried_edges : q_in.count[2];
        const hyblas_queue q_out = {queue_all + out_region, values_all + out_region,
                                    counters + 3 * set_out, LEVELS ? light_base + light : 0,
                                    LEVELS ? other_base + other : 0,
                                    counters + HYBLAS_HUGE_COUNTS + set_out,
                                    huge_slots_all + set_out * HYBLAS_HUGE_LIST};
        // the huge vertices go to the whole grid if they are few enough to be listed
        const unsigned long long huge_n = carried ? carried_huge : *q_in.huge_count;
        const bool spread = huge_n <= HYBLAS_HUGE_LIST;
        const bool first = r == first_round;
        unsigned long long next_edges_mine = 0;  // out-edges of the vertices this thread queued
        // the value of the queue's entry at `slot` (the first round's are the frontier's)
        #define HYBLAS_VALUE(slot) (first ? v.first_values[slot] : (hyblas_t)q_in.values[slot])
        hyblas_z smallest = (hyblas_z)0;
        if (bucketed) {
            smallest = hyblas_from_order_key(*(volatile unsigned long long*)&minima[in],
                                             (const hyblas_z*)0);
            if (!has_threshold || !(smallest < threshold)) {
                threshold = smallest > limit ? top : (hyblas_z)(smallest + delta);
                has_threshold = 1;
            }
        }
        // bucketed: a far vertex waits (carried into the next queue) instead of being walked
        #define HYBLAS_FAR(z) (bucketed && (z) >= threshold && (z) != smallest)
        // light vertices: up to warp_vertices of them, a warp each (the round is a chain of
        // dependent memory accesses, as short as it can be when each warp has one vertex);
        // beyond that, 32 queue entries a warp: a lane walks its own vertex if it has at most
        // thread_edges edges (all such lanes in step), the warp walks the others
        // (a first round given as a list of vertices is pushed: pull_first is a bitmap)
        const bool pulling =
            LEVELS && pull_rounds && in_edges > exit_edges && !(first && first_sparse);
        if (pulling) {
            // pull_bits: two bitmaps of `words` words (see the top)
            const long long words = (n + HYBLAS_WARP - 1) / HYBLAS_WARP;
            unsigned int* bits_in = pull_bits + ((r - 1) & 1) * words;
            unsigned int* bits_out = pull_bits + (r & 1) * words;
            if (!first && !pulled) {  // the frontier is a push round's queue: its bitmap
                for (long long i = tid; i < words; i += threads) bits_in[i] = 0u;
                grid.sync();
                hyblas_queue_bits(v, q_in, light, light + other, bits_in, tid, threads);
                grid.sync();
            }
            hyblas_pull_round(v, pull_view, q_out, r, first, bits_in, bits_out, thread_edges,
                              tid, threads, next_edges_mine, walked);
        }
        pulled = pulling;
        const bool one_each = light <= warp_vertices;
        const long long per_warp = one_each ? 1 : HYBLAS_WARP;
        const long long own_edges = one_each ? -1 : thread_edges;
        for (long long base = warp * per_warp; !pulling && base < light;
             base += warps * per_warp) {
            const long long i = base + (per_warp == 1 ? 0 : lane);
            hyblas_t x = (hyblas_t)0;
            long long begin = 0, end = 0;
            bool walk = false;
            if (i < light && (per_warp > 1 || lane == 0)) {
                // the id is loaded with the value, not after the test on it
                const long long u = q_in.ids[q_in.light_base + i];
                x = HYBLAS_VALUE(q_in.light_base + i);
                walk = !HYBLAS_FAR((hyblas_z)x);
                if (walk) {
                    begin = (long long)v.indptr[u];
                    end = (long long)v.indptr[u + 1];
                    walked += (unsigned long long)(end - begin);
                }
            }
            const bool own = walk && end - begin <= own_edges;
            long long steps = own ? end - begin : 0;
            for (int offset = HYBLAS_WARP / 2; !one_each && offset > 0; offset /= 2)
                steps = max(steps, __shfl_xor_sync(0xffffffffu, steps, offset));
            for (long long k = 0; k < steps; ++k)
                hyblas_loop_edge<LEVELS>(v, r, q_out, own && begin + k < end, begin + k, x,
                                         next_edges_mine);
            unsigned int together = __ballot_sync(0xffffffffu, walk && !own);
            while (together) {
                const int source = __ffs(together) - 1;
                together &= together - 1;
                const long long b = __shfl_sync(0xffffffffu, begin, source);
                const long long e = __shfl_sync(0xffffffffu, end, source);
                const hyblas_t xs = HYBLAS_VALUE(q_in.light_base + base + source);
                hyblas_loop_range<LEVELS>(v, r, q_out, b, e, lane, HYBLAS_WARP, xs,
                                          next_edges_mine);
            }
        }
        for (long long i = blockIdx.x; !pulling && i < other; i += gridDim.x) {
            const long long slot = hyblas_slot(v, q_in, light, light + i);
            const hyblas_t x = HYBLAS_VALUE(slot);
            if (HYBLAS_FAR((hyblas_z)x)) continue;
            const long long u = q_in.ids[slot];
            const long long begin = (long long)v.indptr[u], end = (long long)v.indptr[u + 1];
            if (spread && end - begin > v.huge) continue;
            if (threadIdx.x == 0) walked += (unsigned long long)(end - begin);
            hyblas_loop_range<LEVELS>(v, r, q_out, begin, end, threadIdx.x, HYBLAS_THREADS, x,
                                      next_edges_mine);
        }
        if (!pulling && spread && huge_n)
            hyblas_huge_walk<LEVELS>(v, r, q_in, q_out, first, (int)huge_n, bucketed, threshold,
                                     smallest, tid, threads, next_edges_mine, walked);
        if (bucketed) {
            for (long long base = tid - lane; base < light + other; base += threads) {
                const long long i = base + lane;
                const bool valid = i < light + other;
                const long long slot = hyblas_slot(v, q_in, light, valid ? i : 0);
                const hyblas_z x = (hyblas_z)HYBLAS_VALUE(slot);
                const long long u = valid ? q_in.ids[slot] : 0;
                const bool far = valid && HYBLAS_FAR(x);
                const long long degree = far ? hyblas_degree(v, u) : 0;
                const bool carry = far && atomicMax(&v.stamp[u], r) < r;
                hyblas_enqueue(v, q_out, carry, u, degree, next_edges_mine);
            }
        }
        hyblas_add_edges(&q_out.count[2], next_edges_mine);
        #undef HYBLAS_FAR
        #undef HYBLAS_VALUE
        grid.sync();
        // the next queue is complete: give its vertices their values (one_barrier: they have
        // them), and clear this round's input counters (read by now), which round r + 2 appends to
        const long long next_light = (long long)q_out.count[0];
        const long long next_other = (long long)q_out.count[1];
        const unsigned long long next_edges = q_out.count[2];
        const unsigned long long next_huge = *q_out.huge_count;
        for (long long base = tid - lane; !one_barrier && base < next_light + next_other;
             base += threads) {
            const long long i = base + lane;
            const bool valid = i < next_light + next_other;
            hyblas_z value = (hyblas_z)0;
            if (valid) {
                const long long slot = hyblas_slot(v, q_out, next_light, i);
                const long long w = q_out.ids[slot];
                value = hyblas_from_word(v.ws[w]);
                q_out.values[slot] = value;
                if (LEVELS) v.ws[w] = empty;
            }
            if (bucketed) hyblas_warp_min_key(&minima[out], valid, value);
        }
        if (tid == 0) {
            q_in.count[0] = q_in.count[1] = q_in.count[2] = *q_in.huge_count = 0ull;
            if (bucketed) minima[in] = no_minimum;  // read at this round's start, by now by all
        }
        light_base = q_out.light_base;
        other_base = q_out.other_base;
        if (next_light + next_other == 0 || r >= last_round ||
            (next_edges > exit_edges && !pull_rounds)) break;
        if (!one_barrier) grid.sync();  // the values given out before the next round reads them
        carried = carry_counts;
        carried_light = next_light;
        carried_other = next_other;
        carried_edges = next_edges;
        carried_huge = next_huge;
        ++r;
    }
    // every thread gets here (the rounds end by the same test in all): one atomic a warp
    for (int offset = HYBLAS_WARP / 2; offset > 0; offset /= 2)
        walked += __shfl_down_sync(0xffffffffu, walked, offset);
    if (lane == 0 && walked) atomicAdd(&counters[HYBLAS_WALKED], walked);
    if (tid == 0) {
        counters[HYBLAS_ROUNDS] = (unsigned long long)(r - first_round + 1);
        counters[HYBLAS_LIGHT_BASE] = (unsigned long long)light_base;
        counters[HYBLAS_OTHER_BASE] = (unsigned long long)other_base;
        if (bucketed) bucket[0] = hyblas_to_word(threshold);
    }
}
