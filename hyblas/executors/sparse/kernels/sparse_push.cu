// hyblas sparse-frontier SpMSpV (MultiGraphS): push from the active inputs over the layout of
// hyblas/executors/sparse/layout.py, masked in the kernel, the output compacted into a list.
//
// Specialized per (semiring, operand type, index type, mask type) by string.Template:
//   ${T} operand type, ${Z} result type, ${MULT} / ${ADD} expressions in x and y,
//   ${IDENTITY} the add monoid's identity, ${WORD} / ${TO_WORD} / ${FROM_WORD} the accumulator
//   word and its conversions (statements in v / w), ${ATOMIC} the combine of v into *slot
//   (native atomic or CAS loop; shared or global memory), ${ANY} 1 for the `any` monoid (the
//   first value to arrive is kept, later ones skip their atomics), ${I} the layout's index
//   type, ${M} the mask's value type.
//
// Results are combined into a user-indexed work array `ws` (identity everywhere between calls)
// with presence bits `flags` (0 between calls); the call that makes an output present appends it to
// `list` (staged per block in shared memory, HYBLAS_STAGE); hyblas_sparse_finish reads the values
// out and resets both (graph rounds), or hyblas_sparse_finish_call (a single call's list or
// bitmap).
// Outside the `any` monoid, the high in-degree outputs (most of a power-law graph's edges) are
// combined by internal id instead, into `high_ws` with presence bits `claims`, both small
// enough to stay in L2, and hyblas_sparse_finish_high moves the touched ones into `ws`, `flags`
// and `list` after the walk (hyblas_high_push).
//
// The `any` monoid (HYBLAS_ANY, e.g. BFS's any_pair) keeps the first value to arrive, so nothing
// is accumulated and every output is settled by its first edge: such a call *claims* outputs
// instead. hyblas_sparse_claims first sets the flag of every output the mask does not allow
// (flags are rewritten whole each call, not reset), and `claims`, one bit per high in-degree
// output in the layout's internal order, the same for those; then an edge into a claimed or
// masked output costs one bit read (the internal bits of the high outputs, a few tens of KB,
// stay in L1, and skip the read of `order`), and the segment walk is not used: there is nothing
// to combine in shared memory.
//
// Rounds (hyblas/traversal/graph_rounds.py, levels rounds in the `any` monoid): the push and spread
// kernels take a `rounds` mode, and `counters` is then the rounds' state (HYBLAS_R_*). A round's
// inputs are queue[lo, hi), its outputs are listed after them (the queue is the output list),
// and hyblas_sparse_advance makes them the next round's inputs; the claims stay set from round
// to round (a claimed output is reached), so the kernels of many rounds are launched ahead
// (a CUDA graph) with no host round trip between rounds. The grid is fixed: a push block
// takes groups of HYBLAS_INPUTS inputs, one after another.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;
typedef ${I} hyblas_i;
typedef ${M} hyblas_m;

#define HYBLAS_INPUTS 64     // INPUTS_PER_BLOCK in params.py
#define HYBLAS_THREADS 256   // THREADS
#define HYBLAS_WARP 32
#define HYBLAS_VWARP 4       // HYBLAS_THREADS / HYBLAS_INPUTS: one virtual warp per input
// edges a thread walks at once (hyblas_edges): a batch keeps that many edges' chains of
// dependent accesses in flight; `any` calls claim, where batching made a BFS slower: one at a time
#define HYBLAS_BATCH (HYBLAS_ANY ? 1 : 4)
#define HYBLAS_ANY ${ANY}
// Blocks of the push kernel an SM must hold. Rounds (`any`) launch it on a fixed grid of 8 an SM
// (SparseParams.spread_blocks): 40 registers a thread (once stages 2 and 3 took chunks of several
// inputs) left room for 6, and the last 2 ran as a second wave, which made a BFS slower.
// Otherwise 4, the 64 registers the compiler picks unbounded (a bound of 1 block made it 96).
#define HYBLAS_PUSH_MIN_BLOCKS (HYBLAS_ANY ? 8 : 4)
#define HYBLAS_NONE 0x7fffffffffffffffLL
// counters[1] packs the gathered inputs (high bits) and their chunks of HYBLAS_THREADS edges (low
// bits), so that one atomicAdd gives a gathered input both its slot and its first chunk
#define HYBLAS_CHUNK_BITS 36
#define HYBLAS_CHUNK_MASK ((1ull << HYBLAS_CHUNK_BITS) - 1ull)
// Outputs a block stages in shared memory before it lists them with one global atomic: one
// counter for the whole list, taken by every warp, was the walk's bottleneck (the push kernel
// spent most of its time listing on a sparse frontier). Each warp stages into its own
// HYBLAS_WARP_STAGE outputs of the area, so that staging needs no block barrier (barrier waits
// between the stages were a large part of the push kernel's stalls on such a frontier); a warp
// whose part is full lists it alone (one global atomic), and the block lists what all its warps
// staged at the end of a group (hyblas_flush: one global atomic).
#define HYBLAS_STAGE 2048
#define HYBLAS_WARPS (HYBLAS_THREADS / HYBLAS_WARP)
#define HYBLAS_WARP_STAGE (HYBLAS_STAGE / HYBLAS_WARPS)
// The rounds' state in `counters` (LO, HI, ... STATE_WORDS in graph_rounds.py): [0] and [1] as in
// one call (the list's end is the queue's), then the round's inputs queue[lo, hi), the round
// running, whether the rounds are done, the last round allowed, the edges walked, and from
// HYBLAS_R_BOUNDS the end of each round's outputs (slot: round mod the slots)
#define HYBLAS_R_LO 2
#define HYBLAS_R_HI 3
#define HYBLAS_R_ROUND 4
#define HYBLAS_R_DONE 5
#define HYBLAS_R_LAST 6
#define HYBLAS_R_EDGES 7
#define HYBLAS_R_BOUNDS 8
// rounds mode of the push and spread kernels: one call; a round taking its inputs' values from
// `xs` (the first), or from the work words, where the round before wrote them
#define HYBLAS_ONE_CALL 0
#define HYBLAS_ROUND_XS 1
#define HYBLAS_ROUND_WS 2

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }
__device__ __forceinline__ hyblas_word hyblas_to_word(hyblas_z v) { ${TO_WORD} }
__device__ __forceinline__ hyblas_z hyblas_from_word(hyblas_word w) { ${FROM_WORD} }
__device__ __forceinline__ void hyblas_atomic_combine(hyblas_word* slot, hyblas_z v) { ${ATOMIC} }

