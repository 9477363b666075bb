// hyblas sparse-frontier SpMSpV (MultiGraphS): push from the active inputs over the layout of
// hyblas/ops/sparse/layout.py, masked in the kernel, the output compacted into a list.
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
// `list` (warp-aggregated atomics); hyblas_sparse_finish reads the values out and resets both.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;
typedef ${I} hyblas_i;
typedef ${M} hyblas_m;

#define HYBLAS_INPUTS 64     // INPUTS_PER_BLOCK in params.py
#define HYBLAS_THREADS 256   // THREADS
#define HYBLAS_WARP 32
#define HYBLAS_VWARP 4       // HYBLAS_THREADS / HYBLAS_INPUTS: one virtual warp per input
#define HYBLAS_ANY ${ANY}
#define HYBLAS_NONE 0x7fffffffffffffffLL

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
    hyblas_i* list;
    unsigned long long* count;
};

template <bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ __forceinline__ bool hyblas_allowed(const hyblas_push_view& v, long long user) {
    if (!HAS_MASK) return true;
    const bool m = v.mask_present[user];
    const bool allowed = STRUCTURAL ? m : (m && (bool)v.mask_values[user]);
    return COMPLEMENT ? !allowed : allowed;
}

// Combine z into output `user`; true for the one call that made the output present. Presence
// is one bit per output (a kron24 output set is 2 MB: it stays in L2).
__device__ __forceinline__ bool hyblas_global_push(const hyblas_push_view& v, long long user,
                                                   hyblas_z z) {
    unsigned int* word = &v.flags[user >> 5];
    const unsigned int bit = 1u << (user & 31);
#if HYBLAS_ANY
    if ((*(volatile unsigned int*)word & bit) != 0u || (atomicOr(word, bit) & bit) != 0u)
        return false;
    v.ws[user] = hyblas_to_word(z);
    return true;
#else
    hyblas_atomic_combine(&v.ws[user], z);
    return (*(volatile unsigned int*)word & bit) == 0u && (atomicOr(word, bit) & bit) == 0u;
#endif
}

// Append `user` to the output list where `want`; every lane of the warp must call this.
__device__ __forceinline__ void hyblas_append(const hyblas_push_view& v, bool want, long long user) {
    const unsigned int lanes = __ballot_sync(0xffffffffu, want);
    if (lanes == 0u) return;
    const int lane = threadIdx.x & (HYBLAS_WARP - 1);
    const int leader = __ffs(lanes) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(v.count, (unsigned long long)__popc(lanes));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (want) v.list[base + __popc(lanes & ((1u << lane) - 1u))] = (hyblas_i)user;
}

// One edge on the global path: the mask first (a masked output costs this one read), then
// the atomics. Every lane of the warp must call this (`valid` false for padding lanes).
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__device__ __forceinline__ void hyblas_edge(const hyblas_push_view& v, bool valid, long long e,
                                            long long split, hyblas_t x) {
    bool first = false;
    long long user = 0;
    if (valid) {
        const long long d = (long long)v.dst[e];
        user = e < split ? (long long)v.order[d] : d;
        if (hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(v, user)) {
            const hyblas_t a = ISO ? v.iso : v.weights[e];
            first = hyblas_global_push(v, user, FLIP ? hyblas_mult(x, a) : hyblas_mult(a, x));
        }
    }
    hyblas_append(v, first, user);
}

__device__ __forceinline__ size_t hyblas_align8(size_t bytes) { return (bytes + 7) & ~(size_t)7; }

