// hyblas dense-frontier SpMV (MultiGraphD): phase 1 over heavy tiles and light streams,
// phase 2 reducing each row panel's partial results and writing the output once.
//
// Specialized per (semiring, operand type, output write) by string.Template substitution:
//   ${T} operand type, ${Z} result type, ${MULT} / ${ADD} expressions in x and y,
//   ${IDENTITY} the add monoid's identity,
//   ${WORD} the shared-memory accumulator word (4 or 8 bytes), ${TO_WORD} / ${FROM_WORD} the
//   conversions (statements using v / w), ${ATOMIC} the combine of v into *slot (a native
//   atomic where the hardware has one for this monoid and type, else a compare-and-swap loop),
//   ${O} output type, ${M} mask value type, ${ACC_T} / ${ACCUM} the accumulator's type and
//   expression in x (old) and y (new).
// Layout: hyblas/executors/dense/layout.py. Shared memory is dynamic; offsets are computed by
// hyblas_smem_layout here and by shared_bytes() in executor.py, which must agree.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;
typedef ${O} hyblas_o;
typedef ${M} hyblas_m;
typedef ${ACC_T} hyblas_acc_t;

#define HYBLAS_PAD (-32768)
#define HYBLAS_VECTOR 8  // int16 tokens per thread per step: VECTOR in layout.py
#define HYBLAS_BATCH 8  // independent loads a thread issues before using any (latency hiding)
// rows per thread of the unpermute pass (UNPERMUTE_ROWS): 8 took 70 registers, one block of 512
// threads per SM, and left its scattered reads waiting; 4 take 40, three blocks
#define HYBLAS_UNPERMUTE_BATCH 4

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }
__device__ __forceinline__ hyblas_o hyblas_accum(hyblas_acc_t x, hyblas_acc_t y) { return (hyblas_o)(${ACCUM}); }
// The product of stored entry a and input x (FLIP: x ⊗ a, as vxm multiplies).
template <bool FLIP>
__device__ __forceinline__ hyblas_z hyblas_product(hyblas_t a, hyblas_t x) {
    return FLIP ? hyblas_mult(x, a) : hyblas_mult(a, x);
}
__device__ __forceinline__ hyblas_word hyblas_to_word(hyblas_z v) { ${TO_WORD} }
__device__ __forceinline__ hyblas_z hyblas_from_word(hyblas_word w) { ${FROM_WORD} }
__device__ __forceinline__ void hyblas_atomic_combine(hyblas_word* slot, hyblas_z v) { ${ATOMIC} }

__device__ __forceinline__ size_t hyblas_align8(size_t bytes) { return (bytes + 7) & ~(size_t)7; }

// Shared memory: [acc words x height][x panel x width][found flags x height][present x width];
// the flags only where the kernel needs them (flags).
struct hyblas_smem_layout {
    hyblas_word* acc;
    hyblas_t* xs;
    unsigned int* found;
    bool* ps;
};

__device__ __forceinline__ hyblas_smem_layout hyblas_carve(unsigned char* base, int height, int width,
                                                          bool flags) {
    hyblas_smem_layout s;
    size_t at = 0;
    s.acc = (hyblas_word*)(base + at);
    at = hyblas_align8(at + (size_t)height * sizeof(hyblas_word));
    s.xs = (hyblas_t*)(base + at);
    at = hyblas_align8(at + (size_t)width * sizeof(hyblas_t));
    s.found = flags ? (unsigned int*)(base + at) : nullptr;
    at = hyblas_align8(at + (size_t)height * sizeof(unsigned int));
    s.ps = flags ? (bool*)(base + at) : nullptr;
    return s;
}