// What every edge needs: the layout, the mask and the output.
struct hyblas_push_view {
    const long long* indptr;
    const long long* split;
    const hyblas_i* dst;
    const hyblas_t* weights;
    hyblas_t iso;
    const hyblas_i* order;
    const hyblas_m* mask_values;
    const bool* mask_present;
    hyblas_word* ws;
    unsigned int* flags;  // presence bits, 32 outputs a word
    unsigned int* claims;  // presence (claim, HYBLAS_ANY) bits of the high outputs, by internal id
    hyblas_word* high_ws;  // not HYBLAS_ANY: the high outputs' work words, by internal id
    hyblas_i* list;
    unsigned long long* count;
    hyblas_i* staged;  // the block's outputs to list, in shared memory (HYBLAS_STAGE of them)
    unsigned int* staged_count;  // how many each warp staged in its part (HYBLAS_WARPS counts)
};

template <bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ __forceinline__ bool hyblas_allowed(const hyblas_push_view& v, long long user) {
    if (!HAS_MASK) return true;
    const bool m = v.mask_present[user];
    const bool allowed = STRUCTURAL ? m : (m && (bool)v.mask_values[user]);
    return COMPLEMENT ? !allowed : allowed;
}

// Combine z into high output `d` (internal id; not HYBLAS_ANY): its work word and presence bit
// are by internal id, so they stay in L2 (840 KB and 26 KB for kron24's 209,707 high outputs),
// and no edge reads `order`: hyblas_sparse_finish_high moves the touched ones to their users.
__device__ __forceinline__ void hyblas_high_push(const hyblas_push_view& v, long long d,
                                                 hyblas_z z) {
    hyblas_atomic_combine(&v.high_ws[d], z);
    const unsigned int bit = 1u << (d & 31);
    if ((v.claims[d >> 5] & bit) == 0u) atomicOr(&v.claims[d >> 5], bit);
}

// Copy the `staged` outputs of this warp's part of the staging area to list[base, ...). Every
// lane of the warp calls this.
__device__ __forceinline__ void hyblas_list_part(const hyblas_push_view& v, unsigned int staged,
                                                 unsigned long long base) {
    const hyblas_i* part = v.staged + (threadIdx.x / HYBLAS_WARP) * HYBLAS_WARP_STAGE;
    for (unsigned int k = threadIdx.x & (HYBLAS_WARP - 1); k < staged; k += HYBLAS_WARP)
        v.list[base + k] = part[k];
    __syncwarp();
}

// List the `staged` outputs of this warp's part of the staging area with one global atomic.
// Every lane of the warp calls this.
__device__ __forceinline__ void hyblas_warp_flush(const hyblas_push_view& v, unsigned int staged) {
    unsigned long long base = 0;
    if ((threadIdx.x & (HYBLAS_WARP - 1)) == 0)
        base = atomicAdd(v.count, (unsigned long long)staged);
    hyblas_list_part(v, staged, __shfl_sync(0xffffffffu, base, 0));
}

// Append `user` to the output list where `want`; every lane of the warp must call this. The
// warp's part of the staging area takes it, after listing the part if it would overflow.
// Only lane 0 writes the warp's count, between two __syncwarp()s: every lane reads the same.
__device__ __forceinline__ void hyblas_append(const hyblas_push_view& v, bool want, long long user) {
    const unsigned int lanes = __ballot_sync(0xffffffffu, want);
    if (lanes == 0u) return;
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    const int warp = threadIdx.x / HYBLAS_WARP;
    unsigned int staged = v.staged_count[warp];
    const unsigned int added = (unsigned int)__popc(lanes);
    if (staged + added > (unsigned int)HYBLAS_WARP_STAGE) {
        hyblas_warp_flush(v, staged);
        staged = 0u;
    }
    if (want)
        v.staged[warp * HYBLAS_WARP_STAGE + staged + __popc(lanes & ((1u << lane) - 1u))] =
            (hyblas_i)user;
    __syncwarp();
    if (lane == 0) v.staged_count[warp] = staged + added;
    __syncwarp();
}

// List the block's staged outputs (every warp's part) with one global atomic and empty the
// area. Every thread of the block calls this, once all have staged what they will.
__device__ void hyblas_flush(const hyblas_push_view& v) {
    __shared__ unsigned long long s_base;
    __shared__ unsigned int s_offset[HYBLAS_WARPS];
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int total = 0u;
        for (int w = 0; w < HYBLAS_WARPS; ++w) {
            s_offset[w] = total;
            total += v.staged_count[w];
        }
        if (total > 0u) s_base = atomicAdd(v.count, (unsigned long long)total);
    }
    __syncthreads();
    const int warp = threadIdx.x / HYBLAS_WARP;
    hyblas_list_part(v, v.staged_count[warp], s_base + s_offset[warp]);
    // thread 0 read the count before the barrier above
    if ((threadIdx.x & (HYBLAS_WARP - 1)) == 0) v.staged_count[warp] = 0u;
    __syncwarp();
}

