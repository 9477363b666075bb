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
// Layout: hyblas/ops/dense/layout.py. Shared memory is dynamic; offsets are computed by
// hyblas_smem_layout here and by shared_bytes() in executor.py, which must agree.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;
typedef ${WORD} hyblas_word;
typedef ${O} hyblas_o;
typedef ${M} hyblas_m;
typedef ${ACC_T} hyblas_acc_t;

#define HYBLAS_PAD (-32768)
#define HYBLAS_VECTOR 8  // int16 tokens per thread per step: VECTOR in layout.py

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }
__device__ __forceinline__ hyblas_o hyblas_accum(hyblas_acc_t x, hyblas_acc_t y) { return (hyblas_o)(${ACCUM}); }
__device__ __forceinline__ hyblas_word hyblas_to_word(hyblas_z v) { ${TO_WORD} }
__device__ __forceinline__ hyblas_z hyblas_from_word(hyblas_word w) { ${FROM_WORD} }
__device__ __forceinline__ void hyblas_atomic_combine(hyblas_word* slot, hyblas_z v) { ${ATOMIC} }

__device__ __forceinline__ size_t hyblas_align8(size_t bytes) { return (bytes + 7) & ~(size_t)7; }

// Shared memory: [acc words x height][x panel x width][found flags x height][present x width].
struct hyblas_smem_layout {
    hyblas_word* acc;
    hyblas_t* xs;
    unsigned int* found;
    bool* ps;
};

__device__ __forceinline__ hyblas_smem_layout hyblas_carve(unsigned char* base, int height, int width) {
    hyblas_smem_layout s;
    size_t at = 0;
    s.acc = (hyblas_word*)(base + at);
    at = hyblas_align8(at + (size_t)height * sizeof(hyblas_word));
    s.xs = (hyblas_t*)(base + at);
    at = hyblas_align8(at + (size_t)width * sizeof(hyblas_t));
    s.found = (unsigned int*)(base + at);
    at = hyblas_align8(at + (size_t)height * sizeof(unsigned int));
    s.ps = (bool*)(base + at);
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
    for (int k = threadIdx.x; k < count; k += blockDim.x) {
        xs[k] = u[first + k];
        if (!ALL_PRESENT) ps[k] = u_present[first + k];
    }
}

// Phase 1, heavy units: one thread block per team (consecutive units of one column panel, whose
// inputs it loads into shared memory once), one tile column per thread. A thread combines its
// runs in a register and flushes each into the unit's shared accumulator of its destination;
// the unit then writes one partial per distinct destination to its pre-assigned slots.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__global__ void hyblas_dense_heavy(
    const int width,
    const int height,
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
    bool* __restrict__ partial_present)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_smem_layout s = hyblas_carve(hyblas_smem, height, width);
    const long long first_unit = team_begin[blockIdx.x];
    const long long last_unit = team_end[blockIdx.x];
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    hyblas_load_panel<ALL_PRESENT>((long long)unit_panel[first_unit] * width, ncols, width, u,
                                   u_present, s.xs, s.ps);
    for (long long unit = first_unit; unit < last_unit; ++unit) {
        for (int d = threadIdx.x; d < height; d += blockDim.x) {
            s.acc[d] = empty;
            if (!ALL_PRESENT) s.found[d] = 0u;
        }
        __syncthreads();

        // step k of this thread: HYBLAS_VECTOR tokens in one 16-byte load
        const int steps = unit_steps[unit];
        const long long column = unit_offset[unit] + (long long)threadIdx.x * HYBLAS_VECTOR;
        const long long stride = (long long)blockDim.x * HYBLAS_VECTOR;
        hyblas_z run = (hyblas_z)(${IDENTITY});
        bool run_found = false;
        bool done = false;
        int dst = 0;
        for (int k = 0; k < steps && !done; ++k) {
            const long long at = column + (long long)k * stride;
            const int4 chunk = *reinterpret_cast<const int4*>(table + at);
            const short* tokens = reinterpret_cast<const short*>(&chunk);
            // the step's inputs first, as independent shared-memory loads (a marker reads xs[0])
            hyblas_t xv[HYBLAS_VECTOR];
            bool live[HYBLAS_VECTOR];
#pragma unroll
            for (int i = 0; i < HYBLAS_VECTOR; ++i) {
                const int j = tokens[i] >= 0 ? tokens[i] : 0;
                xv[i] = s.xs[j];
                live[i] = ALL_PRESENT || s.ps[j];
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
                        hyblas_atomic_combine(&s.acc[dst], run);
                        if (!ALL_PRESENT) atomicOr(&s.found[dst], 1u);
                    }
                    dst = -token - 1;
                    run_found = false;
                } else if (live[i]) {
                    const hyblas_t a = ISO ? iso_value : weights[at + i];
                    const hyblas_z p = FLIP ? hyblas_mult(xv[i], a) : hyblas_mult(a, xv[i]);
                    run = run_found ? hyblas_add(run, p) : p;
                    run_found = true;
                }
            }
        }
        if (run_found) {
            hyblas_atomic_combine(&s.acc[dst], run);
            if (!ALL_PRESENT) atomicOr(&s.found[dst], 1u);
        }
        __syncthreads();

        const long long base = unit_slot_base[unit];
        const int count = unit_slot_count[unit];
        for (int i = threadIdx.x; i < count; i += blockDim.x) {
            const int d = slot_dst[base + i];
            partial[base + i] = hyblas_from_word(s.acc[d]);
            if (!ALL_PRESENT) partial_present[base + i] = s.found[d] != 0u;
        }
        __syncthreads();
    }
}