// Walk the block's edges into high in-degree outputs one shared-memory segment at a time:
// the next segment is the lowest one any input still has edges into (inputs' edges are sorted
// by internal output id), every thread of the block takes edges of that segment from all
// inputs, combines them into the segment's words, and the touched ones are then masked and
// pushed to the output once each.
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
        const int rounds = (count + HYBLAS_THREADS - 1) / HYBLAS_THREADS * HYBLAS_THREADS;
        for (int f = tid; f < rounds; f += HYBLAS_THREADS) {  // whole rounds: lanes converge
            bool first = false;
            long long user = 0;
            if (f < count) {
                const int local = touched[f];
                const hyblas_z z = hyblas_from_word(acc[local]);
                acc[local] = empty;
                bits[local >> 5] = 0u;  // a word's bits may clear twice: all of it is flushed
                user = (long long)v.order[seg_base + local];
                if (hyblas_allowed<HAS_MASK, STRUCTURAL, COMPLEMENT>(v, user))
                    first = hyblas_global_push(v, user, z);
            }
            hyblas_append(v, first, user);
        }
        if (tid < HYBLAS_INPUTS) s_cursor[tid] += s_len[tid];
        __syncthreads();
    }
}

// Active inputs HYBLAS_INPUTS per block. An input with more than `reach` edges is gathered for
// hyblas_sparse_spread; the block walks its inputs' edges into high in-degree outputs by
// segments (when they are at least `segment_min_edges`), and the rest in three stages: the last
// E mod 32 edges of each input by its 4-thread virtual warp, then whole warps' worth by warps,
// the rest (whole blocks' worth) by the whole block.
template <bool FLIP, bool ISO, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT>
__global__ void __launch_bounds__(HYBLAS_THREADS) hyblas_sparse_push(
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
    hyblas_i* list,
    unsigned long long* counters,  // [0] outputs listed, [1] inputs gathered
    long long* gathered)
{
    __shared__ long long s_begin[HYBLAS_INPUTS], s_split[HYBLAS_INPUTS], s_low[HYBLAS_INPUTS],
        s_end[HYBLAS_INPUTS];
    __shared__ hyblas_t s_x[HYBLAS_INPUTS];
    __shared__ unsigned long long s_high;
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_push_view v = {indptr, split, dst, weights, iso, order, mask_values,
                                mask_present, ws, flags, list, counters};
    const int tid = threadIdx.x;
    if (tid == 0) s_high = 0ull;
    __syncthreads();
    if (tid < HYBLAS_INPUTS) {
        const long long k = (long long)blockIdx.x * HYBLAS_INPUTS + tid;
        long long begin = 0, high_end = 0, end = 0;
        hyblas_t x = (hyblas_t)0;
        if (k < n_active) {
            const long long j = active[k];
            begin = indptr[j];
            end = indptr[j + 1];
            high_end = split[j];
            x = xs[k];
            if (end - begin > reach) {
                gathered[atomicAdd(&counters[1], 1ull)] = k;
                begin = high_end = end;  // nothing left for this block
            }
        }
        s_begin[tid] = begin;
        s_split[tid] = high_end;
        s_end[tid] = end;
        s_x[tid] = x;
        if (high_end > begin) atomicAdd(&s_high, (unsigned long long)(high_end - begin));
    }
    __syncthreads();
    const bool segmented = high_count > 0 && s_high > 0ull && (long long)s_high >= segment_min_edges;
    if (tid < HYBLAS_INPUTS) s_low[tid] = segmented ? s_split[tid] : s_begin[tid];
    if (segmented)
        hyblas_segment_walk<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, segment, s_begin, s_split,
                                                                      s_x, hyblas_smem);
    __syncthreads();
    {  // stage 1: the last E mod 32 edges of input i by virtual warp i
        const int i = tid / HYBLAS_VWARP;
        const long long end = s_end[i];
        const int rest = (int)((end - s_low[i]) % HYBLAS_WARP);
        for (int t = 0; t < HYBLAS_WARP / HYBLAS_VWARP; ++t) {  // fixed trip count: lanes converge
            const int at = t * HYBLAS_VWARP + tid % HYBLAS_VWARP;
            hyblas_edge<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, at < rest, end - rest + at,
                                                                 s_split[i], s_x[i]);
        }
    }
    {  // stage 2: then whole warps' worth by warps
        const int warp = tid / HYBLAS_WARP, lane = tid % HYBLAS_WARP;
        for (int i = warp; i < HYBLAS_INPUTS; i += HYBLAS_THREADS / HYBLAS_WARP) {
            const long long low = s_low[i], count = s_end[i] - low;
            const long long start = low + count / HYBLAS_THREADS * HYBLAS_THREADS;
            const int chunks = (int)(count % HYBLAS_THREADS / HYBLAS_WARP);
            for (int q = 0; q < chunks; ++q)
                hyblas_edge<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(
                    v, true, start + q * HYBLAS_WARP + lane, s_split[i], s_x[i]);
        }
    }
    // stage 3: the rest, whole blocks' worth, by the whole block
    for (int i = 0; i < HYBLAS_INPUTS; ++i) {
        const long long low = s_low[i];
        const long long chunks = (s_end[i] - low) / HYBLAS_THREADS;
        for (long long q = 0; q < chunks; ++q)
            hyblas_edge<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(
                v, true, low + q * HYBLAS_THREADS + tid, s_split[i], s_x[i]);
    }
}