// A thread's HYBLAS_BATCH edges of one input on the global path, each step's memory accesses
// issued for all of them before any is waited on: an edge is a chain of dependent accesses (its
// output id; for `any` the claim, the user id, the flag; else the atomics), and a batch keeps
// that many chains in flight. The mask comes first (a masked output costs its one read), then
// the atomics. A claim sets a presence bit (one per output: a kron24 output set is 2 MB, it
// stays in L2), true for the one call that set it; its plain read first may see an old 0 (the
// atomic then decides) but never a wrong 1: bits are only set during a kernel. Every lane of
// the warp must call this (`valid` false for padding lanes).
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ __forceinline__ void hyblas_edges(const hyblas_push_view& v,
                                             const bool (&valid)[HYBLAS_BATCH],
                                             const long long (&e)[HYBLAS_BATCH],
                                             const long long (&split)[HYBLAS_BATCH],
                                             const hyblas_t (&x)[HYBLAS_BATCH]) {
    long long user[HYBLAS_BATCH];
    hyblas_t a[HYBLAS_BATCH];
    bool first[HYBLAS_BATCH];
    unsigned int word[HYBLAS_BATCH];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {
        user[k] = valid[k] ? (long long)v.dst[e[k]] : 0;
        a[k] = ISO ? v.iso : (valid[k] ? v.weights[e[k]] : (hyblas_t)0);
    }
#if HYBLAS_ANY  // the mask is in the flags and claims already (hyblas_sparse_claims)
    bool open[HYBLAS_BATCH];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k)
        word[k] = valid[k] && e[k] < split[k] ? v.claims[user[k] >> 5] : 0u;
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {  // a high output is claimed by internal id first
        const unsigned int bit = 1u << (user[k] & 31);
        open[k] = valid[k] && (e[k] >= split[k] ||
                               ((word[k] & bit) == 0u &&
                                (atomicOr(&v.claims[user[k] >> 5], bit) & bit) == 0u));
    }
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k)
        if (open[k] && e[k] < split[k]) user[k] = (long long)v.order[user[k]];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) word[k] = open[k] ? v.flags[user[k] >> 5] : 0u;
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {
        const unsigned int bit = 1u << (user[k] & 31);
        first[k] = open[k] && (word[k] & bit) == 0u &&
                   (atomicOr(&v.flags[user[k] >> 5], bit) & bit) == 0u;
        if (first[k])
            v.ws[user[k]] = hyblas_to_word(FLIP ? hyblas_mult(x[k], a[k]) : hyblas_mult(a[k], x[k]));
    }
#else
    bool allowed[HYBLAS_BATCH];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k)  // a high output's user id only for its mask
        allowed[k] = valid[k] && hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(
            v, HAS_MASK && e[k] < split[k] ? (long long)v.order[user[k]] : user[k]);
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {
        const hyblas_z z = FLIP ? hyblas_mult(x[k], a[k]) : hyblas_mult(a[k], x[k]);
        const bool high = e[k] < split[k];
        if (allowed[k] && high) hyblas_high_push(v, user[k], z);  // listed later
        if (allowed[k] && !high) hyblas_atomic_combine(&v.ws[user[k]], z);
        allowed[k] = allowed[k] && !high;
        word[k] = allowed[k] ? v.flags[user[k] >> 5] : 0u;
    }
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {  // the claims, their plain reads done above
        const unsigned int bit = 1u << (user[k] & 31);
        first[k] = allowed[k] && (word[k] & bit) == 0u &&
                   (atomicOr(&v.flags[user[k] >> 5], bit) & bit) == 0u;
    }
#endif
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) hyblas_append(v, first[k], user[k]);
}

// The batch of one input's edges first + j * stride for j = q .. q + HYBLAS_BATCH - 1, those
// with j < chunks and below `end` (how stage 1 and the spreading kernel lay a thread's edges
// out; stages 2 and 3 batch chunks of several inputs). Every lane of the warp must call this.
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ __forceinline__ void hyblas_strided_edges(const hyblas_push_view& v, long long first,
                                                     long long stride, long long q,
                                                     long long chunks, long long end,
                                                     long long split, hyblas_t x) {
    bool valid[HYBLAS_BATCH];
    long long e[HYBLAS_BATCH], splits[HYBLAS_BATCH];
    hyblas_t xs[HYBLAS_BATCH];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {
        e[k] = first + (q + k) * stride;
        valid[k] = q + k < chunks && e[k] < end;
        splits[k] = split;
        xs[k] = x;
    }
    hyblas_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, valid, e, splits, xs);
}

__device__ __forceinline__ size_t hyblas_align8(size_t bytes) { return (bytes + 7) & ~(size_t)7; }

// Warps 0 and 1 number the warp chunks ((E mod HYBLAS_THREADS) / HYBLAS_WARP of them) and block
// chunks (E / HYBLAS_THREADS) of the group's inputs, E an input's edges from s_low: thread i
// writes the chunks of inputs 0 .. i of its warp, an inclusive scan (warp 1's is completed by
// hyblas_chunk_ends). Every lane of the two warps calls this with its input's E.
__device__ __forceinline__ void hyblas_scan_chunks(const long long edges, long long* s_wend,
                                                   long long* s_bend) {
    const int lane = threadIdx.x % HYBLAS_WARP;
    long long w = edges % HYBLAS_THREADS / HYBLAS_WARP, b = edges / HYBLAS_THREADS;
#pragma unroll
    for (int d = 1; d < HYBLAS_WARP; d *= 2) {
        const long long w_up = __shfl_up_sync(0xffffffffu, w, d);
        const long long b_up = __shfl_up_sync(0xffffffffu, b, d);
        if (lane >= d) {
            w += w_up;
            b += b_up;
        }
    }
    s_wend[threadIdx.x] = w;
    s_bend[threadIdx.x] = b;
}

// Lane l of any warp: the chunks of inputs 0 .. l (index 0) and 0 .. l + 32 (index 1), from
// hyblas_scan_chunks (once a barrier has passed), for hyblas_chunk_owner.
__device__ __forceinline__ void hyblas_chunk_ends(const long long* s_wend, const long long* s_bend,
                                                  long long (&w_end)[2], long long (&b_end)[2]) {
    const int lane = threadIdx.x % HYBLAS_WARP;
    w_end[0] = s_wend[lane];
    w_end[1] = s_wend[lane + HYBLAS_WARP] + s_wend[HYBLAS_WARP - 1];
    b_end[0] = s_bend[lane];
    b_end[1] = s_bend[lane + HYBLAS_WARP] + s_bend[HYBLAS_WARP - 1];
}