// The column panel's input values (and presence flags) into shared memory.
template <bool ALL_PRESENT>
__device__ __forceinline__ void hyblas_load_panel(
    long long first, long long ncols, int width, const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present, hyblas_t* xs, bool* ps)
{
    const long long left = ncols - first;
    const int count = left < (long long)width ? (int)left : width;
    // HYBLAS_BATCH loads per thread are issued before any store, so they overlap
    for (int k0 = threadIdx.x; k0 < count; k0 += HYBLAS_BATCH * blockDim.x) {
        hyblas_t v[HYBLAS_BATCH];
        bool p[HYBLAS_BATCH];
#pragma unroll
        for (int i = 0; i < HYBLAS_BATCH; ++i) {
            const int k = k0 + i * blockDim.x;
            if (k < count) {
                v[i] = u[first + k];
                if (!ALL_PRESENT) p[i] = u_present[first + k];
            }
        }
#pragma unroll
        for (int i = 0; i < HYBLAS_BATCH; ++i) {
            const int k = k0 + i * blockDim.x;
            if (k < count) {
                xs[k] = v[i];
                if (!ALL_PRESENT) ps[k] = p[i];
            }
        }
    }
}

// A barrier for the `threads` threads of one group of a heavy block: named barrier 1 + group
// (barrier 0 is __syncthreads), whose thread count must be a multiple of 32; a block of one
// group (of any size) takes __syncthreads.
__device__ __forceinline__ void hyblas_group_sync(int group, int groups, int threads) {
    if (groups == 1) {
        __syncthreads();
    } else {
        asm volatile("bar.sync %0, %1;" : : "r"(group + 1), "r"(threads) : "memory");
    }
}