// Phase 1, light units: a column panel's light stream, one product per entry into its slot.
template <bool FLIP, bool ALL_PRESENT, bool ISO>
__global__ void hyblas_dense_light(
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
    bool* __restrict__ partial_present)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_smem_layout s = hyblas_carve(hyblas_smem, 0, width);
    const int unit = blockIdx.x;
    hyblas_load_panel<ALL_PRESENT>((long long)unit_panel[unit] * width, ncols, width, u, u_present,
                                   s.xs, s.ps);
    __syncthreads();
    const long long end = unit_end[unit];
#pragma unroll 4
    for (long long k = unit_begin[unit] + threadIdx.x; k < end; k += blockDim.x) {
        const int j = src[k];
        const int target = slot[k];
        if (ALL_PRESENT || s.ps[j]) {
            const hyblas_t a = ISO ? iso_value : weights[k];
            partial[target] = FLIP ? hyblas_mult(s.xs[j], a) : hyblas_mult(a, s.xs[j]);
            if (!ALL_PRESENT) partial_present[target] = true;
        } else {
            partial_present[target] = false;
        }
    }
}

// Phase 2: one thread block per row panel. Its slots are combined into shared accumulators by
// slot_dst; then mask, accumulation and replace are applied and each output is written once
// (to new arrays: the caller swaps them into the output object).
template <bool ALL_PRESENT, bool PERMUTED, bool HAS_MASK, bool STRUCTURAL, bool COMPLEMENT,
          bool HAS_OUT, bool ACCUM, bool REPLACE, typename R>
__global__ void hyblas_dense_reduce(
    const int height,
    const long long nrows,
    const long long* __restrict__ slot_ptr,
    const unsigned short* __restrict__ slot_dst,
    const hyblas_z* __restrict__ partial,
    const bool* __restrict__ partial_present,
    const R* __restrict__ row_order,
    const hyblas_m* __restrict__ mask_values,
    const bool* __restrict__ mask_present,
    const hyblas_o* __restrict__ old_values,
    const bool* __restrict__ old_present,
    hyblas_o* __restrict__ new_values,
    bool* __restrict__ new_present)
{
    extern __shared__ __align__(16) unsigned char hyblas_smem[];
    const hyblas_smem_layout s = hyblas_carve(hyblas_smem, height, 0);
    const long long first_row = (long long)blockIdx.x * height;
    const hyblas_word empty = hyblas_to_word((hyblas_z)(${IDENTITY}));
    for (int d = threadIdx.x; d < height; d += blockDim.x) {
        s.acc[d] = empty;
        s.found[d] = 0u;
    }
    __syncthreads();
    const long long end = slot_ptr[blockIdx.x + 1];
#pragma unroll 4
    for (long long k = slot_ptr[blockIdx.x] + threadIdx.x; k < end; k += blockDim.x) {
        if (ALL_PRESENT || partial_present[k]) {
            const int d = slot_dst[k];
            hyblas_atomic_combine(&s.acc[d], partial[k]);
            atomicOr(&s.found[d], 1u);
        }
    }
    __syncthreads();
    const long long left = nrows - first_row;
    const int rows = left < (long long)height ? (int)left : height;
    for (int d = threadIdx.x; d < rows; d += blockDim.x) {
        const long long row = PERMUTED ? (long long)row_order[first_row + d] : first_row + d;
        const hyblas_z z = hyblas_from_word(s.acc[d]);
        const bool z_present = s.found[d] != 0u;
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
}