// The input that chunk c belongs to (c below the chunks of all inputs), from the chunk ends of
// hyblas_chunk_ends, and in *first its first chunk: the inputs whose chunks end at or before c
// are the ones before it (inputs without chunks included). Every lane of the warp must call
// this with the same c.
__device__ __forceinline__ int hyblas_chunk_owner(const long long (&ends)[2], long long c,
                                                  long long* first) {
    const int i = __popc(__ballot_sync(0xffffffffu, ends[0] <= c)) +
                  __popc(__ballot_sync(0xffffffffu, ends[1] <= c));
    // input i's first chunk is where input i - 1's end: lane (i - 1) % 32 holds it
    const int from = (i + HYBLAS_WARP - 1) % HYBLAS_WARP;
    const long long lo = __shfl_sync(0xffffffffu, ends[0], from);
    const long long hi = __shfl_sync(0xffffffffu, ends[1], from);
    *first = i == 0 ? 0 : (i <= HYBLAS_WARP ? lo : hi);
    return i < HYBLAS_INPUTS ? i : HYBLAS_INPUTS - 1;  // c past the end: a padding chunk
}

// The batch of chunks c .. c + HYBLAS_BATCH - 1 (those below `chunks`), numbered by `ends`
// (hyblas_chunk_ends), of SIZE edges each: stage 2's warp chunks (SIZE HYBLAS_WARP, after the
// input's block chunks) or stage 3's block chunks (SIZE HYBLAS_THREADS, from s_low); the thread
// takes the edge at `offset` of each. Every lane of the warp must call this with the same c.
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT, int SIZE>
__device__ __forceinline__ void hyblas_chunk_edges(
    const hyblas_push_view& v, const long long (&ends)[2], const long long c,
    const long long chunks, const int offset, const long long* s_low, const long long* s_end,
    const long long* s_split, const hyblas_t* s_x)
{
    bool valid[HYBLAS_BATCH];
    long long e[HYBLAS_BATCH], splits[HYBLAS_BATCH];
    hyblas_t xs[HYBLAS_BATCH];
#pragma unroll
    for (int k = 0; k < HYBLAS_BATCH; ++k) {
        long long first;
        const int i = hyblas_chunk_owner(ends, c + k, &first);
        long long start = s_low[i];
        if (SIZE == HYBLAS_WARP) {
            const long long edges = s_end[i] - s_low[i];
            start = s_low[i] + edges / HYBLAS_THREADS * HYBLAS_THREADS;
        }
        valid[k] = c + k < chunks;
        e[k] = start + (c + k - first) * SIZE + offset;
        splits[k] = s_split[i];
        xs[k] = s_x[i];
    }
    hyblas_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, valid, e, splits, xs);
}

// Walk the block's edges into high in-degree outputs one shared-memory segment at a time:
// the next segment is the lowest one any input still has edges into (inputs' edges are sorted
// by internal output id), every thread of the block takes edges of that segment from all
// inputs, combines them into the segment's words, and the touched ones are then masked and
// combined into the high outputs' work words once each (hyblas_high_push).
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ void hyblas_segment_walk(
    const hyblas_push_view& v, const int segment, const long long* s_begin,
    const long long* s_split, const hyblas_t* s_x, unsigned char* smem)
{
    __shared__ long long s_cursor[HYBLAS_INPUTS];
    __shared__ long long s_len[HYBLAS_INPUTS];
    __shared__ long long s_prefix[HYBLAS_INPUTS + 1];
    __shared__ long long s_next;
    __shared__ int s_touched;
    hyblas_word* acc = (hyblas_word*)smem;
    unsigned int* bits = (unsigned int*)(smem + hyblas_align8((size_t)segment * sizeof(hyblas_word)));
    unsigned short* touched = (unsigned short*)(bits + (segment + 31) / 32);
    const int tid = threadIdx.x;
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (int d = tid; d < segment; d += HYBLAS_THREADS) acc[d] = empty;
    for (int d = tid; d < (segment + 31) / 32; d += HYBLAS_THREADS) bits[d] = 0u;
    if (tid < HYBLAS_INPUTS) s_cursor[tid] = s_begin[tid];
    while (true) {
        if (tid == 0) {
            s_next = HYBLAS_NONE;
            s_touched = 0;
        }
        __syncthreads();
        if (tid < HYBLAS_INPUTS && s_cursor[tid] < s_split[tid])
            atomicMin(&s_next, (long long)v.dst[s_cursor[tid]] / segment);
        __syncthreads();
        const long long seg = s_next;
        if (seg == HYBLAS_NONE) break;
        const long long seg_base = seg * segment;
        if (tid < HYBLAS_INPUTS) {
            // this input's edges into the segment: up to the first internal id >= its end
            long long lo = s_cursor[tid], hi = s_split[tid];
            const long long first = lo;
            while (lo < hi) {
                const long long mid = lo + (hi - lo) / 2;
                if ((long long)v.dst[mid] < seg_base + segment) lo = mid + 1;
                else hi = mid;
            }
            s_len[tid] = lo - first;
        }
        __syncthreads();
        if (tid == 0) {
            long long run = 0;
            for (int i = 0; i < HYBLAS_INPUTS; ++i) {
                s_prefix[i] = run;
                run += s_len[i];
            }
            s_prefix[HYBLAS_INPUTS] = run;
        }
        __syncthreads();
        const long long total = s_prefix[HYBLAS_INPUTS];
        for (long long f = tid; f < total; f += HYBLAS_THREADS) {
            int lo = 0, hi = HYBLAS_INPUTS - 1;  // the last input whose range starts at or before f
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (s_prefix[mid] <= f) lo = mid;
                else hi = mid - 1;
            }
            const long long e = s_cursor[lo] + (f - s_prefix[lo]);
            const int local = (int)((long long)v.dst[e] - seg_base);
            const hyblas_t a = ISO ? v.iso : v.weights[e];
            hyblas_atomic_combine(&acc[local], FLIP ? hyblas_mult(s_x[lo], a) : hyblas_mult(a, s_x[lo]));
            const unsigned int bit = 1u << (local & 31);
            if ((bits[local >> 5] & bit) == 0u && (atomicOr(&bits[local >> 5], bit) & bit) == 0u)
                touched[atomicAdd(&s_touched, 1)] = (unsigned short)local;
        }
        __syncthreads();
        const int count = s_touched;
        for (int f = tid; f < count; f += HYBLAS_THREADS) {
            const int local = touched[f];
            const hyblas_z z = hyblas_from_word(acc[local]);
            acc[local] = empty;
            bits[local >> 5] = 0u;  // a word's bits may clear twice: all of it is flushed
            const long long d = seg_base + local;
            if (!HAS_MASK ||
                hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(v, (long long)v.order[d]))
                hyblas_high_push(v, d, z);
        }
        if (tid < HYBLAS_INPUTS) s_cursor[tid] += s_len[tid];
        __syncthreads();
    }
}