// Phase 1, heavy units: one thread block per team (consecutive units of one column panel, whose
// inputs it loads into shared memory once). The block's threads form groups of tile_width
// threads, one tile column per thread; group g walks units g, g + groups, ... of the team, each
// with accumulators of its own, so several units share one panel load. A thread combines its
// runs in a register and flushes each into its unit's shared accumulator of its destination;
// the group then writes one partial per distinct destination to the unit's pre-assigned slots,
// and resets just those accumulators for its next unit (every one it touched has a slot).
// A column holds a contiguous piece of the unit's entries in destination order, so only its
// first and last runs can share their destination with other columns (its neighbours): those
// flush with an atomic, every run between them with a plain store.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__device__ __forceinline__ void hyblas_heavy_team(
    const long long team,
    const int width,
    const int height,
    const int tile_width,
    const long long ncols,
    const long long* __restrict__ team_begin,
    const long long* __restrict__ team_end,
    const int* __restrict__ unit_panel,
    const int* __restrict__ unit_steps,
    const long long* __restrict__ unit_offset,
    const long long* __restrict__ unit_slot_base,
    const int* __restrict__ unit_slot_count,
    const short* __restrict__ table,
    const hyblas_t* __restrict__ weights,
    const hyblas_t iso_value,
    const unsigned short* __restrict__ slot_dst,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ partial,
    bool* __restrict__ partial_present,
    unsigned char* smem)
{
    const int groups = blockDim.x / tile_width;
    const hyblas_smem_layout s = hyblas_carve(smem, height * groups, width, !ALL_PRESENT);
    const int group = threadIdx.x / tile_width;
    const int tid = threadIdx.x - group * tile_width;
    hyblas_word* const acc = s.acc + group * height;
    unsigned int* const found = ALL_PRESENT ? nullptr : s.found + group * height;
    const long long first_unit = team_begin[team];
    const long long last_unit = team_end[team];
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    hyblas_load_panel<ALL_PRESENT>((long long)unit_panel[first_unit] * width, ncols, width, u,
                                   u_present, s.xs, s.ps);
    for (int d = threadIdx.x; d < height * groups; d += blockDim.x) {
        s.acc[d] = empty;
        if (!ALL_PRESENT) s.found[d] = 0u;
    }
    __syncthreads();
    for (long long unit = first_unit + group; unit < last_unit; unit += groups) {

        // step k of this thread: HYBLAS_VECTOR tokens in one 16-byte load; the next step's load
        // is issued before this step's tokens are walked, so a warp keeps two in flight
        const int steps = unit_steps[unit];
        const long long column = unit_offset[unit] + (long long)tid * HYBLAS_VECTOR;
        const long long stride = (long long)tile_width * HYBLAS_VECTOR;
        hyblas_z run = (hyblas_z)(${IDENTITY});
        bool run_found = false;
        bool done = false;
        bool first_run = true;  // the open run is the column's first (opened by its first marker)
        int dst = -1;  // no run open yet
        int4 next = make_int4(0, 0, 0, 0);
        if (steps > 0) next = *reinterpret_cast<const int4*>(table + column);
        for (int k = 0; k < steps && !done; ++k) {
            const long long at = column + (long long)k * stride;
            const int4 chunk = next;
            if (k + 1 < steps) next = *reinterpret_cast<const int4*>(table + at + stride);
            const short* tokens = reinterpret_cast<const short*>(&chunk);
            // the step's weights and inputs first, as independent loads (a marker reads xs[0])
            hyblas_t wv[HYBLAS_VECTOR];
            hyblas_t xv[HYBLAS_VECTOR];
            bool live[HYBLAS_VECTOR];
#pragma unroll
            for (int i = 0; i < HYBLAS_VECTOR; ++i) {
                wv[i] = ISO ? iso_value : weights[at + i];
                const int j = tokens[i] >= 0 ? tokens[i] : 0;
                xv[i] = s.xs[j];
                live[i] = ALL_PRESENT || s.ps[j];
            }
            // most steps of a full input hold no marker (no sign bit among the 8 tokens): fold
            // them into the run without a branch per token
            if (ALL_PRESENT && ((chunk.x | chunk.y | chunk.z | chunk.w) & 0x80008000) == 0) {
                hyblas_z sum = hyblas_product<FLIP>(wv[0], xv[0]);
#pragma unroll
                for (int i = 1; i < HYBLAS_VECTOR; ++i) {
                    sum = hyblas_add(sum, hyblas_product<FLIP>(wv[i], xv[i]));
                }
                run = run_found ? hyblas_add(run, sum) : sum;
                run_found = true;
                continue;
            }
#pragma unroll
            for (int i = 0; i < HYBLAS_VECTOR; ++i) {
                const int token = tokens[i];
                if (token < 0) {
                    if (token == HYBLAS_PAD) {
                        done = true;
                        break;
                    }
                    if (run_found) {
                        if (first_run) {  // its destination may continue from the column before
                            hyblas_atomic_combine(&acc[dst], run);
                            if (!ALL_PRESENT) atomicOr(&found[dst], 1u);
                        } else {  // a middle run: no other column has this destination
                            acc[dst] = hyblas_to_word(run);
                            if (!ALL_PRESENT) found[dst] = 1u;
                        }
                    }
                    first_run = dst < 0;  // no run was open before this marker
                    dst = -token - 1;
                    run_found = false;
                } else if (live[i]) {
                    const hyblas_t a = wv[i];
                    const hyblas_z p = hyblas_product<FLIP>(a, xv[i]);
                    run = run_found ? hyblas_add(run, p) : p;
                    run_found = true;
                }
            }
        }
        if (run_found) {
            hyblas_atomic_combine(&acc[dst], run);
            if (!ALL_PRESENT) atomicOr(&found[dst], 1u);
        }
        hyblas_group_sync(group, groups, tile_width);

        const long long base = unit_slot_base[unit];
        const int count = unit_slot_count[unit];
        for (int i0 = tid; i0 < count; i0 += HYBLAS_BATCH * tile_width) {
            int ds[HYBLAS_BATCH];
#pragma unroll
            for (int b = 0; b < HYBLAS_BATCH; ++b) {
                const int i = i0 + b * tile_width;
                if (i < count) ds[b] = slot_dst[base + i];
            }
#pragma unroll
            for (int b = 0; b < HYBLAS_BATCH; ++b) {
                const int i = i0 + b * tile_width;
                if (i < count) {
                    const int d = ds[b];
                    partial[base + i] = hyblas_from_word(acc[d]);
                    acc[d] = empty;
                    if (!ALL_PRESENT) {
                        partial_present[base + i] = found[d] != 0u;
                        found[d] = 0u;
                    }
                }
            }
        }
        hyblas_group_sync(group, groups, tile_width);
    }
}

