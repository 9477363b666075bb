// hyblas output-masked pull SpMV: the listed outputs walk their rows of the edge matrix (CSR).
//
// Appended to csr_spmv.cu's specialization, whose helpers (hyblas_mult, hyblas_add,
// hyblas_combine, hyblas_warp_reduce, hyblas_block_reduce) it uses; adds
//   ${STOP} a condition in (acc, found) after which nothing can change the output:
//           `found` for the any monoid, `found && acc == terminal` for a monoid with a terminal
//           value, `false` otherwise.
// Light rows get one warp each, rows of more than `heavy` entries one block each. A warp walks
// its row 32 edges at a time and stops, all lanes together, once any lane has reached STOP:
// the direction-optimizing "bottom-up" step's early exit. With COUNT, each row adds the number
// of edges it examined to *examined (for the decision trace; off otherwise).

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

// One warp per listed output (LISTED) or per output (all outputs allowed).
template <typename I, bool FLIP, bool ALL_PRESENT, bool LISTED, bool COUNT>
__global__ void hyblas_pull_warp(
    const long long count,
    const long long* __restrict__ rows,
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
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (w >= count) return;  // uniform per warp
    const long long row = LISTED ? rows[w] : w;
    const I begin = indptr[row];
    const I end = indptr[row + 1];
    if ((long long)(end - begin) > heavy) return;
    hyblas_z acc = (hyblas_z)(${IDENTITY});
    bool found = false;
    long long base = begin;
    for (; base < end; base += 32) {  // the same trip count on every lane
        if (base + lane < end) {
            hyblas_pull_edge<I, FLIP, ALL_PRESENT>((I)(base + lane), indices, a, u, u_present,
                                                   acc, found);
        }
        if (__any_sync(0xffffffffu, hyblas_pull_stops(acc, found))) { base += 32; break; }
    }
    hyblas_warp_reduce(acc, found);
    if (lane == 0) {
        out[row] = acc;
        out_present[row] = found;
        if (COUNT) atomicAdd(examined, (unsigned long long)(min(base, (long long)end) - begin));
    }
}

// One block (a multiple of 32 threads, at most 1024) per listed heavy output.
template <typename I, bool FLIP, bool ALL_PRESENT, bool COUNT>
__global__ void hyblas_pull_block(
    const long long nheavy,
    const long long* __restrict__ heavy_rows,
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