// One group of HYBLAS_INPUTS active inputs, from position `first` of the `count` (positions in
// `active`, or in queue[base, ...) in rounds). An input with more than `reach` edges is gathered
// for hyblas_sparse_spread; the block walks its inputs' edges into high in-degree outputs by
// segments (when they are at least `segment_min_edges`), and the rest in three stages: the last
// E mod 32 edges of each input by its 4-thread virtual warp, then whole warps' worth by warps,
// the rest (whole blocks' worth) by the whole block. Every thread of the block calls this; it
// starts and ends with the staging area empty.
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ void hyblas_push_group(
    const hyblas_push_view& v, const long long first, const long long count, const long long base,
    const long long* __restrict__ active, const hyblas_i* queue,
    const hyblas_t* __restrict__ xs, const int rounds, const long long high_count,
    const int segment, const long long reach, const long long segment_min_edges,
    unsigned long long* counters, long long* gathered, const long long gathered_cap,
    long long* s_begin, long long* s_split, long long* s_low, long long* s_end, hyblas_t* s_x,
    unsigned long long* s_high, unsigned long long* s_edges, unsigned char* smem)
{
    __shared__ long long s_wend[HYBLAS_INPUTS], s_bend[HYBLAS_INPUTS];  // hyblas_scan_chunks
    const int tid = threadIdx.x;
    if (tid == 0) {
        *s_high = 0ull;
        *s_edges = 0ull;
    }
    __syncthreads();
    if (tid < HYBLAS_INPUTS) {
        const long long k = first + tid;
        long long begin = 0, high_end = 0, end = 0;
        hyblas_t x = (hyblas_t)0;
        if (k < count) {
            const long long j = rounds == HYBLAS_ONE_CALL ? active[k] : (long long)queue[base + k];
            begin = v.indptr[j];
            end = v.indptr[j + 1];
            high_end = v.split[j];
            x = rounds == HYBLAS_ROUND_WS ? (hyblas_t)hyblas_from_word(v.ws[j]) : xs[k];
            if (rounds != HYBLAS_ONE_CALL) atomicAdd(s_edges, (unsigned long long)(end - begin));
            if (end - begin > reach) {
                const unsigned long long chunks =
                    (unsigned long long)((end - begin + HYBLAS_THREADS - 1) / HYBLAS_THREADS);
                const unsigned long long at =
                    atomicAdd(&counters[1], (1ull << HYBLAS_CHUNK_BITS) + chunks);
                gathered[at >> HYBLAS_CHUNK_BITS] = base + k;  // a position in active or queue
                gathered[gathered_cap + (long long)(at >> HYBLAS_CHUNK_BITS)] =
                    (long long)(at & HYBLAS_CHUNK_MASK);
                begin = high_end = end;  // nothing left for this block
            }
        }
        s_begin[tid] = begin;
        s_split[tid] = high_end;
        s_end[tid] = end;
        s_x[tid] = x;
        if (high_end > begin) atomicAdd(s_high, (unsigned long long)(high_end - begin));
    }
    __syncthreads();
    // here, not at the end: the compiler may load *s_edges in every thread, and the next
    // group's reset of it must come after a barrier (racecheck saw the end's load race it)
    if (rounds != HYBLAS_ONE_CALL && tid == 0) atomicAdd(&counters[HYBLAS_R_EDGES], *s_edges);
    const bool segmented = !HYBLAS_ANY && high_count > 0 && *s_high > 0ull &&
                           (long long)*s_high >= segment_min_edges;
    if (tid < HYBLAS_INPUTS) {  // warps 0 and 1, whole
        const long long low = segmented ? s_split[tid] : s_begin[tid];
        s_low[tid] = low;
        hyblas_scan_chunks(s_end[tid] - low, s_wend, s_bend);
    }
    if (segmented)
        hyblas_segment_walk<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, segment, s_begin, s_split,
                                                                      s_x, smem);
    __syncthreads();  // the stages read s_low (the staging area is empty here)
    {  // stage 1: the last E mod 32 edges of input i by virtual warp i
        const int i = tid / HYBLAS_VWARP;
        const long long end = s_end[i];
        const int rest = (int)((end - s_low[i]) % HYBLAS_WARP);
        // a fixed trip count, left early by the whole warp only: lanes converge
        for (int t = 0; t < HYBLAS_WARP / HYBLAS_VWARP; t += HYBLAS_BATCH) {
            if (!__any_sync(0xffffffffu, t * HYBLAS_VWARP < rest)) break;
            hyblas_strided_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(
                v, end - rest + tid % HYBLAS_VWARP, HYBLAS_VWARP, t, HYBLAS_WARP / HYBLAS_VWARP,
                end, s_split[i], s_x[i]);
        }
    }
    // stages 2 and 3 number the chunks of all the block's inputs (warp chunks of HYBLAS_WARP
    // edges, block chunks of HYBLAS_THREADS) in input order, so that a warp's or the block's
    // batch may take chunks of several inputs: walking the inputs one after another made a
    // block's time the sum of its inputs' latency chains (most inputs have a chunk or two)
    const int lane = tid % HYBLAS_WARP, warp = tid / HYBLAS_WARP;
    long long w_end[2], b_end[2];  // lane l: the chunks up to inputs l and l + 32, inclusive
    hyblas_chunk_ends(s_wend, s_bend, w_end, b_end);
    {  // stage 2: then whole warps' worth by warps, HYBLAS_BATCH consecutive chunks at a time
        const long long chunks = __shfl_sync(0xffffffffu, w_end[1], HYBLAS_WARP - 1);
        for (long long c = (long long)warp * HYBLAS_BATCH; c < chunks;
             c += (long long)HYBLAS_WARPS * HYBLAS_BATCH)
            hyblas_chunk_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT, HYBLAS_WARP>(
                v, w_end, c, chunks, lane, s_low, s_end, s_split, s_x);
    }
    {  // stage 3: the rest, whole blocks' worth, by the whole block
        const long long chunks = __shfl_sync(0xffffffffu, b_end[1], HYBLAS_WARP - 1);
        for (long long c = 0; c < chunks; c += HYBLAS_BATCH)
            hyblas_chunk_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT, HYBLAS_THREADS>(
                v, b_end, c, chunks, tid, s_low, s_end, s_split, s_x);
    }
    hyblas_flush(v);
}