// Phase 1, light units: a column panel's light stream, one product per entry into its slot.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__device__ __forceinline__ void hyblas_light_unit(
    const int unit,
    const int width,
    const long long ncols,
    const int* __restrict__ unit_panel,
    const long long* __restrict__ unit_begin,
    const long long* __restrict__ unit_end,
    const short* __restrict__ src,
    const hyblas_t* __restrict__ weights,
    const hyblas_t iso_value,
    const int* __restrict__ slot,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ partial,
    bool* __restrict__ partial_present,
    unsigned char* smem)
{
    const hyblas_smem_layout s = hyblas_carve(smem, 0, width, !ALL_PRESENT);
    hyblas_load_panel<ALL_PRESENT>((long long)unit_panel[unit] * width, ncols, width, u, u_present,
                                   s.xs, s.ps);
    __syncthreads();
    const long long end = unit_end[unit];
    const long long stride = blockDim.x;
    // HYBLAS_BATCH entries per thread: their loads are issued before any product is written
    for (long long k0 = unit_begin[unit] + threadIdx.x; k0 < end; k0 += HYBLAS_BATCH * stride) {
        int j[HYBLAS_BATCH];
        int target[HYBLAS_BATCH];
        hyblas_t a[HYBLAS_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_BATCH; ++b) {
            const long long k = k0 + b * stride;
            if (k < end) {
                j[b] = src[k];
                target[b] = slot[k];
                a[b] = ISO ? iso_value : weights[k];
            }
        }
#pragma unroll
        for (int b = 0; b < HYBLAS_BATCH; ++b) {
            if (k0 + b * stride < end) {
                if (ALL_PRESENT || s.ps[j[b]]) {
                    const hyblas_t x = s.xs[j[b]];
                    partial[target[b]] = hyblas_product<FLIP>(a[b], x);
                    if (!ALL_PRESENT) partial_present[target[b]] = true;
                } else {
                    // a value too: phase 2 loads a batch of slots' values before their flags
                    partial[target[b]] = (hyblas_z)0;
                    partial_present[target[b]] = false;
                }
            }
        }
    }
}

#define HYBLAS_HEAVY_PARAMS                                                                    \
    const int width, const int height, const int tile_width, const long long ncols,              \
    const long long* __restrict__ team_begin, const long long* __restrict__ team_end,            \
    const int* __restrict__ unit_panel, const int* __restrict__ unit_steps,                      \
    const long long* __restrict__ unit_offset, const long long* __restrict__ unit_slot_base,     \
    const int* __restrict__ unit_slot_count, const short* __restrict__ table,                    \
    const hyblas_t* __restrict__ weights, const hyblas_t iso_value,                              \
    const unsigned short* __restrict__ slot_dst
#define HYBLAS_HEAVY_ARGS                                                                      \
    width, height, tile_width, ncols, team_begin, team_end, unit_panel, unit_steps, unit_offset, \
    unit_slot_base, unit_slot_count, table, weights, iso_value, slot_dst
#define HYBLAS_LIGHT_PARAMS                                                                    \
    const int* __restrict__ light_panel, const long long* __restrict__ light_begin,              \
    const long long* __restrict__ light_end, const short* __restrict__ light_src,                \
    const hyblas_t* __restrict__ light_weights, const int* __restrict__ light_slot
#define HYBLAS_LIGHT_ARGS(unit)                                                                \
    unit, width, ncols, light_panel, light_begin, light_end, light_src, light_weights,           \
    iso_value, light_slot
#define HYBLAS_PHASE1_OUTPUTS                                                                  \
    const hyblas_t* __restrict__ u, const bool* __restrict__ u_present,                          \
    hyblas_z* __restrict__ partial, bool* __restrict__ partial_present

// Phase 1 as two launches: one thread block per heavy team, then one per light unit.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__global__ void hyblas_dense_heavy(HYBLAS_HEAVY_PARAMS, HYBLAS_PHASE1_OUTPUTS)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    hyblas_heavy_team<FLIP, ALL_PRESENT, ISO>(blockIdx.x, HYBLAS_HEAVY_ARGS, u, u_present, partial,
                                              partial_present, hyblas_smem);
}

