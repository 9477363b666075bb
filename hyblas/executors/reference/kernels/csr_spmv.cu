// hyblas generic CSR SpMV for any semiring.
//
// Light rows (at most HEAVY entries) get one warp each; heavy rows get one thread block each,
// so a power-law hub with 10^5 entries is not walked by a single latency-bound warp.
// Specialized per (semiring, operand type) by string.Template substitution of
//   ${T} operand type, ${Z} result type, ${MULT} / ${ADD} expressions in x and y,
//   ${IDENTITY} the add monoid's identity, ${HAS_TERMINAL} 0/1 and ${TERMINAL} its terminal,
// and instantiated per index type I, operand order FLIP (vxm multiplies u_j * A_ij) and
// ALL_PRESENT (the input is full: its presence flags are not read).
// A row's output is present iff at least one of its entries meets a present input.

typedef ${T} hyblas_t;
typedef ${Z} hyblas_z;

__device__ __forceinline__ hyblas_z hyblas_mult(hyblas_t x, hyblas_t y) { return (hyblas_z)(${MULT}); }
__device__ __forceinline__ hyblas_z hyblas_add(hyblas_z x, hyblas_z y) { return (hyblas_z)(${ADD}); }

// __shfl_down_sync has no overloads for 1- and 2-byte types: move them as int.
template <typename V> __device__ __forceinline__ V hyblas_shfl_down(V v, int delta) {
    return __shfl_down_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ bool hyblas_shfl_down<bool>(bool v, int delta) {
    return __shfl_down_sync(0xffffffffu, (int)v, delta) != 0;
}
template <> __device__ __forceinline__ signed char hyblas_shfl_down<signed char>(signed char v, int delta) {
    return (signed char)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ unsigned char hyblas_shfl_down<unsigned char>(unsigned char v, int delta) {
    return (unsigned char)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ short hyblas_shfl_down<short>(short v, int delta) {
    return (short)__shfl_down_sync(0xffffffffu, (int)v, delta);
}
template <> __device__ __forceinline__ unsigned short hyblas_shfl_down<unsigned short>(unsigned short v, int delta) {
    return (unsigned short)__shfl_down_sync(0xffffffffu, (int)v, delta);
}

// Combine (acc, found) with (other, other_found), in that order.
__device__ __forceinline__ void hyblas_combine(hyblas_z& acc, bool& found, hyblas_z other,
                                               bool other_found) {
    if (other_found) {
        acc = found ? hyblas_add(acc, other) : other;
        found = true;
    }
}

// One lane's share of row entries [begin, end), striding by `stride`.
template <typename I, bool FLIP, bool ALL_PRESENT>
__device__ __forceinline__ void hyblas_row_partial(
    I begin, I end, int offset, int stride, const I* __restrict__ indices,
    const hyblas_t* __restrict__ a, const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present, hyblas_z& acc, bool& found)
{
    for (I k = begin + offset; k < end; k += stride) {
        const I j = indices[k];
        if (!ALL_PRESENT && !u_present[j]) continue;
        const hyblas_z p = FLIP ? hyblas_mult(u[j], a[k]) : hyblas_mult(a[k], u[j]);
        hyblas_combine(acc, found, p, true);
#if ${HAS_TERMINAL}
        if (acc == (hyblas_z)(${TERMINAL})) break;  // nothing can change a terminal value
#endif
    }
}

__device__ __forceinline__ void hyblas_warp_reduce(hyblas_z& acc, bool& found) {
    for (int delta = 16; delta > 0; delta >>= 1) {
        const hyblas_z other = hyblas_shfl_down(acc, delta);
        const bool other_found = hyblas_shfl_down(found, delta);
        hyblas_combine(acc, found, other, other_found);
    }
}

// Combine the (acc, found) of every thread of the block; true in the thread holding the result.
__device__ __forceinline__ bool hyblas_block_reduce(hyblas_z& acc, bool& found) {
    __shared__ hyblas_z warp_acc[32];
    __shared__ bool warp_found[32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    hyblas_warp_reduce(acc, found);
    if (lane == 0) {
        warp_acc[warp] = acc;
        warp_found[warp] = found;
    }
    __syncthreads();
    if (warp != 0) return false;
    const int nwarps = blockDim.x >> 5;
    acc = lane < nwarps ? warp_acc[lane] : (hyblas_z)(${IDENTITY});
    found = lane < nwarps ? warp_found[lane] : false;
    hyblas_warp_reduce(acc, found);
    return lane == 0;
}

// One warp per row; rows with more than `heavy` entries are left to hyblas_spmv_csr_block.
template <typename I, bool FLIP, bool ALL_PRESENT>
__global__ void hyblas_spmv_csr_warp(
    const long long nrows,
    const long long heavy,
    const I* __restrict__ indptr,
    const I* __restrict__ indices,
    const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ out,
    bool* __restrict__ out_present)
{
    const long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (row >= nrows) return;  // uniform per warp: the shuffles below see all 32 lanes
    const I begin = indptr[row];
    const I end = indptr[row + 1];
    if ((long long)(end - begin) > heavy) return;
    hyblas_z acc = (hyblas_z)(${IDENTITY});
    bool found = false;
    hyblas_row_partial<I, FLIP, ALL_PRESENT>(begin, end, lane, 32, indices, a, u, u_present,
                                             acc, found);
    hyblas_warp_reduce(acc, found);
    if (lane == 0) {
        out[row] = acc;
        out_present[row] = found;
    }
}

// One thread block (a multiple of 32 threads, at most 1024) per listed heavy row.
template <typename I, bool FLIP, bool ALL_PRESENT>
__global__ void hyblas_spmv_csr_block(
    const long long nheavy,
    const long long* __restrict__ heavy_rows,
    const I* __restrict__ indptr,
    const I* __restrict__ indices,
    const hyblas_t* __restrict__ a,
    const hyblas_t* __restrict__ u,
    const bool* __restrict__ u_present,
    hyblas_z* __restrict__ out,
    bool* __restrict__ out_present)
{
    if (blockIdx.x >= nheavy) return;
    const long long row = heavy_rows[blockIdx.x];
    hyblas_z acc = (hyblas_z)(${IDENTITY});
    bool found = false;
    hyblas_row_partial<I, FLIP, ALL_PRESENT>(indptr[row], indptr[row + 1], threadIdx.x,
                                             blockDim.x, indices, a, u, u_present, acc, found);
    if (hyblas_block_reduce(acc, found)) {
        out[row] = acc;
        out_present[row] = found;
    }
}