// Active inputs HYBLAS_INPUTS per block (hyblas_push_group); in rounds, every block of a fixed
// grid takes groups one after another.
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__global__ void __launch_bounds__(HYBLAS_THREADS, HYBLAS_PUSH_MIN_BLOCKS) hyblas_sparse_push(
    const long long n_active,
    const long long* __restrict__ active,
    const hyblas_t* __restrict__ xs,
    const long long* __restrict__ indptr,
    const long long* __restrict__ split,
    const hyblas_i* __restrict__ dst,
    const hyblas_t* __restrict__ weights,
    const hyblas_t iso,
    const hyblas_i* __restrict__ order,
    const long long high_count,
    const int segment,
    const long long reach,
    const long long segment_min_edges,
    const hyblas_m* __restrict__ mask_values,
    const bool* __restrict__ mask_present,
    hyblas_word* ws,
    unsigned int* flags,
    unsigned int* claims,
    hyblas_word* high_ws,
    hyblas_i* list,
    unsigned long long* counters,  // [0] outputs listed, [1] inputs gathered and their chunks
    long long* gathered,  // 2 * gathered_cap: gathered inputs (positions in `active`), first chunks
    const long long gathered_cap,
    const hyblas_i* queue,  // rounds: the inputs are queue[lo, hi) (the list is the queue)
    const int rounds)  // HYBLAS_ONE_CALL, HYBLAS_ROUND_XS or HYBLAS_ROUND_WS
{
    __shared__ long long s_begin[HYBLAS_INPUTS], s_split[HYBLAS_INPUTS], s_low[HYBLAS_INPUTS],
        s_end[HYBLAS_INPUTS];
    __shared__ hyblas_t s_x[HYBLAS_INPUTS];
    __shared__ unsigned long long s_high, s_edges;
    __shared__ hyblas_i s_staged[HYBLAS_STAGE];
    __shared__ unsigned int s_staged_count[HYBLAS_WARPS];
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_push_view v = {indptr, split, dst, weights, iso, order, mask_values,
                                mask_present, ws, flags, claims, high_ws, list, counters, s_staged,
                                s_staged_count};
    if (threadIdx.x < HYBLAS_WARPS) s_staged_count[threadIdx.x] = 0u;  // a barrier follows
    long long base = 0, count = n_active;
    if (rounds != HYBLAS_ONE_CALL) {
        if (counters[HYBLAS_R_DONE]) return;
        base = (long long)counters[HYBLAS_R_LO];
        count = (long long)counters[HYBLAS_R_HI] - base;
    }
    // one group of inputs a block in one call (the grid covers them); a fixed grid in rounds
    for (long long group = blockIdx.x; group * HYBLAS_INPUTS < count; group += gridDim.x) {
        hyblas_push_group<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(
            v, group * HYBLAS_INPUTS, count, base, active, queue, xs, rounds, high_count, segment,
            reach, segment_min_edges, counters, gathered, gathered_cap, s_begin, s_split, s_low,
            s_end, s_x, &s_high, &s_edges, hyblas_smem);
    }
}