template <bool FLIP, bool ALL_PRESENT, bool ISO>
__global__ void hyblas_dense_light(const int width, const long long ncols, HYBLAS_LIGHT_PARAMS,
                                   const hyblas_t iso_value, HYBLAS_PHASE1_OUTPUTS)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    hyblas_light_unit<FLIP, ALL_PRESENT, ISO>(HYBLAS_LIGHT_ARGS(blockIdx.x), u, u_present, partial,
                                              partial_present, hyblas_smem);
}

// Phase 1 in one launch: block b takes heavy team work[b] (>= 0) or light unit -1 - work[b].
// The heavy walk is bound by instructions and the light stream by memory; with the light
// units spread among the heavy teams (work), SMs that run light units use the memory
// bandwidth that the heavy teams on the other SMs leave, instead of the light launch waiting
// for the heavy one to end. Heavy and light blocks have the same number of threads.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__global__ void hyblas_dense_phase1(HYBLAS_HEAVY_PARAMS, HYBLAS_LIGHT_PARAMS,
                                    const int* __restrict__ work, HYBLAS_PHASE1_OUTPUTS)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const int item = work[blockIdx.x];
    if (item >= 0) {
        hyblas_heavy_team<FLIP, ALL_PRESENT, ISO>(item, HYBLAS_HEAVY_ARGS, u, u_present, partial,
                                                  partial_present, hyblas_smem);
    } else {
        hyblas_light_unit<FLIP, ALL_PRESENT, ISO>(HYBLAS_LIGHT_ARGS(-1 - item), u, u_present,
                                                  partial, partial_present, hyblas_smem);
    }
}

// Reduce the slots [begin, end) into the block's shared accumulators (cleared first) by
// slot_dst, loading HYBLAS_BATCH slots per thread before combining any, so the loads overlap;
// the accumulators are complete when this returns (it ends with a barrier).
template <bool ALL_PRESENT>
__device__ __forceinline__ void hyblas_reduce_slots(
    const int height, const long long begin, const long long end,
    const unsigned short* __restrict__ slot_dst, const hyblas_z* __restrict__ partial,
    const bool* __restrict__ partial_present, const hyblas_smem_layout& s)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (int d = threadIdx.x; d < height; d += blockDim.x) {
        s.acc[d] = empty;
        s.found[d] = 0u;
    }
    __syncthreads();
    const long long stride = blockDim.x;
    for (long long first = begin + threadIdx.x; first < end; first += HYBLAS_BATCH * stride) {
        int d[HYBLAS_BATCH];
        hyblas_z v[HYBLAS_BATCH];
        bool live[HYBLAS_BATCH];
#pragma unroll
        for (int i = 0; i < HYBLAS_BATCH; ++i) {
            const long long k = first + i * stride;
            live[i] = k < end;
            if (live[i]) {
                d[i] = slot_dst[k];
                v[i] = partial[k];
                if (!ALL_PRESENT) live[i] = partial_present[k];
            }
        }
#pragma unroll
        for (int i = 0; i < HYBLAS_BATCH; ++i) {
            if (live[i]) {
                hyblas_atomic_combine(&s.acc[d[i]], v[i]);
                atomicOr(&s.found[d[i]], 1u);
            }
        }
    }
    __syncthreads();
}

// The accumulators of the split row panels start at the identity, nothing found.
__global__ void hyblas_dense_split_init(const long long count, hyblas_word* __restrict__ split_acc,
                                        unsigned int* __restrict__ split_found)
{
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x) {
        split_acc[i] = empty;
        split_found[i] = 0u;
    }
}

