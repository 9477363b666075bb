// hyblas output-masked pull SpMV: the listed outputs walk their rows of the edge matrix (CSR).
//
// Appended to csr_spmv.cu's specialization, whose helpers (hyblas_mult, hyblas_add,
// hyblas_combine, hyblas_warp_reduce, hyblas_block_reduce) it uses; adds
//   ${STOP} a condition in (acc, found) after which nothing can change the output:
//           `found` for the any monoid, `found && acc == terminal` for a monoid with a terminal
//           value, `false` otherwise.
// Short rows get one thread each, longer ones the warp, rows of more than `heavy` entries one
// block each. Each walker stops after the step where it has reached STOP: the
// direction-optimizing "bottom-up" step's early exit. With COUNT, the number of edges examined
// is added to *examined (for the decision trace; off otherwise).

__device__ __forceinline__ bool hyblas_pull_stops(hyblas_z acc, bool found) {
    return ${STOP};
}

template <typename I, bool FLIP, bool ALL_PRESENT>
__device__ __forceinline__ void hyblas_pull_edge(
    I k, const I* __restrict__ indices, const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u, const bool* __restrict__ u_present, hyblas_z& acc,
    bool& found)
{
    const I j = indices[k];
    if (!ALL_PRESENT && !u_present[j]) return;
    const hyblas_z p = FLIP ? hyblas_mult(u[j], a[k]) : hyblas_mult(a[k], u[j]);
    hyblas_combine(acc, found, p, true);
}

// Which outputs hyblas_pull_rows walks: every one, those listed in `rows`, or those with
// `allowed[row]` set (a thread per output tests its flag, so no list is built).
#define HYBLAS_PULL_EVERY 0
#define HYBLAS_PULL_LISTED 1
#define HYBLAS_PULL_ALLOWED 2
#define HYBLAS_PULL_THREAD_STEP ${THREAD_STEP}

// One thread per candidate output. A row of at most `thread_edges` edges is walked by its own
// thread, HYBLAS_PULL_THREAD_STEP edges a step (their loads issued together), stopping after
// the step where it reaches STOP; most rows of a power-law graph are short, and a warp per row
// would leave most of its lanes idle. The warp then walks its longer rows (up to `heavy`
// edges) one after another, 32 edges a step, all lanes stopping together. Heavier rows are left
// to hyblas_pull_block.
template <typename I, bool FLIP, bool ALL_PRESENT, int ROWS, bool COUNT>
__global__ void hyblas_pull_rows(
    const long long count,
    const long long* __restrict__ rows,
    const bool* __restrict__ allowed,
    const long long thread_edges,
    const long long heavy,
    const I* __restrict__ indptr,
    const I* __restrict__ indices,
    const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ out,
    bool* __restrict__ out_present,
    unsigned long long* __restrict__ examined)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    long long row = 0;
    bool mine = t < count;  // no early return: the whole warp takes part in the ballot below
    if (mine) {
        row = ROWS == HYBLAS_PULL_LISTED ? rows[t] : t;
        if (ROWS == HYBLAS_PULL_ALLOWED) mine = allowed[row];
    }
    I begin = 0, end = 0;
    if (mine) {
        begin = indptr[row];
        end = indptr[row + 1];
    }
    const long long degree = (long long)(end - begin);
    unsigned long long walked = 0;
    if (mine && degree <= thread_edges) {
        hyblas_z acc = (hyblas_z)(${IDENTITY});
        bool found = false;
        I k = begin;
        while (k < end) {
            I j[HYBLAS_PULL_THREAD_STEP];
#pragma unroll
            for (int s = 0; s < HYBLAS_PULL_THREAD_STEP; ++s) {
                j[s] = k + s < end ? indices[k + s] : (I)-1;
            }
#pragma unroll
            for (int s = 0; s < HYBLAS_PULL_THREAD_STEP; ++s) {
                if (j[s] < 0 || (!ALL_PRESENT && !u_present[j[s]])) continue;
                const hyblas_z p = FLIP ? hyblas_mult(u[j[s]], a[k + s])
                                        : hyblas_mult(a[k + s], u[j[s]]);
                hyblas_combine(acc, found, p, true);
            }
            k += HYBLAS_PULL_THREAD_STEP;
            if (hyblas_pull_stops(acc, found)) break;
        }
        out[row] = acc;
        out_present[row] = found;
        walked = (unsigned long long)(min(k, end) - begin);
    }
    unsigned medium = __ballot_sync(0xffffffffu, mine && degree > thread_edges
                                                 && degree <= heavy);
    while (medium) {  // the same rows on every lane
        const int leader = __ffs(medium) - 1;
        medium &= medium - 1;
        const long long r = __shfl_sync(0xffffffffu, row, leader);
        const I b = __shfl_sync(0xffffffffu, begin, leader);
        const I e = __shfl_sync(0xffffffffu, end, leader);
        hyblas_z acc = (hyblas_z)(${IDENTITY});
        bool found = false;
        long long base = b;
        for (; base < e; base += 32) {
            if (base + lane < e) {
                hyblas_pull_edge<I, FLIP, ALL_PRESENT>((I)(base + lane), indices, a, u,
                                                       u_present, acc, found);
            }
            if (__any_sync(0xffffffffu, hyblas_pull_stops(acc, found))) { base += 32; break; }
        }
        hyblas_warp_reduce(acc, found);
        if (lane == 0) {
            out[r] = acc;
            out_present[r] = found;
            walked += (unsigned long long)(min(base, (long long)e) - b);
        }
    }
    if (COUNT) {
        for (int delta = 16; delta > 0; delta >>= 1) {
            walked += __shfl_down_sync(0xffffffffu, walked, delta);
        }
        if (lane == 0 && walked) atomicAdd(examined, walked);
    }
}

// One block (a multiple of 32 threads, at most 1024) per heavy output; with `masked`, those
// whose `allowed` flag is not set return at once (no list of the allowed heavy rows is built).
template <typename I, bool FLIP, bool ALL_PRESENT, bool COUNT>
__global__ void hyblas_pull_block(
    const long long nheavy,
    const long long* __restrict__ heavy_rows,
    const bool* __restrict__ allowed,
    const int masked,
    const I* __restrict__ indptr,
    const I* __restrict__ indices,
    const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ out,
    bool* __restrict__ out_present,
    unsigned long long* __restrict__ examined)
{
    if (blockIdx.x >= nheavy) return;
    const long long row = heavy_rows[blockIdx.x];
    if (masked && !allowed[row]) return;  // uniform per block
    const I begin = indptr[row];
    const I end = indptr[row + 1];
    hyblas_z acc = (hyblas_z)(${IDENTITY});
    bool found = false;
    long long base = begin;
    for (; base < end; base += blockDim.x) {  // the same trip count in every thread
        if (base + threadIdx.x < end) {
            hyblas_pull_edge<I, FLIP, ALL_PRESENT>((I)(base + threadIdx.x), indices, a, u,
                                                   u_present, acc, found);
        }
        if (__syncthreads_or(hyblas_pull_stops(acc, found))) { base += blockDim.x; break; }
    }
    if (hyblas_block_reduce(acc, found)) {
        out[row] = acc;
        out_present[row] = found;
        if (COUNT) atomicAdd(examined, (unsigned long long)(min(base, (long long)end) - begin));
    }
}