// The gathered inputs' edges, spread over every block: their chunks of HYBLAS_THREADS edges are
// numbered in slot order (the push kernel gave each gathered input its first chunk), and block b
// takes the b-th of gridDim.x equal runs of chunk numbers, finding the input of its first chunk
// by binary search. Every thread of a block takes the same path (broadcast loads).
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__global__ void __launch_bounds__(HYBLAS_THREADS) hyblas_sparse_spread(
    const long long* __restrict__ active,
    const hyblas_t* __restrict__ xs,
    const long long* __restrict__ indptr,
    const long long* __restrict__ split,
    const hyblas_i* __restrict__ dst,
    const hyblas_t* __restrict__ weights,
    const hyblas_t iso,
    const hyblas_i* __restrict__ order,
    const hyblas_m* __restrict__ mask_values,
    const bool* __restrict__ mask_present,
    hyblas_word* ws,
    unsigned int* flags,
    unsigned int* claims,
    hyblas_word* high_ws,
    hyblas_i* list,
    unsigned long long* counters,
    const long long* __restrict__ gathered,
    const long long gathered_cap,
    const hyblas_i* queue,
    const int rounds)
{
    __shared__ hyblas_i s_staged[HYBLAS_STAGE];
    __shared__ unsigned int s_staged_count[HYBLAS_WARPS];
    const hyblas_push_view v = {indptr, split, dst, weights, iso, order, mask_values,
                                mask_present, ws, flags, claims, high_ws, list, counters, s_staged,
                                s_staged_count};
    if (rounds != HYBLAS_ONE_CALL && counters[HYBLAS_R_DONE]) return;
    const unsigned long long packed = *(volatile unsigned long long*)&counters[1];
    const long long count = (long long)(packed >> HYBLAS_CHUNK_BITS);
    const long long total = (long long)(packed & HYBLAS_CHUNK_MASK);
    const long long* first_chunk = gathered + gathered_cap;
    const long long per = (total + gridDim.x - 1) / gridDim.x;
    long long c = (long long)blockIdx.x * per;
    const long long stop = min(c + per, total);
    if (c >= stop) return;  // the whole block
    if (threadIdx.x < HYBLAS_WARPS) s_staged_count[threadIdx.x] = 0u;
    __syncthreads();
    long long lo = 0, hi = count - 1;  // the last gathered input whose first chunk is <= c
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (first_chunk[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    for (long long slot = lo; c < stop; ++slot) {
        const long long k = gathered[slot];
        const long long j = rounds == HYBLAS_ONE_CALL ? active[k] : (long long)queue[k];
        const long long begin = indptr[j], end = indptr[j + 1], high_end = split[j];
        const hyblas_t x = rounds == HYBLAS_ROUND_WS ? (hyblas_t)hyblas_from_word(ws[j]) : xs[k];
        const long long first = first_chunk[slot];
        const long long next = slot + 1 < count ? first_chunk[slot + 1] : total;
        const long long until = min(next, stop);
        // chunk c's edges start at begin + (c - first) * HYBLAS_THREADS
        for (; c < until; c += HYBLAS_BATCH) {
            hyblas_strided_edges<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(
                v, begin - first * HYBLAS_THREADS + threadIdx.x, HYBLAS_THREADS, c, until, end,
                high_end, x);
        }
        c = until;
    }
    hyblas_flush(v);
}

// Rounds: after a round's push and spread, its outputs (listed after its inputs) become the next
// round's inputs, and the end of the list is kept as the round's bound; the rounds are done
// after a round that reached nothing or the last round allowed (later launches do nothing).
// One thread.
__global__ void hyblas_sparse_advance(unsigned long long* counters, const long long bound_slots)
{
    if (counters[HYBLAS_R_DONE]) return;
    const unsigned long long lo = counters[HYBLAS_R_HI], hi = counters[0];
    const unsigned long long round = counters[HYBLAS_R_ROUND];
    counters[HYBLAS_R_LO] = lo;
    counters[HYBLAS_R_HI] = hi;
    counters[1] = 0ull;
    counters[HYBLAS_R_BOUNDS + round % (unsigned long long)bound_slots] = hi;
    if (hi == lo || round >= counters[HYBLAS_R_LAST]) counters[HYBLAS_R_DONE] = 1ull;
    else counters[HYBLAS_R_ROUND] = round + 1ull;
}

// HYBLAS_ANY: before the walk, the flag of every output the mask does not allow is set and every
// other cleared (all n of them: the walk's claims of the call before are cleared too), and the
// claim bit of every high output likewise, by internal id; `blocked_words` keeps a copy of the
// flags as set here (hyblas_sparse_finish_call tells claimed outputs from masked ones by it).
// One thread an output; a warp's ballot is one word.
template <bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__global__ void hyblas_sparse_claims(
    const long long n, const long long high_count, const hyblas_i* __restrict__ order,
    const hyblas_m* __restrict__ mask_values, const bool* __restrict__ mask_present,
    unsigned int* flags, unsigned int* claims, unsigned int* blocked_words)
{
    const hyblas_push_view v = {0, 0, 0, 0, (hyblas_t)0, order, mask_values, mask_present,
                                0, flags, claims, 0, 0, 0, 0, 0};
    const long long stride = (long long)gridDim.x * blockDim.x;  // a multiple of 32
    const long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long words = (n + 31) / 32, high_words = (high_count + 31) / 32;
    for (long long k = start; k < words * 32; k += stride) {  // whole warps: lanes converge
        const bool blocked = k < n && !hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(v, k);
        const unsigned int bits = __ballot_sync(0xffffffffu, blocked);
        if ((k & 31) == 0) flags[k >> 5] = blocked_words[k >> 5] = bits;
    }
    for (long long k = start; k < high_words * 32; k += stride) {
        const bool blocked = k < high_count &&
            !hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(v, (long long)order[k]);
        const unsigned int bits = __ballot_sync(0xffffffffu, blocked);
        if ((k & 31) == 0) claims[k >> 5] = bits;
    }
}

// The listed outputs' values read out; their work words and flags reset for the next call.
// Grid-stride, from every thread of the grid.
__device__ __forceinline__ void hyblas_finish_listed(const long long count,
                                                    const hyblas_i* __restrict__ list,
                                                    hyblas_word* ws, unsigned int* flags,
                                                    hyblas_z* __restrict__ values) {
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long user = (long long)list[k];
        values[k] = hyblas_from_word(ws[user]);
#if !HYBLAS_ANY  // an `any` call's claims kernel rewrites the flags, and its first value the word
        ws[user] = empty;
        flags[user >> 5] = 0u;  // every bit set in it belongs to a listed output
#endif
    }
}

__global__ void hyblas_sparse_finish(
    const long long count, const hyblas_i* __restrict__ list, hyblas_word* ws,
    unsigned int* flags, hyblas_z* __restrict__ values)
{
    hyblas_finish_listed(count, list, ws, flags, values);
}

// Not HYBLAS_ANY, after the walk: every high output the walk touched (its bit set by internal
// id) moves to its user: its value into the user's work word (untouched: all of a high
// output's edges are high edges), its presence bit into the flags, its id onto the list; the
// high words and bits are reset for the next call. A block of HYBLAS_THREADS threads takes
// HYBLAS_THREADS outputs at a time (whole bits words: lanes converge) and lists its touched
// ones with one global atomic: one a warp, all on the list's one counter, serialized this kernel
// on that counter (a power-law graph has hundreds of thousands of high outputs).
__global__ void __launch_bounds__(HYBLAS_THREADS) hyblas_sparse_finish_high(
    const long long high_count, const hyblas_i* __restrict__ order, hyblas_word* high_ws,
    unsigned int* high_bits, hyblas_word* ws, unsigned int* flags, hyblas_i* list,
    unsigned long long* counters)
{
    __shared__ unsigned int s_touched[HYBLAS_WARPS];
    __shared__ unsigned long long s_base;
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    const long long stride = (long long)gridDim.x * HYBLAS_THREADS;
    const long long words = (high_count + 31) / 32;
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    const int warp = threadIdx.x / HYBLAS_WARP;
    for (long long first = (long long)blockIdx.x * HYBLAS_THREADS; first < words * 32;
         first += stride) {  // the same trip count in every thread of the block
        const long long k = first + threadIdx.x;
        const bool here = k < high_count && ((high_bits[k >> 5] >> (k & 31)) & 1u) != 0u;
        long long user = 0;
        if (here) {
            user = (long long)order[k];
            ws[user] = high_ws[k];
            high_ws[k] = empty;
            atomicOr(&flags[user >> 5], 1u << (user & 31));
        }
        const unsigned int lanes = __ballot_sync(0xffffffffu, here);
        if (lane == 0) {
            s_touched[warp] = (unsigned int)__popc(lanes);
            if (k < words * 32) high_bits[k >> 5] = 0u;  // every lane read it before the ballot
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned int total = 0u;
            for (int w = 0; w < HYBLAS_WARPS; ++w) total += s_touched[w];
            if (total > 0u) s_base = atomicAdd(&counters[0], (unsigned long long)total);
        }
        __syncthreads();
        if (here) {
            unsigned long long at = s_base + __popc(lanes & ((1u << lane) - 1u));
            for (int w = 0; w < warp; ++w) at += s_touched[w];
            list[at] = (hyblas_i)user;
        }
        __syncthreads();  // all have read s_touched and s_base before the next round writes them
    }
}

// A single call's finish, in the format its output count asks for, decided here: the host
// launches this behind the walk and learns the count from it (`published`), so the GPU does not
// idle while the host reads the count and launches the finish. A list result (count * sparse_below
// < n): the listed outputs' values into values[0, count), in list order. A bitmap result: the
// presence of every output and, unless `hand_over`, its value (an absent output's value is a
// placeholder); with `hand_over` the work array itself becomes the result's values (same word
// and value size, not `any`), and a new one, filled by hyblas_sparse_refill, becomes the
// workspace's. Work words (unless handed over) and flags are reset for the next call, as in
// hyblas_sparse_finish. The bitmap is one pass over all
// n outputs, coalesced, where the list would cost a few random accesses per output (slower
// unless the outputs are few): a thread takes 4 outputs (their presence one 4-byte store), and
// whole warps take the 8 quads of a flags word, so that the word is reset once all have read it.
// `published`: a pinned host word (hyblas.backend.CountMailbox) that the first thread writes
// `tag << 40 | count` into (40: CountMailbox.COUNT_BITS) first of all, so that the host builds
// the result while the rest of this kernel runs.
__global__ void hyblas_sparse_finish_call(
    const long long n, const hyblas_i* __restrict__ list, hyblas_word* ws, unsigned int* flags,
    const unsigned int* __restrict__ blocked_words, const unsigned long long* __restrict__ counters,
    const long long sparse_below, const int hand_over, hyblas_z* __restrict__ values,
    bool* __restrict__ present,
    unsigned long long* published, const unsigned long long tag)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    const long long count = (long long)counters[0];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *(volatile unsigned long long*)published = (tag << 40) | (unsigned long long)count;
        __threadfence_system();  // out to the host now, not when the kernel ends
    }
    const long long stride = (long long)gridDim.x * blockDim.x;  // a multiple of 32
    const long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (count * sparse_below < n) {
        hyblas_finish_listed(count, list, ws, flags, values);
        return;
    }
    const long long quads = (n + 31) / 32 * 8;  // 8 quads a flags word
    // whole warps: lanes converge
    for (long long q = start; q < (quads + 31) / 32 * 32; q += stride) {
        const long long base = q * 4;
        unsigned int bits = 0u;
        if (q < quads) {
            unsigned int word = flags[base >> 5];
#if HYBLAS_ANY
            word &= ~blocked_words[base >> 5];
#endif
            bits = (word >> (base & 31)) & 0xfu;
            if (base + 3 < n) {  // little-endian: output base + i is byte i
                *(unsigned int*)(present + base) =
                    (bits & 1u) | ((bits & 2u) << 7) | ((bits & 4u) << 14) | ((bits & 8u) << 21);
            }
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const long long k = base + i;
                if (k >= n) break;
                const bool here = ((bits >> i) & 1u) != 0u;
                if (base + 3 >= n) present[k] = here;
                if (!hand_over) {
                    values[k] = here ? hyblas_from_word(ws[k]) : (hyblas_z)0;
#if !HYBLAS_ANY
                    if (here) ws[k] = empty;
#endif
                }
            }
        }