// Phase 2a: one thread block per chunk of a split row panel's slots. It reduces the chunk in
// shared memory, then combines each output it found into the panel's accumulator in global
// memory (an atomic per output per chunk, instead of one per slot).
template <bool ALL_PRESENT>
__global__ void hyblas_dense_reduce_chunks(
    const int height,
    const int* __restrict__ chunk_split,
    const long long* __restrict__ chunk_begin,
    const long long* __restrict__ chunk_end,
    const unsigned short* __restrict__ slot_dst,
    const hyblas_z* __restrict__ partial,
    const bool* __restrict__ partial_present,
    hyblas_word* __restrict__ split_acc,
    unsigned int* __restrict__ split_found)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_smem_layout s = hyblas_carve(hyblas_smem, height, 0, true);
    hyblas_reduce_slots<ALL_PRESENT>(height, chunk_begin[blockIdx.x], chunk_end[blockIdx.x],
                                     slot_dst, partial, partial_present, s);
    const long long base = (long long)chunk_split[blockIdx.x] * height;
    for (int d = threadIdx.x; d < height; d += blockDim.x) {
        if (s.found[d] != 0u) {
            hyblas_atomic_combine(&split_acc[base + d], hyblas_from_word(s.acc[d]));
            split_found[base + d] = 1u;
        }
    }
}

// Mask, accumulation and replace for one output (its result z, found or not), written once.
template <bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT, bool HAS_OUT, bool ACCUM, bool REPLACE>
__device__ __forceinline__ void hyblas_write_output(
    const long long row, const hyblas_z z, const bool z_present,
    const hyblas_m* __restrict__ mask_values, const bool* __restrict__ mask_present,
    const hyblas_o* __restrict__ old_values, const bool* __restrict__ old_present,
    hyblas_o* __restrict__ new_values, bool* __restrict__ new_present)
{
    bool allowed = true;
    if (HAS_MASK) {
        const bool m = mask_present[row];
        allowed = STRUCTURAL ? m : (m && (bool)mask_values[row]);
        if (COMPLEMENT) allowed = !allowed;
    }
    hyblas_o value;
    bool present;
    if (!HAS_OUT) {
        value = (hyblas_o)z;
        present = z_present && allowed;
    } else {
        const hyblas_o old = old_values[row];
        const bool old_here = old_present[row];
        hyblas_o z_value = (hyblas_o)z;
        bool z_here = z_present;
        if (ACCUM) {
            z_here = z_present || old_here;
            if (!z_present) z_value = old;
            else if (old_here) z_value = hyblas_accum((hyblas_acc_t)old, (hyblas_acc_t)z);
        }
        if (allowed) {
            value = z_value;
            present = z_here;
        } else {
            value = old;
            present = REPLACE ? false : old_here;
        }
    }
    new_values[row] = value;
    new_present[row] = present;
}

// Phase 2: one thread block per row panel. Its slots are combined into shared accumulators by
// slot_dst (a split panel's were combined by phase 2a into split_acc / split_found); then mask,
// accumulation and replace are applied and each output is written once (to new arrays: the
// caller swaps them into the output object). A PERMUTED layout's results are instead written in
// internal order to inner_values / inner_present, coalesced, and hyblas_dense_unpermute writes
// the output from them (the write flags then play no part here).
template <bool ALL_PRESENT, bool PERMUTED, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT,
          bool HAS_OUT, bool ACCUM, bool REPLACE>