// The gathered inputs' edges, spread over every block: chunks of HYBLAS_THREADS edges are
// numbered across all gathered inputs and block b takes the chunks numbered b mod gridDim.x.
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
    hyblas_i* list,
    unsigned long long* counters,
    const long long* __restrict__ gathered)
{
    __shared__ long long s_begin[HYBLAS_THREADS], s_split[HYBLAS_THREADS], s_end[HYBLAS_THREADS];
    __shared__ hyblas_t s_x[HYBLAS_THREADS];
    const hyblas_push_view v = {indptr, split, dst, weights, iso, order, mask_values,
                                mask_present, ws, flags, list, counters};
    const int tid = threadIdx.x;
    const long long count = (long long)*(volatile unsigned long long*)&counters[1];
    const long long blocks = gridDim.x;
    long long before = 0;  // chunks of the gathered inputs already numbered
    for (long long base = 0; base < count; base += HYBLAS_THREADS) {
        __syncthreads();
        if (base + tid < count) {  // the next HYBLAS_THREADS gathered inputs, loaded at once
            const long long k = gathered[base + tid];
            const long long j = active[k];
            s_begin[tid] = indptr[j];
            s_end[tid] = indptr[j + 1];
            s_split[tid] = split[j];
            s_x[tid] = xs[k];
        }
        __syncthreads();
        const int here = (int)min((long long)HYBLAS_THREADS, count - base);
        for (int g = 0; g < here; ++g) {
            const long long begin = s_begin[g], end = s_end[g];
            const long long chunks = (end - begin + HYBLAS_THREADS - 1) / HYBLAS_THREADS;
            long long q = ((long long)blockIdx.x - before) % blocks;
            if (q < 0) q += blocks;
            for (; q < chunks; q += blocks) {
                const long long e = begin + q * HYBLAS_THREADS + tid;
                hyblas_edge<FLIP, ISO, HAS_MASK, STRUCTURAL, COMPLEMENT>(v, e < end, e, s_split[g],
                                                                     s_x[g]);
            }
            before += chunks;
        }
    }
}

// The listed outputs' values read out; their work words and flags reset for the next call.
__global__ void hyblas_sparse_finish(
    const long long count, const hyblas_i* __restrict__ list, hyblas_word* ws,
    unsigned int* flags, hyblas_z* __restrict__ values)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long user = (long long)list[k];
        values[k] = hyblas_from_word(ws[user]);
        ws[user] = empty;
        flags[user >> 5] = 0u;  // every bit set in it belongs to a listed output
    }
}

// The same into a bitmap (values and presence of every output), for results too large to sort.
__global__ void hyblas_sparse_finish_bitmap(
    const long long count, const hyblas_i* __restrict__ list, hyblas_word* ws,
    unsigned int* flags, hyblas_z* __restrict__ values, bool* __restrict__ present)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long user = (long long)list[k];
        values[user] = hyblas_from_word(ws[user]);
        present[user] = true;
        ws[user] = empty;
        flags[user >> 5] = 0u;
    }
}

// A fresh work array: identity words, no presence bits.
__global__ void hyblas_sparse_fill(const long long n, hyblas_word* ws, unsigned int* flags)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        ws[k] = empty;
        if ((k & 31) == 0) flags[k >> 5] = 0u;
    }
}