#if !HYBLAS_ANY
        __syncwarp();
        if (q < quads && (base & 31) == 0) flags[base >> 5] = 0u;
#endif
    }
}

// The work array that replaces one a call's bitmap result took over (hand_over in
// hyblas_sparse_finish_call): every word the identity. The host launches it on a second stream
// behind the call (hyblas.backend.run_behind), where it overlaps the host's time between calls;
// the next call's kernels wait for it. 16-byte stores (a new array is 256-byte aligned), the
// tail word by word.
__global__ void hyblas_sparse_refill(const long long n, hyblas_word* __restrict__ ws)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long start = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    constexpr int per = 16 / (int)sizeof(hyblas_word);
    union { uint4 v; hyblas_word w[per]; } fill;
    for (int i = 0; i < per; ++i) fill.w[i] = empty;
    const long long vectors = n / per;
    for (long long k = start; k < vectors; k += stride) ((uint4*)ws)[k] = fill.v;
    for (long long k = vectors * per + start; k < n; k += stride) ws[k] = empty;
}

// A fresh work array: identity words, no presence bits; the same for the high outputs' words
// and bits by internal id.
__global__ void hyblas_sparse_fill(const long long n, hyblas_word* ws, unsigned int* flags,
                                   const long long high_count, hyblas_word* high_ws,
                                   unsigned int* high_bits)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        ws[k] = empty;
        if ((k & 31) == 0) flags[k >> 5] = 0u;
        if (k < high_count) {
            high_ws[k] = empty;
            if ((k & 31) == 0) high_bits[k >> 5] = 0u;
        }
    }
}