__global__ void hyblas_dense_reduce(
    const int height,
    const long long nrows,
    const long long* __restrict__ slot_ptr,
    const unsigned short* __restrict__ slot_dst,
    const int* __restrict__ panel_split,
    const hyblas_z* __restrict__ partial,
    const bool* __restrict__ partial_present,
    const hyblas_word* __restrict__ split_acc,
    const unsigned int* __restrict__ split_found,
    const hyblas_m* __restrict__ mask_values,
    const bool* __restrict__ mask_present,
    const hyblas_o* __restrict__ old_values,
    const bool* __restrict__ old_present,
    hyblas_o* __restrict__ new_values,
    bool* __restrict__ new_present,
    hyblas_z* __restrict__ inner_values,
    bool* __restrict__ inner_present)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_smem_layout s = hyblas_carve(hyblas_smem, height, 0, true);
    const long long first_row = (long long)blockIdx.x * height;
    const int split = panel_split[blockIdx.x];  // the same for the whole block
    if (split < 0) {
        hyblas_reduce_slots<ALL_PRESENT>(height, slot_ptr[blockIdx.x], slot_ptr[blockIdx.x + 1],
                                         slot_dst, partial, partial_present, s);
    }
    const hyblas_word* acc = split < 0 ? s.acc : split_acc + (long long)split * height;
    const unsigned int* found = split < 0 ? s.found : split_found + (long long)split * height;
    const long long left = nrows - first_row;
    const int rows = left < (long long)height ? (int)left : height;
    // HYBLAS_BATCH rows per thread: their results are loaded before any is written
    for (int d0 = threadIdx.x; d0 < rows; d0 += HYBLAS_BATCH * blockDim.x) {
        hyblas_word word[HYBLAS_BATCH];
        bool here[HYBLAS_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_BATCH; ++b) {
            const int d = d0 + b * blockDim.x;
            if (d < rows) {
                word[b] = acc[d];
                here[b] = found[d] != 0u;
            }
        }
#pragma unroll
        for (int b = 0; b < HYBLAS_BATCH; ++b) {
            const int d = d0 + b * (int)blockDim.x;
            if (d >= rows) continue;
            if (PERMUTED) {
                inner_values[first_row + d] = hyblas_from_word(word[b]);
                inner_present[first_row + d] = here[b];
            } else {
                hyblas_write_output<HAS_MASK, STRUCTURAL, COMPLEMENT, HAS_OUT, ACCUM, REPLACE>(
                    first_row + d, hyblas_from_word(word[b]), here[b], mask_values,
                    mask_present, old_values, old_present, new_values, new_present);
            }
        }
    }
}

// Phase 2 of a PERMUTED layout, second pass: each output row reads its result at its internal
// position (row_position) and is written once with mask / accumulation / replace. Scattered
// reads of the (mostly L2-resident) internal results and ordered writes are much cheaper than
// scattered writes, so the two passes together beat one pass that scatters its writes.
// Rows without entries sit at the internal positions from live_rows on: they have no result,
// and skip its read.
template <bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT, bool HAS_OUT, bool ACCUM, bool REPLACE,
          typename P>
__global__ void hyblas_dense_unpermute(
    const long long nrows,
    const long long live_rows,
    const P* __restrict__ row_position,
    const hyblas_z* __restrict__ inner_values,
    const bool* __restrict__ inner_present,
    const hyblas_m* __restrict__ mask_values,
    const bool* __restrict__ mask_present,
    const hyblas_o* __restrict__ old_values,
    const bool* __restrict__ old_present,
    hyblas_o* __restrict__ new_values,
    bool* __restrict__ new_present)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long r0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; r0 < nrows;
         r0 += HYBLAS_UNPERMUTE_BATCH * stride) {
        long long at[HYBLAS_UNPERMUTE_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_UNPERMUTE_BATCH; ++b) {
            const long long row = r0 + b * stride;
            if (row < nrows) at[b] = (long long)row_position[row];
        }
        hyblas_z z[HYBLAS_UNPERMUTE_BATCH];
        bool here[HYBLAS_UNPERMUTE_BATCH];
#pragma unroll
        for (int b = 0; b < HYBLAS_UNPERMUTE_BATCH; ++b) {
            if (r0 + b * stride < nrows) {
                const bool live = at[b] < live_rows;
                z[b] = live ? inner_values[at[b]] : (hyblas_z)(${IDENTITY});
                here[b] = live && inner_present[at[b]];
            }
        }
#pragma unroll
        for (int b = 0; b < HYBLAS_UNPERMUTE_BATCH; ++b) {
            const long long row = r0 + b * stride;
            if (row < nrows) {
                hyblas_write_output<HAS_MASK, STRUCTURAL, COMPLEMENT, HAS_OUT, ACCUM, REPLACE>(
                    row, z[b], here[b], mask_values, mask_present, old_values, old_present,
                    new_values, new_present);
            }
        }
    }
}
